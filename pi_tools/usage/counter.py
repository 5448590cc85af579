"""One file's assistant messages counted as `usage` counts them: the rules `usage` and the index share.

ccusage's pi reader decides what `usage --scope all` reports, and the index's usage table must add up to the
same numbers, so both apply the rules here: which entries count (`usage_of`), how a token count is read
(`token_count`, `usage_counts`), that a message counts once per file (the same entry timestamp and total tokens
are the same call: `UsageCounter.counts`), that a timestamp with no calendar day drops the message once it has
been seen (`UsageCounter.day_of`), and where its cost comes from (`UsageCounter.cost`, per the cost mode).

The callers differ in what they keep, not in how they count: `usage`'s scan (scan.py) sums the counted messages
per group and drops the others at once; the index (corpus/usage.py) keeps a row for every message, repeats
included, with `counted` false. One difference is the index's alone, and explicit: a line the scan cannot read
(orjson refuses it; the session reader reads it with JSON.parse's rules) reaches the index only, which gives it
a row that never counts and takes no part in the de-duplication (`counts(..., readable=False)`).

This module imports nothing heavy at load time: the scan's worker processes import it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.session.spending import SpendingRules
    from pi_tools.usage.pricing import Pricer

# ccusage's pi reader accepts exactly these timestamps (checked against ccusage 20.0.24): seconds required,
# milliseconds optional (exactly three digits), and a `Z` or `±HH:MM` zone. Anything else drops the message.
ENTRY_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?:Z|[+-]\d{2}:\d{2})")

COST_SOURCES = ("stored", "catalog", "priceTable", "unpriced")
"""Where a message's cost came from (see pricing.py for the last three)."""
PROVIDER = "provider"
"""The source of a provider-billed cost (`cost.totalFromProvider`, where the version's spending rules mark one):
taken as stored in every cost mode, never re-priced."""
ALL_COST_SOURCES = (*COST_SOURCES, PROVIDER)
MESSAGE_KIND = "message"
"""The kind of an assistant message's spending; a usage entry's is its `kind` (USAGE_KIND when it has none)."""
USAGE_KIND = "usage"
COST_MODES = ("auto", "stored", "recomputed")
"""stored: the stored cost as written (none stored: unpriced); recomputed: priced from the catalog, else the
price table, whatever was stored; auto: the stored cost where it is a number other than 0, else recomputed."""

WIDE = (1 << 64) - 1
"""The largest count orjson reads as an integer: beyond it a count is a float, so 0 (JSON.parse's reading, the
session reader's, gives floats too; only msgspec, which decodes the index's struct lines, gives such integers)."""


def token_count(value: Any) -> int:
    """A token count as ccusage reads it: a non-negative JSON integer (as orjson reads it); anything else is 0."""
    return value if type(value) is int and 0 <= value <= WIDE else 0


