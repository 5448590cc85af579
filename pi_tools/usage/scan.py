"""Collect usage from session files, fast, on the engine's workers, as small per-file groups.

Folders hold hundreds of megabytes of sessions, most of it tool output and prompts that carry no usage. The
`all` scan therefore never builds a tree nor splits a file into lines: it jumps between occurrences of the
literal key `"assistant"`, reads Pi's usual assistant line with two anchored regular expressions, and parses
any other candidate line in full with orjson. The `active` scan needs the entry tree (the leaf's path), so it
uses the full session loader. Workers sum their messages per (day, provider, model, api) before returning,
so what crosses the process boundary is a few rows per file rather than one object per message.

This module deliberately imports nothing heavy at load time: it is what the worker processes import.
Where the jobs run (this process, the cores, Dask) is the engine's decision (pi_tools.engine.map_ordered).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from pi_tools.session.header_check import header_problem
from pi_tools.usage.counter import (
    ALL_COST_SOURCES,
    MESSAGE_KIND,
    PROVIDER,
    USAGE_KIND,
    UsageCounter,
    stored_cost,
    usage_counts,
    usage_entry_of,
    usage_of,
)

if TYPE_CHECKING:
    from pi_tools.engine import Engine
    from pi_tools.session.context import ContextRules
    from pi_tools.session.spending import SpendingRules

GROUP_FIELDS = ("day", "provider", "model", "api", "kind")
"""`kind`: MESSAGE_KIND for assistant messages, a usage entry's kind for it (where the version counts them)."""
SOURCE_FIELDS = ("storedMessages", "catalogMessages", "priceTableMessages", "unpricedMessages", "providerMessages")
"""How many of a group's messages (and usage entries) got their cost from each of ALL_COST_SOURCES."""
SUM_FIELDS = (
    "messages", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "costStored", "costRecomputed",
    "costFromProvider", *SOURCE_FIELDS,
)
"""`messages` counts the group's records (assistant messages, or usage entries: its kind says which);
`costFromProvider` is the part of `costStored` the provider billed."""
KEY_FIELDS = ("entryId", "timestamp")
"""With `keep_keys`, each row is one message and also carries these (for de-duplicating copies across files)."""


@dataclass(frozen=True)
class ScanJob:
    """One unit of work: files whose messages ccusage would de-duplicate against each other, scanned together."""

    paths: tuple[str, ...]
    scope: str  # "all" | "active"
    timezone: str | None  # IANA name; None = the local zone (TZ or the system's)
    keep_keys: bool = False
    cost: str = "auto"  # one of counter.COST_MODES
    spending: SpendingRules | None = None
    """The Pi version's spending rules (None: the code's default, Pi 0.85's)."""
    rules: ContextRules | None = None
    """The Pi version's context rules, for the active path (None: the session loader's default, Pi 0.85's)."""


@dataclass
class ScanResult:
    """Rows per file (column lists named GROUP_FIELDS + SUM_FIELDS [+ KEY_FIELDS]) or an error per file."""

    rows: dict[str, dict[str, list[Any]]]
    errors: dict[str, str]


