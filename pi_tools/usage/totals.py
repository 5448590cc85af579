"""A session's cost as `usage` reports it, for the commands that show one session's figures (export, ls, index).

Issue 25: an export's header said $3.70 (the stored costs of its path) where `usage` said $24.42 for the same
file (it also prices what was not stored). Every command now takes the figure from here, and here is `usage`'s
own code: the scan (`scan.scan_data`) with the same counter, cost mode (auto: the stored cost where it is not 0,
else priced) and spending rules, summed into one row by `report.usage_rows` exactly as `usage --by session`
sums it. Days are UTC days: a float sum depends on the order of its additions, and `usage` adds per day, so
`usage --timezone UTC` gives this figure to the last bit (another zone groups the days differently and may
differ in the last digit of the float, never in a shown cent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_tools.usage.report import COST_DECIMALS, PLAIN, Shape, UsageData, usage_rows
from pi_tools.usage.scan import _Accumulator, scan_data

if TYPE_CHECKING:
    from pi_tools.session.spending import SpendingRules

TIMEZONE = "UTC"


def session_cost(data: bytes, spending: SpendingRules | None = None) -> float:
    """The cost `usage --by session --timezone UTC` reports for a session file's bytes (0.0 when nothing
    counts), by a Pi version's `spending` rules (None: the code's default, Pi 0.85's), rounded as `usage`
    writes costs (to the micro-dollar, `report.COST_DECIMALS`) so that every command shows the same figure."""
    shape = Shape(spending.usage_entries, spending.provider_billed) if spending is not None else PLAIN
    into = _Accumulator(TIMEZONE, False, "auto", spending if shape != PLAIN else None)
    scan_data(data, into)
    columns = into.columns()
    columns["session"] = [""] * len(columns["day"])
    rows = usage_rows(UsageData(columns, shape=shape), "session")
    return round(float(rows[0]["cost"]), COST_DECIMALS) if rows else 0.0


def file_cost(path: str, spending: SpendingRules | None = None) -> float:
    """`session_cost` of the file at `path` (raises OSError when it cannot be read)."""
    from pi_tools.sources.files import read_bytes

    return session_cost(read_bytes(path), spending)


def format_cost(cost: float) -> str:
    """A cost as every command shows it: dollars with two decimals, four below a cent ($24.42, $0.0031)."""
    return f"${cost:.4f}" if 0 < abs(cost) < 0.01 else f"${cost:,.2f}"