def usage_of(entry: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(message, usage) when `entry` is an assistant message entry that counts, else None.

    Counts what ccusage counts: entry type absent or "message", role "assistant", a usage object whose input
    and output are numbers, and an ISO timestamp on the entry (the entry's, not the message's epoch).
    """
    if not isinstance(entry, dict):
        return None
    entry_type = entry.get("type")
    if entry_type is not None and entry_type != "message":
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    if type(usage.get("input")) not in (int, float) or type(usage.get("output")) not in (int, float):
        return None
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str) or ENTRY_TIMESTAMP.fullmatch(stamp) is None:
        return None
    return message, usage


def usage_entry_of(spending: SpendingRules | None, entry: Any) -> tuple[str, Any, Any, dict[str, Any]] | None:
    """(kind, provider, model, usage) when `entry` is a spending entry other than a message (a Pi 1.6 `usage`
    entry: `spending.usage_entry`) that counts by the rules a message counts by: a usage object whose input and
    output are numbers, and an ISO timestamp on the entry. Else None (always, for the code's default rules:
    `spending` None)."""
    found = spending.usage_entry(entry) if spending is not None else None
    if found is None:
        return None
    kind, provider, model, usage = found
    if type(usage.get("input")) not in (int, float) or type(usage.get("output")) not in (int, float):
        return None
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str) or ENTRY_TIMESTAMP.fullmatch(stamp) is None:
        return None
    return kind if type(kind) is str and kind else USAGE_KIND, provider, model, usage


def usage_counts(usage: dict[str, Any]) -> tuple[int, int, int, int, int, int]:
    """(input, output, cacheRead, cacheWrite, cacheWrite1h, totalTokens) of a usage object (`token_count` each; a
    total that is not a count is the sum of the four)."""
    # Inlined counts (this runs once per message; a helper call per field doubles the cost).
    get = usage.get
    input_tokens = get("input")
    if type(input_tokens) is not int or input_tokens < 0 or input_tokens > WIDE:
        input_tokens = 0
    output_tokens = get("output")
    if type(output_tokens) is not int or output_tokens < 0 or output_tokens > WIDE:
        output_tokens = 0
    cache_read = get("cacheRead", 0)
    if type(cache_read) is not int or cache_read < 0 or cache_read > WIDE:
        cache_read = 0
    cache_write = get("cacheWrite", 0)
    if type(cache_write) is not int or cache_write < 0 or cache_write > WIDE:
        cache_write = 0
    total = get("totalTokens")
    if type(total) is not int or total < 0 or total > WIDE:
        total = input_tokens + output_tokens + cache_read + cache_write
    return input_tokens, output_tokens, cache_read, cache_write, token_count(get("cacheWrite1h")), total


def stored_cost(usage: dict[str, Any]) -> Any:
    """The cost a usage object stores (its `cost.total`, any JSON value; None when there is none)."""
    cost = usage.get("cost")
    return cost.get("total") if isinstance(cost, dict) else None


_VARIES = "varies"


class UsageCounter:
    """Counts one file's messages (one file at a time: `seen` is the file's de-duplication), in a time zone and a
    cost mode (COST_MODES). Per message, in this order: `counts` (and a message that does not is, for the scan,
    done with), `day_of` (None drops the message, though it was seen), `cost`."""

    def __init__(self, timezone: str | None, cost: str = "auto", spending: SpendingRules | None = None) -> None:
        self.zone: tzinfo | None = None
        if timezone:
            from zoneinfo import ZoneInfo

            self.zone = ZoneInfo(timezone)
        # The scan's hot path may sum a stored cost as it is unless it must be recomputed (every one, or the zeros).
        self.recompute_all = cost == "recomputed"
        self.recompute_zero = cost == "auto"
        self.stored_only = cost == "stored"
        self.seen: set[tuple[bytes, int]] = set()
        """(entry timestamp, total tokens) of the messages counted so far (the scan's hot path adds to it too)."""
        self.spending = spending
        """Which entries besides assistant messages count, and which costs are the provider's bill (a version's
        session/spending.py rules; None: the code's default, Pi 0.85's, without importing them: the scan's
        workers import this module)."""
        self.usage_entries = spending is not None and spending.usage_entries
        self.provider_billed = spending is not None and spending.provider_billed
        self.seen_entries: set[tuple[str, bytes, int]] = set()
        """(kind, entry timestamp, total tokens) of the usage entries counted so far: their own de-duplication,
        so that a usage entry never hides a message, nor a message a usage entry."""
        self._hours: dict[str, str | None] = {}

    def counts(self, stamp: str, total: int, readable: bool = True) -> bool:
        """Whether the message counts: the first of the file with its entry timestamp and total tokens (ccusage
        counts a message once per session file name and project). A line `usage` cannot read (`readable` False:
        the index reads it, the scan never sees it) never counts and is not remembered."""
        if not readable:
            return False
        key = (stamp.encode(), total)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def billed(self, usage: dict[str, Any]) -> bool:
        """Whether a usage object's cost is its provider's bill, by the counter's spending rules (never, by the
        code's default)."""
        return self.spending is not None and self.spending.provider_billed and self.spending.billed(usage)

    def counts_entry(self, kind: str, stamp: str, total: int, readable: bool = True) -> bool:
        """`counts` for a usage entry: the first of the file with its kind, entry timestamp and total tokens."""
        if not readable:
            return False
        key = (kind, stamp.encode(), total)
        if key in self.seen_entries:
            return False
        self.seen_entries.add(key)
        return True

    def day_of(self, stamp: str) -> str | None:
        """Calendar day of an entry timestamp in the counter's zone; None for impossible times (dropped).

        Zone offsets never have sub-minute parts, and within most UTC hours the local day does not change, so
        the answer is cached per hour (per minute only in hours where the local day changes).
        """
        if stamp[14:16] > "59" or stamp[17:19] > "59":
            return None
        zone_part = stamp[23:] if len(stamp) > 20 and stamp[19] == "." else stamp[19:]
        hour_key = stamp[:13] + zone_part
        day = self._hours.get(hour_key, "")
        if day == "":
            first = self._local_day(stamp[:13] + ":00:00" + zone_part)
            last = self._local_day(stamp[:13] + ":59:00" + zone_part)
            day = first if first == last else _VARIES
            self._hours[hour_key] = day
        if day is _VARIES:
            return self._local_day(stamp[:16] + ":00" + zone_part)
        return day

    def _local_day(self, moment: str) -> str | None:
        try:
            return datetime.fromisoformat(moment).astimezone(self.zone).date().isoformat()
        except ValueError:
            return None

    def cost(self, stored: Any, provider: str | None, model: str | None, input_tokens: int, output_tokens: int,
             cache_read: int, cache_write: int, cache_write_1h: int,
             billed: bool = False) -> tuple[int | float, float, str]:
        """(stored cost, recomputed cost, source: one of ALL_COST_SOURCES) of a message storing cost `stored` (any
        JSON value): the stored cost as it is (the recomputed 0.0), or the tokens priced (the stored 0.0), per
        the mode. Their sum is the message's cost. A provider-billed cost (`billed`: the spending rules said so)
        is the provider's bill, 0 included: taken as it is in every mode."""
        if type(stored) not in (int, float):
            stored = None
        elif billed:
            return stored, 0.0, PROVIDER
        if self.stored_only or (stored is not None and stored != 0 and not self.recompute_all):
            return (0.0, 0.0, "unpriced") if stored is None else (stored, 0.0, "stored")
        recomputed, source = pricer().price(provider, model, input_tokens, output_tokens, cache_read, cache_write,
                                            cache_write_1h)
        return 0.0, recomputed, source


@dataclass(frozen=True)
class MessageUsage:
    """One assistant message as `usage --scope all` reads it: its tokens, its cost (per the cost mode) and
    where that came from, and whether it counts in its file (`UsageCounter.counts`)."""

    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int
    cost: float
    costSource: str
    counted: bool
    kind: str = MESSAGE_KIND
    """MESSAGE_KIND for an assistant message, else the usage entry's kind."""


def message_usage(counter: UsageCounter, entry: Any, readable: bool = True) -> MessageUsage | None:
    """What `counter` makes of one entry (a dict, as parsed) of its file: None for an entry that is no counted
    kind of message (`usage_of`) or usage entry (`usage_entry_of`, per the counter's spending rules) or has no
    calendar day, else its MessageUsage (`readable`: see `counts`)."""
    found = usage_of(entry)
    kind = None
    if found is not None:
        message, usage = found
        provider, model = message.get("provider"), message.get("model")
    else:
        spent = usage_entry_of(counter.spending, entry)
        if spent is None:
            return None
        kind, provider, model, usage = spent
    counted = spent_usage(counter, entry["timestamp"], kind, provider, model, usage, readable)
    return None if counted is None else MessageUsage(*counted)


def spent_usage(counter: UsageCounter, stamp: str, kind: str | None, provider: Any, model: Any,
                usage: dict[str, Any], readable: bool = True) -> tuple[int, int, int, int, int, float, str, bool, str] | None:
    """`message_usage`'s answer as a tuple of MessageUsage's fields, for a message (`kind` None) or a usage entry
    of that kind already found to count (`usage_of`, `usage_entry_of`) with its entry `stamp`: what a caller
    that reads entries its own way (trace's direct path) shares with the others."""
    input_tokens, output_tokens, cache_read, cache_write, cache_write_1h, total = usage_counts(usage)
    if kind is None:
        counted = counter.counts(stamp, total, readable)
        kind = MESSAGE_KIND
    else:
        counted = counter.counts_entry(kind, stamp, total, readable)
    if counter.day_of(stamp) is None:
        return None  # (minute 61, say: the message is dropped, though seen)
    stored, recomputed, source = counter.cost(
        stored_cost(usage), provider if type(provider) is str else None, model if type(model) is str else None,
        input_tokens, output_tokens, cache_read, cache_write, cache_write_1h, counter.billed(usage))
    try:
        cost = stored + recomputed
    except OverflowError:  # an integer cost past a double's range: JSON.parse reads it as Infinity
        cost = math.inf
    return input_tokens, output_tokens, cache_read, cache_write, total, cost, source, counted, kind


def message_usages(entries: Iterable[Any], cost: str = "auto",
                   spending: SpendingRules | None = None) -> list[MessageUsage | None]:
    """`message_usage` of every entry of a file (in file order), in UTC: per-message rows that add up to exactly
    what `usage` reports for the file."""
    counter = UsageCounter("UTC", cost, spending)
    return [message_usage(counter, entry) for entry in entries]


_PRICER: Pricer | None = None


def pricer() -> Pricer:
    """This process's Pricer (pricing.py), imported and built only when a message first needs a price."""
    global _PRICER
    if _PRICER is None:
        from pi_tools.usage.pricing import Pricer

        _PRICER = Pricer()
    return _PRICER