class _Accumulator(UsageCounter):
    """The counter's messages of one file summed per group (or, with `keep_keys`, one group per message)."""

    def __init__(self, timezone: str | None, keep_keys: bool, cost: str = "auto",
                 spending: SpendingRules | None = None) -> None:
        super().__init__(timezone, cost, spending)
        self.keep_keys = keep_keys
        self.groups: dict[tuple[Any, ...], list[Any]] = {}
        # The hot path's state: day per minute (bytes key) and sums per (day, provider, model, api) as bytes.
        self.minute_days: dict[bytes, str | None] = {}
        self.raw_groups: dict[tuple[Any, ...], list[Any]] = {}

    def add(self, entry: dict[str, Any], message: dict[str, Any], usage: dict[str, Any]) -> None:
        provider = message.get("provider")
        model = message.get("model")
        api = message.get("api")
        entry_id = entry.get("id")
        input_tokens, output_tokens, cache_read, cache_write, cache_write_1h, total = usage_counts(usage)
        self.add_counts(entry["timestamp"], entry_id if type(entry_id) is str else None,
                        provider if type(provider) is str else None, model if type(model) is str else None,
                        api if type(api) is str else None, input_tokens, output_tokens, cache_read, cache_write,
                        cache_write_1h, total, stored_cost(usage), self.billed(usage))

    def add_entry(self, entry: dict[str, Any], kind: str, provider: Any, model: Any, usage: dict[str, Any]) -> None:
        """A usage entry that counts (counter.usage_entry_of): spending of its kind, no message, no api."""
        entry_id = entry.get("id")
        input_tokens, output_tokens, cache_read, cache_write, cache_write_1h, total = usage_counts(usage)
        self.add_counts(entry["timestamp"], entry_id if type(entry_id) is str else None,
                        provider if type(provider) is str else None, model if type(model) is str else None,
                        None, input_tokens, output_tokens, cache_read, cache_write, cache_write_1h, total,
                        stored_cost(usage), self.billed(usage), kind)

    def add_counts(self, stamp: str, entry_id: str | None, provider: str | None, model: str | None,
                   api: str | None, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int,
                   cache_write_1h: int, total: int, stored: Any, billed: bool = False,
                   kind: str | None = None) -> None:
        """One message (`kind` None) or usage entry of that kind, counted per the counter's rules."""
        if not (self.counts(stamp, total) if kind is None else self.counts_entry(kind, stamp, total)):
            return
        day = self.day_of(stamp)
        if day is None:
            return
        stored_value, recomputed, source = self.cost(stored, provider, model, input_tokens, output_tokens,
                                                     cache_read, cache_write, cache_write_1h, billed)
        counts = _SOURCE_COUNTS[source]  # [stored, catalog, priceTable, unpriced, provider], one of them 1
        billed_value = stored_value if source == PROVIDER else 0.0
        group_kind = MESSAGE_KIND if kind is None else kind
        if self.keep_keys:
            key: tuple[Any, ...] = (day, provider, model, api, group_kind, len(self.groups))
            self.groups[key] = [1, input_tokens, output_tokens, cache_read, cache_write, total, stored_value,
                                recomputed, billed_value, *counts, entry_id, stamp]
            return
        key = (day, provider, model, api, group_kind)
        sums = self.groups.get(key)
        if sums is None:
            self.groups[key] = [1, input_tokens, output_tokens, cache_read, cache_write, total, stored_value,
                                recomputed, billed_value, *counts]
            return
        sums[0] += 1
        sums[1] += input_tokens
        sums[2] += output_tokens
        sums[3] += cache_read
        sums[4] += cache_write
        sums[5] += total
        sums[6] += stored_value
        sums[7] += recomputed
        sums[8] += billed_value
        for index, count in enumerate(counts, start=9):
            sums[index] += count

    def columns(self) -> dict[str, list[Any]]:
        for (day, provider, model, api), (count, *sums) in self.raw_groups.items():
            key = (day, provider.decode(errors="replace"), model.decode(errors="replace"),
                   api.decode(errors="replace"), MESSAGE_KIND)
            row = self.groups.get(key)
            # The hot path only sums stored costs taken as they are: all of its messages are "stored".
            if row is None:
                self.groups[key] = [count, *sums, 0.0, 0.0, count, 0, 0, 0, 0]
            else:
                row[0] += count
                for index, value in enumerate(sums, start=1):
                    row[index] += value
                row[9] += count
        self.raw_groups = {}
        names = GROUP_FIELDS + SUM_FIELDS + (KEY_FIELDS if self.keep_keys else ())
        out: dict[str, list[Any]] = {name: [] for name in names}
        for key, sums in self.groups.items():
            for name, value in zip(GROUP_FIELDS, key, strict=False):
                out[name].append(value)
            for name, value in zip(names[len(GROUP_FIELDS):], sums, strict=True):
                out[name].append(value)
        return out


_SOURCE_COUNTS = {source: [int(source == name) for name in ALL_COST_SOURCES] for source in ALL_COST_SOURCES}


