"""The `usage --chart` page: stacked bar charts drawn as inline SVG, so the file works offline and anywhere.

Geometry is computed here and every label goes through the template's autoescaping: model names come from
session files, which anyone can write, so nothing from them is placed in the page unescaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

TEMPLATE = "usage_chart.html.j2"
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac")
TOKEN_KINDS = (("input", "#4e79a7"), ("output", "#f28e2b"), ("cacheRead", "#59a14f"), ("cacheWrite", "#e15759"))
# Most models get their own colour; the rest share one bucket so the legend stays readable.
MAX_SERIES = len(PALETTE) - 1
PLOT_HEIGHT = 260
BAR_SLOT = 28
MIN_WIDTH = 480
LEFT_MARGIN = 80


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    color: str
    title: str


@dataclass
class Chart:
    title: str
    width: int
    height: int
    bars: list[Bar]
    labels: list[tuple[float, str]]  # x centre, period label
    ticks: list[tuple[float, str]]  # y, value label
    legend: list[tuple[str, str]]  # colour, series name
    unit: str


def _nice_ceiling(value: float) -> float:
    """A round axis maximum (1, 2, 5 × 10^k) at or above `value`."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    while magnitude > value:
        magnitude /= 10
    for step in (1, 2, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return 10 * magnitude


def stacked_chart(title: str, periods: list[str], series: list[tuple[str, str, list[float]]],
                  unit: str, fmt: str) -> Chart:
    """Bars per period, one stacked segment per series (name, colour, value per period)."""
    totals = [sum(values[i] for _, _, values in series) for i in range(len(periods))]
    top = _nice_ceiling(max(totals, default=0.0))
    width = max(MIN_WIDTH, LEFT_MARGIN + BAR_SLOT * len(periods) + 20)
    bars: list[Bar] = []
    for index, period in enumerate(periods):
        x = LEFT_MARGIN + index * BAR_SLOT + 4
        base = float(PLOT_HEIGHT)
        for name, color, values in series:
            value = values[index]
            if value <= 0:
                continue
            height = PLOT_HEIGHT * value / top
            base -= height
            bars.append(Bar(x, base + 10, BAR_SLOT - 8, height, color, f"{period} · {name}: {fmt.format(value)}"))
    labels = [(LEFT_MARGIN + i * BAR_SLOT + BAR_SLOT / 2, period) for i, period in enumerate(periods)]
    ticks = [(10 + PLOT_HEIGHT * (1 - step / 4), fmt.format(top * step / 4)) for step in range(5)]
    legend = [(color, name) for name, color, _ in series]
    return Chart(title, width, PLOT_HEIGHT + 90, bars, labels, ticks, legend, unit)


def chart_data(frame: pl.DataFrame, period: str) -> dict[str, Any]:
    """The two charts: cost per period by model, and tokens per period by kind."""
    import polars as pl

    from pi_tools.usage.counter import MESSAGE_KIND
    from pi_tools.usage.report import with_periods

    if period != "day":
        frame = with_periods(frame)
    frame = frame.with_columns(
        (pl.col("costStored") + pl.col("costRecomputed")).alias("cost"),
        pl.col("model").fill_null("unknown"),
    )
    periods = sorted(frame.get_column(period).unique().to_list()) if frame.height else []
    index = {value: i for i, value in enumerate(periods)}
    by_model = frame.group_by("model").agg(pl.col("cost").sum()).sort(["cost", "model"], descending=[True, False])
    models = by_model.get_column("model").to_list()
    named = models if len(models) <= len(PALETTE) else models[:MAX_SERIES]
    cost_series: dict[str, list[float]] = {name: [0.0] * len(periods) for name in named}
    other = [0.0] * len(periods)
    for row in frame.group_by([period, "model"]).agg(pl.col("cost").sum()).iter_rows(named=True):
        target = cost_series.get(row["model"], other)
        target[index[row[period]]] += row["cost"]
    series = [(name, PALETTE[i], values) for i, (name, values) in enumerate(cost_series.items())]
    if len(models) > len(named):
        series.append((f"{len(models) - len(named)} other models", PALETTE[-1], other))
    sums = frame.group_by(period).agg([pl.col(kind).sum() for kind, _ in TOKEN_KINDS])
    token_values = {kind: [0.0] * len(periods) for kind, _ in TOKEN_KINDS}
    for row in sums.iter_rows(named=True):
        for kind, _ in TOKEN_KINDS:
            token_values[kind][index[row[period]]] = float(row[kind])
    token_series = [(kind, color, token_values[kind]) for kind, color in TOKEN_KINDS]
    return {
        "period": period,
        "charts": [
            stacked_chart(f"Cost per {period} by model", periods, series, "USD", "${:,.2f}"),
            stacked_chart(f"Tokens per {period} by kind", periods, token_series, "tokens", "{:,.0f}"),
        ],
        "total_cost": float(frame.get_column("cost").sum()) if frame.height else 0.0,
        "total_tokens": int(frame.get_column("totalTokens").sum()) if frame.height else 0,
        # usage entries (Pi 1.6's cache warming) are spending, counted in cost and tokens, not messages
        "messages": int(frame.filter(pl.col("kind") == MESSAGE_KIND).get_column("messages").sum())
        if frame.height else 0,
        "sessions": int(frame.get_column("session").n_unique()) if frame.height else 0,
    }


def render_chart(frame: pl.DataFrame, period: str) -> str:
    import jinja2

    from pi_tools.output.templates import template_loader

    environment = jinja2.Environment(
        loader=template_loader(), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    return environment.get_template(TEMPLATE).render(**chart_data(frame, period))


def write_chart(frame: pl.DataFrame, period: str, out: str) -> None:
    Path(out).write_text(render_chart(frame, period), encoding="utf-8")
