"""The usage table's rows, counted in one pass over the file's assistant messages.

`usage`'s own counter (usage/counter.py) decides every row: whether its message counts (once per file: the same
entry timestamp and total tokens are the same call), whether it has a calendar day, and its cost. Here it is
applied to the candidates `rows.session_rows` collects while it walks the entries: a struct-decoded line
(session/line_format.RowMessageLine) gives its counts directly, a dict is read as `usage` reads it
(`counter.message_usage`). tests/corpus/test_index_fast.py checks that the rows are those `counter.message_usages` gives
over every entry, on every fixture.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

from pi_tools.corpus.schema import ENTRY
from pi_tools.session.line_format import RowMessageLine
from pi_tools.usage.counter import ENTRY_TIMESTAMP, MESSAGE_KIND, UsageCounter, message_usage, token_count

if TYPE_CHECKING:
    from pi_tools.session.spending import SpendingRules

Candidate = tuple[Any, int, int]
"""(entry, line, its row in the entries table) of an entry that may carry usage (the row gives the usage row
its line, entry id, time and active-path flag: `schema.FROM_ENTRIES`)."""


_NAMES = (ENTRY, "provider", "model", "api", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost",
          "costSource", "counted")


def usage_rows(candidates: list[Candidate], unread: set[int], usage: dict[str, list[Any]],
               spending: SpendingRules | None = None) -> dict[str, Any]:
    """Fill `usage`'s columns and return the session's sums of what `usage` counts (lines its scan cannot read
    get a row, not counted, and take no part in its de-duplication), by a Pi version's `spending` rules (None:
    the code's default; a struct line's cost is never the provider's bill: `cost.totalFromProvider` is a field
    line_format.RowCost does not hold, so such a line is parsed in full and counted as a dict)."""
    counter = UsageCounter("UTC", spending=spending)
    counts, day_of, cost_of = counter.counts, counter.day_of, counter.cost
    rows: list[tuple[Any, ...]] = []
    for entry, line, at in candidates:
        if type(entry) is RowMessageLine:  # an assistant message line with the fields' types Pi writes
            message: Any = entry.message
            tokens = message.usage  # a line_format.RowUsage: its counts are the values `usage` takes (or none)
            if tokens is None:
                continue
            stamp = entry.timestamp
            # lines.LineDecoder decoded it as a msgspec datetime: fixed-width digits, a real date, minutes and
            # seconds within 59. Of those, a 24-character one ending `Z` with `T` at 10 is exactly
            # `YYYY-MM-DDTHH:MM:SS.mmmZ`: ENTRY_TIMESTAMP matches it and it has a calendar day (`day_of`).
            dated = len(stamp) == 24 and stamp[23] == "Z" and stamp[10] == "T"
            if not dated and ENTRY_TIMESTAMP.fullmatch(stamp) is None:
                continue
            input_tokens, output_tokens = tokens.input, tokens.output
            cache_read, cache_write = tokens.cacheRead, tokens.cacheWrite
            total = tokens.totalTokens
            if total is None:
                total = input_tokens + output_tokens + cache_read + cache_write
            counted = counts(stamp, total, line not in unread)
            if not dated and day_of(stamp) is None:  # counted as seen all the same, as `usage` does
                continue
            cost = tokens.cost
            stored, recomputed, source = cost_of(cost.total if cost is not None else None, message.provider,
                                                 message.model, input_tokens, output_tokens, cache_read,
                                                 cache_write, token_count(tokens.cacheWrite1h))
            rows.append((at, message.provider, message.model, message.api, input_tokens, output_tokens,
                         cache_read, cache_write, total, stored + recomputed, source, counted))
            continue
        found = message_usage(counter, entry, line not in unread)
        if found is None or found.kind != MESSAGE_KIND:
            continue
        message = entry["message"]
        provider, model, api = (value if type(value) is str else None for value in (
            message.get("provider"), message.get("model"), message.get("api")))
        rows.append((at, provider, model, api, found.input, found.output, found.cacheRead, found.cacheWrite,
                     found.totalTokens, found.cost, found.costSource, found.counted))
    if rows:
        for name, values in zip(_NAMES, zip(*rows, strict=True), strict=True):
            usage[name] = list(values)
    totals: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                              "cost": 0.0}
    for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"):
        totals[name] += sum(compress(usage[name], usage["counted"]))  # the generator's order of additions
    return totals


_ENTRY_NAMES = (ENTRY, "kind", "provider", "model", "note", "input", "output", "cacheRead", "cacheWrite",
                "totalTokens", "cost", "costSource", "counted")


def usage_entry_rows(candidates: list[Candidate], unread: set[int], table: dict[str, list[Any]],
                     spending: SpendingRules | None) -> dict[str, Any]:
    """Fill the usage_entries table's columns from the spending entries that are no message (Pi 1.6's `usage`
    entries, by the version's `spending` rules) and return the sums of those `usage` counts. Counted by the same
    counter as messages (`counter.message_usage`): their de-duplication is their own (`counts_entry`), so
    counting them apart from the messages changes nothing."""
    counter = UsageCounter("UTC", spending=spending)
    rows: list[tuple[Any, ...]] = []
    for entry, line, at in candidates:
        found = message_usage(counter, entry, line not in unread)
        if found is None or found.kind == MESSAGE_KIND:
            continue
        provider, model, note = (value if type(value) is str else None for value in (
            entry.get("provider"), entry.get("model"), entry.get("note")))
        rows.append((at, found.kind, provider, model, note, found.input, found.output, found.cacheRead,
                     found.cacheWrite, found.totalTokens, found.cost, found.costSource, found.counted))
    if rows:
        for name, values in zip(_ENTRY_NAMES, zip(*rows, strict=True), strict=True):
            table[name] = list(values)
    return {name: sum(compress(table[name], table["counted"]))
            for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost")}