_INT = rb"(0|[1-9][0-9]{0,18})"
"""A token count the inlined path may sum: at most 19 digits, so never past 2^64 - 1 (WIDE), beyond which the
counter reads a count as 0; a longer one sends the line to the full parse and the counter's rules."""
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
# Pi's ordinary assistant line, read in two anchored pieces so that the (large) content array between them is
# skipped by a C-level search instead of being matched character by character: the entry head up to the
# content, and the message fields from the last `,"api":"` to the end of the line. The tail must run exactly to
# the line's end in this flat shape, so a cut inside the content cannot match. Captured strings contain no
# escapes, so their bytes are their values; counts are JSON integers and the cost a full pi-ai cost object.
# Pi 1.6 adds `totalFromProvider` to the cost, may write `cacheWrite1h` after it, and fields after the message's
# `timestamp` (`responseId`, `responseModel`, `rawStopReason`, `durationMs`, `thinkingLevel`).
_PI_HEAD = re.compile(
    rb'\{"type":"message","id":"([^"\\\n]*)","parentId":(?:"[^"\\\n]*"|null),'
    rb'"timestamp":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?:Z|[+-]\d{2}:\d{2}))",'
    rb'"message":\{"role":"assistant","content":\['
)
_PI_TAIL = re.compile(
    rb',"api":"([^"\\\n]*)","provider":"([^"\\\n]*)",'
    rb'"model":"([^"\\\n]*)"(?:,"(?:responseModel|responseId|providerThinkingLevel)":"[^"\\\n]*")*'
    rb',"usage":\{"input":' + _INT + rb',"output":' + _INT + rb',"cacheRead":' + _INT
    + rb',"cacheWrite":' + _INT + rb'(?:,"cacheWrite1h":' + _INT + rb')?(?:,"reasoning":' + _INT + rb')?'
    + rb',"totalTokens":' + _INT + rb',"cost":\{"input":' + _NUMBER + rb',"output":' + _NUMBER
    + rb',"cacheRead":' + _NUMBER + rb',"cacheWrite":' + _NUMBER + rb',"total":(' + _NUMBER + rb')'
    rb'(?:,"totalFromProvider":(true|false))?\}(?:,"cacheWrite1h":' + _INT + rb')?\}'
    rb',"stopReason":"[A-Za-z]*"(?:,"errorMessage":"[^"\\\n]*")?,"timestamp":-?[0-9]+(?:\.[0-9]+)?'
    rb'(?:,"(?:responseId|responseModel|rawStopReason|thinkingLevel)":"[^"\\\n]*"|,"durationMs":[0-9]+)*\}\}\r?'
)
# Pi 1.6's usage entry (SessionManager.appendUsage), in the key order Pi writes, read whole.
_PI_USAGE_ENTRY = re.compile(
    rb'\{"type":"usage","id":"([^"\\\n]*)","parentId":(?:"[^"\\\n]*"|null),'
    rb'"timestamp":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?:Z|[+-]\d{2}:\d{2}))",'
    rb'"kind":"([^"\\\n]*)","provider":"([^"\\\n]*)","model":"([^"\\\n]*)",'
    rb'"usage":\{"input":' + _INT + rb',"output":' + _INT + rb',"cacheRead":' + _INT
    + rb',"cacheWrite":' + _INT + rb'(?:,"cacheWrite1h":' + _INT + rb')?(?:,"reasoning":' + _INT + rb')?'
    + rb',"totalTokens":' + _INT + rb',"cost":\{"input":' + _NUMBER + rb',"output":' + _NUMBER
    + rb',"cacheRead":' + _NUMBER + rb',"cacheWrite":' + _NUMBER + rb',"total":(' + _NUMBER + rb')'
    rb'(?:,"totalFromProvider":(true|false))?\}(?:,"cacheWrite1h":' + _INT + rb')?\}'
    rb'(?:,"note":"[^"\\\n]*")?\}\r?'
)


class NotASession(ValueError):
    """The file is not one Pi would open as a session (empty, binary, no session header first)."""


def scan_all(path: str, into: _Accumulator) -> None:
    """Every counted assistant message in the file, without splitting or parsing the lines that cannot count.

    Only lines holding the literal key `"assistant"` can count (a key's quotes are never escaped), so the scan
    jumps from one to the next. Lines in Pi's usual shape are read by two anchored regular expressions; any
    other line holding `"usage"` too is parsed in full.

    Where the counter's rules count usage entries (Pi 1.6), a second jump visits the other lines holding the
    literal `"usage"` (a usage entry's type, and its usage object's key): Pi's own usage entry line is read by
    one regular expression, any other is parsed in full.
    """
    from pi_tools.sources.files import read_bytes

    data = read_bytes(path)
    problem = header_problem(data)
    if problem is not None:
        raise NotASession(f"{path}: {problem}")
    scan_data(data, into)


