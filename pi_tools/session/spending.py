"""Which entries of a session file record spending, as one Pi version totals them (beside the line format).

Pi 0.85's session statistics sum its assistant messages' usage (and `usage` counts them as ccusage's pi reader
does: usage/counter.py); a cost total is Pi's price-list arithmetic (`cost.total`), whatever else the object
holds. These are the code's defaults (`SpendingRules`).

Pi 1.6 (pi-coding-agent `getSessionStats`, `getUsageCostBreakdown`) changed two things, selected by
pi_tools/pi/v1_6.py as `SPENDING_16`:

- a `usage` entry (`{type:"usage", kind, provider, model, usage, note?}`, any `kind`; 1.6 itself writes
  `cache_warm` for its cache warmer) is spending: its tokens and `usage.cost.total` count, under its own
  `provider` and `model` (the warming response's model); it is no message;
- `usage.cost.totalFromProvider: true` marks a `cost.total` the provider billed (OpenRouter's reported cost), not
  an estimate: it is taken as it is, never re-priced.

The usage counter (usage/counter.py) applies these rules; it never asks which version gave them.
"""

from __future__ import annotations

from typing import Any


class SpendingRules:
    """Pi 0.85's: assistant messages only, and every stored cost an estimate (the code's default)."""

    usage_entries = False
    """Whether `usage` entries are spending (then reports count them beside messages, by their `kind`)."""
    provider_billed = False
    """Whether `cost.totalFromProvider: true` marks a provider-billed cost (taken as it is, never re-priced)."""

    def usage_entry(self, entry: Any) -> tuple[Any, Any, Any, dict[str, Any]] | None:
        """(kind, provider, model, usage) of a spending entry that is no message, as stored (any JSON values but
        the usage object); None for every other entry."""
        return None

    def billed(self, usage: dict[str, Any]) -> bool:
        """Whether the usage object's cost is the provider's bill."""
        return False


class Spending16(SpendingRules):
    """Pi 1.6's: `usage` entries are spending too, and a provider-billed cost is never re-priced."""

    usage_entries = True
    provider_billed = True

    def usage_entry(self, entry: Any) -> tuple[Any, Any, Any, dict[str, Any]] | None:
        if not isinstance(entry, dict) or entry.get("type") != "usage":
            return None
        usage = entry.get("usage")
        if not isinstance(usage, dict):
            return None
        return entry.get("kind"), entry.get("provider"), entry.get("model"), usage

    def billed(self, usage: dict[str, Any]) -> bool:
        cost = usage.get("cost")
        return isinstance(cost, dict) and cost.get("totalFromProvider") is True


PI_085_SPENDING = SpendingRules()
SPENDING_16 = Spending16()
