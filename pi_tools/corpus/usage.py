"""The usage table's rows, counted in one pass over the file's assistant messages.

`usage` (audit/usage_scan.py) counts a message once per file (same entry timestamp and total tokens = the same
call), drops timestamps with no calendar day, and takes a stored non-zero cost as it is, else prices the tokens.
`message_usages` gives those answers through the scan's accumulator, building a group per message; here the
same rules are applied directly to the candidates `rows.session_rows` collects while it walks the entries, which
costs a fraction of it. tests/test_index.py checks that both give the same rows on every fixture.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from typing import Any

from pi_tools.corpus.lines import WIDE
from pi_tools.corpus.schema import ENTRY
from pi_tools.session.line_format import RowMessageLine
from pi_tools.usage.scan import ENTRY_TIMESTAMP, _Accumulator, pricer, usage_of

Candidate = tuple[Any, int, int]
"""(entry, line, its row in the entries table) of an entry that may carry usage (the row gives the usage row
its line, entry id, time and active-path flag: `schema.FROM_ENTRIES`)."""


_NAMES = (ENTRY, "provider", "model", "api", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost",
          "costSource", "counted")


def usage_rows(candidates: list[Candidate], unread: set[int], usage: dict[str, list[Any]]) -> dict[str, Any]:
    """Fill `usage`'s columns and return the session's sums of what `usage` counts (lines its scan cannot read
    get a row, not counted, and take no part in its de-duplication)."""
    days = _Accumulator("UTC", True)  # for its cached day_of only
    day_of = days.day_of
    price = pricer().price
    seen: set[tuple[str, int]] = set()  # (entry timestamp, total tokens)
    rows: list[tuple[Any, ...]] = []
    for entry, line, at in candidates:
        message: Any
        provider: str | None
        model: str | None
        api: str | None
        if type(entry) is RowMessageLine:  # an assistant message line with the fields' types Pi writes
            message = entry.message
            counts = message.usage  # a lines.Usage: its counts are the values `usage` takes (or no usage)
            if counts is None:
                continue
            stamp = entry.timestamp
            # lines.LineDecoder decoded it as a msgspec datetime: fixed-width digits, a real date, minutes and
            # seconds within 59. Of those, a 24-character one ending `Z` with `T` at 10 is exactly
            # `YYYY-MM-DDTHH:MM:SS.mmmZ`: ENTRY_TIMESTAMP matches it and it has a calendar day (`day_of`).
            dated = len(stamp) == 24 and stamp[23] == "Z" and stamp[10] == "T"
            if not dated and ENTRY_TIMESTAMP.fullmatch(stamp) is None:
                continue
            input_tokens, output_tokens = counts.input, counts.output
            cache_read, cache_write = counts.cacheRead, counts.cacheWrite
            total = counts.totalTokens
            if total is None:
                total = input_tokens + output_tokens + cache_read + cache_write
            counted = _counted(line, unread, seen, stamp, total)
            if not dated and day_of(stamp) is None:  # counted as seen all the same, as `usage` does
                continue
            cost = counts.cost
            amount, source = _cost(cost.total if cost is not None else None, price, message.provider, message.model,
                                   input_tokens, output_tokens, cache_read, cache_write, counts.cacheWrite1h)
            rows.append((at, message.provider, message.model, message.api, input_tokens, output_tokens,
                         cache_read, cache_write, total, amount, source, counted))
            continue
        found = usage_of(entry)
        if found is None:
            continue
        message, tokens = found
        stamp = entry["timestamp"]
        provider, model, api = (value if type(value) is str else None for value in (
            message.get("provider"), message.get("model"), message.get("api")))
        get = tokens.get
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
        counted = _counted(line, unread, seen, stamp, total)
        if day_of(stamp) is None:
            continue
        cost = get("cost")
        amount, source = _cost(cost.get("total") if isinstance(cost, dict) else None, price, provider, model,
                               input_tokens, output_tokens, cache_read, cache_write, get("cacheWrite1h"))
        rows.append((at, provider, model, api, input_tokens, output_tokens, cache_read, cache_write, total, amount,
                     source, counted))
    if rows:
        for name, values in zip(_NAMES, zip(*rows, strict=True), strict=True):
            usage[name] = list(values)
    totals: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                              "cost": 0.0}
    for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"):
        totals[name] += sum(compress(usage[name], usage["counted"]))  # the generator's order of additions
    return totals


def _counted(line: int, unread: set[int], seen: set[tuple[str, int]], stamp: str, total: int) -> bool:
    """Whether `usage` counts the message: once per (entry timestamp, total tokens) in the file; a line its scan
    cannot read gets a row all the same, not counted, and takes no part in the de-duplication."""
    if line in unread:
        return False
    key = (stamp, total)
    if key in seen:
        return False
    seen.add(key)
    return True


def _cost(stored: Any, price: Callable[..., tuple[float, str]], provider: str | None, model: str | None,
          input_tokens: int, output_tokens: int, cache_read: int, cache_write: int, write_1h: Any) -> tuple[float, str]:
    """(cost, its source) as `usage --cost auto` takes it: a stored non-zero cost as it is, else the tokens
    priced (pricing.Pricer.price)."""
    if type(stored) in (int, float) and stored != 0:
        return stored + 0.0, "stored"
    recomputed, source = price(provider, model, input_tokens, output_tokens, cache_read, cache_write,
                               write_1h if type(write_1h) is int and 0 <= write_1h <= WIDE else 0)
    return 0.0 + recomputed, source