def scan_data(data: bytes, into: _Accumulator) -> None:
    """`scan_all` of a file's bytes already read (the index and the one-session totals have them)."""
    find = data.find
    rfind = data.rfind
    head_match = _PI_HEAD.match
    tail_match = _PI_TAIL.fullmatch
    add_counts = into.add_counts
    # Messages the inlined path cannot sum: per-message rows (keep_keys) and costs to recompute.
    divert_all = into.keep_keys or into.recompute_all
    divert_zero = into.recompute_zero
    billed_rule = into.provider_billed  # a provider-billed cost (`totalFromProvider: true`) is never re-priced
    usage_entries = into.usage_entries
    handled: set[int] = set()  # the line starts the first jump read (for the second, with usage entries)
    handled_add = handled.add
    seen = into.seen
    seen_add = seen.add
    days = into.minute_days
    raw_groups = into.raw_groups
    size = len(data)
    position = find(b'"assistant"')
    while position >= 0:
        start = rfind(b"\n", 0, position) + 1
        end = find(b"\n", position)
        if end < 0:
            end = size
        position = find(b'"assistant"', end)
        if usage_entries:
            handled_add(start)
        head = head_match(data, start, end)
        if head is not None:
            cut = rfind(b',"api":"', head.end(), end)
            tail = tail_match(data, cut, end) if cut >= 0 else None
            if tail is not None:
                api, provider, model, inp, out, read, write, write_1h, _, total, cost, from_provider, write_1h_late \
                    = tail.groups()
                cost_value = float(cost)
                billed = billed_rule and from_provider == b"true"
                if billed or divert_all or (divert_zero and cost_value == 0.0):
                    entry_id, stamp = head.groups()
                    try:
                        add_counts(stamp.decode(), entry_id.decode(), provider.decode(), model.decode(),
                                   api.decode(), int(inp), int(out), int(read), int(write),
                                   int(write_1h_late or write_1h or 0), int(total), cost_value, billed)
                    except UnicodeDecodeError:
                        pass  # orjson would reject the whole line too
                    continue
                # The hot path: the counter's rules inlined (`seen`, `day_of` cached per minute, the stored cost,
                # which the mode takes as it is here), one dictionary update per message, keys kept as bytes.
                stamp = head[2]
                if stamp[17:19] > b"59":
                    continue
                total_tokens = int(total)
                seen_key = (stamp, total_tokens)
                if seen_key in seen:
                    continue
                seen_add(seen_key)
                day = days.get(stamp[:16] + stamp[19:].lstrip(b".0123456789"), "")
                if day == "":
                    day = into.day_of(stamp.decode())
                    days[stamp[:16] + stamp[19:].lstrip(b".0123456789")] = day
                if day is None:
                    continue
                key = (day, provider, model, api)
                sums = raw_groups.get(key)
                if sums is None:
                    raw_groups[key] = [1, int(inp), int(out), int(read), int(write), total_tokens, cost_value]
                else:
                    sums[0] += 1
                    sums[1] += int(inp)
                    sums[2] += int(out)
                    sums[3] += int(read)
                    sums[4] += int(write)
                    sums[5] += total_tokens
                    sums[6] += cost_value
                continue
        _scan_line(data[start:end], into)
    if usage_entries:
        _scan_usage_entries(data, into, handled)


def _scan_usage_entries(data: bytes, into: _Accumulator, handled: set[int]) -> None:
    """The lines holding the literal `"usage"` that the first jump did not read: usage entries (Pi's own line by
    one regular expression, any other parsed in full)."""
    find = data.find
    rfind = data.rfind
    entry_match = _PI_USAGE_ENTRY.fullmatch
    add_counts = into.add_counts
    billed_rule = into.provider_billed
    size = len(data)
    position = find(b'"usage"')
    while position >= 0:
        start = rfind(b"\n", 0, position) + 1
        end = find(b"\n", position)
        if end < 0:
            end = size
        position = find(b'"usage"', end)
        if start in handled:
            continue
        match = entry_match(data, start, end)
        if match is None:
            _scan_line(data[start:end], into)
            continue
        entry_id, stamp, kind, provider, model, inp, out, read, write, write_1h, _, total, cost, from_provider, \
            write_1h_late = match.groups()
        try:
            add_counts(stamp.decode(), entry_id.decode(), provider.decode(), model.decode(), None, int(inp),
                       int(out), int(read), int(write), int(write_1h_late or write_1h or 0), int(total),
                       float(cost), billed_rule and from_provider == b"true", kind.decode() or USAGE_KIND)
        except UnicodeDecodeError:
            pass  # orjson would reject the whole line too


def _scan_line(line: bytes, into: _Accumulator) -> None:
    """The careful path for one line that may count: full JSON parse, then ccusage's checks (and, where the
    counter's rules count them, a usage entry's)."""
    if b'"usage"' not in line:
        return
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    found = usage_of(entry)
    if found is not None:
        into.add(entry, found[0], found[1])
    elif into.usage_entries:
        spent = usage_entry_of(into.spending, entry)
        if spent is not None:
            into.add_entry(entry, *spent)


def scan_active(path: str, into: _Accumulator, rules: ContextRules | None = None) -> None:
    """Counted assistant messages (and, where the counter's rules count them, usage entries) on the path from the
    root to the session's leaf (before and after compactions), the session read by the version's rules."""
    from pi_tools.session import load_session

    tree = load_session(path) if rules is None else load_session(path, rules=rules)
    for entry in tree.path(tree.leaf_id):
        found = usage_of(entry)
        if found is not None:
            into.add(entry, found[0], found[1])
        elif into.usage_entries:
            spent = usage_entry_of(into.spending, entry)
            if spent is not None:
                into.add_entry(entry, *spent)


def run_job(job: ScanJob) -> ScanResult:
    """Worker entry. An unreadable file is reported and skipped; it must not sink the others."""
    result = ScanResult({}, {})
    accumulator = _Accumulator(job.timezone, job.keep_keys, job.cost, job.spending)
    for path in job.paths:
        accumulator.groups = {}
        try:
            if job.scope == "all":
                scan_all(path, accumulator)
            else:
                scan_active(path, accumulator, job.rules)
        except FileNotFoundError:
            result.errors[path] = f"{path}: no such file"
            continue
        except IsADirectoryError:
            result.errors[path] = f"{path}: is a directory, not a session file"
            continue
        except OSError as exc:
            result.errors[path] = f"{path}: cannot read: {exc.strerror or exc}"
            continue
        except Exception as exc:  # noqa: BLE001 - reported per file by the caller, never as a traceback
            text = str(exc) or type(exc).__name__
            result.errors[path] = text if path in text else f"{path}: {text}"
            continue
        result.rows[path] = accumulator.columns()
    return result


def ccusage_identity(path: str) -> tuple[str, str]:
    """(project, session id) as ccusage derives them from a path: the folder after `sessions`, the name after `_`."""
    parts = os.path.abspath(path).split(os.sep)
    project = "unknown"
    if "sessions" in parts:
        index = parts.index("sessions")
        if index + 1 < len(parts):
            project = parts[index + 1]
    stem = os.path.basename(path)
    stem = stem[:-len(".jsonl")] if stem.endswith(".jsonl") else stem
    underscore = stem.find("_")
    return project, stem[underscore + 1:] if underscore >= 0 else stem


def session_files(paths: Iterable[str]) -> list[str]:
    """Files named on the command line, plus every `*.jsonl` below named folders (sorted, recursive)."""
    from pi_tools.sources.files import expand, is_url

    found: list[str] = []
    for path in paths:
        if is_url(path):  # a prefix's files in folder order; a URL that lists nothing is kept, to be reported
            found.extend(name for name, _ in expand([path]))
        elif os.path.isdir(path):
            below: list[str] = []
            for folder, dirs, names in os.walk(path):
                dirs.sort()
                below.extend(os.path.join(folder, name) for name in names if name.endswith(".jsonl"))
            found.extend(sorted(below))
        else:
            found.append(path)
    return found


def plan_jobs(files: list[str], scope: str, timezone: str | None, keep_keys: bool,
              cost: str = "auto", spending: SpendingRules | None = None,
              rules: ContextRules | None = None) -> list[ScanJob]:
    """One job per ccusage identity, so that ccusage's de-duplication happens inside one worker."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for path in files:
        grouped.setdefault(ccusage_identity(path) if scope == "all" else ("", path), []).append(path)
    return [ScanJob(tuple(paths), scope, timezone, keep_keys, cost, spending, rules) for paths in grouped.values()]


def scan(jobs: list[ScanJob], engine: Engine | None = None) -> Iterator[ScanResult]:
    """The jobs' results in job order, run where the engine decides (in this process when the files are
    small: starting workers would cost more than it saves)."""
    from pi_tools.engine import map_ordered
    from pi_tools.sources.files import size_of

    return map_ordered(run_job, jobs, engine, weights=[sum(size_of(path) for path in job.paths) for job in jobs])


def scan_reads_line(line: bytes) -> bool:
    """Whether `scan_all` reads this line at all: Pi's usual assistant shape by its two expressions, any other
    line when orjson parses it. (The session reader takes some lines orjson refuses, with JSON.parse's rules;
    the index uses this to count exactly what the scan counts.)"""
    head = _PI_HEAD.match(line)
    if head is not None:
        cut = line.rfind(b',"api":"', head.end())
        if cut >= 0 and _PI_TAIL.fullmatch(line, cut) is not None:
            return True
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True
