"""The `usage --chart` output: cost and tokens over time as Vega-Lite charts (built with altair), written as an
offline HTML page, an SVG or a PNG.

Why a charting library: the axis is a real time axis (each bar spans its day, ISO week or month, so a gap of
four months shows as one), the page's charts take the page's width, hovering a bar shows its values, and the
same spec renders to SVG and PNG for reports. The HTML page embeds the Vega, Vega-Lite and vega-embed
JavaScript that vl-convert bundles, so it opens offline and fetches nothing.

altair and vl-convert-python are the `charts` extra: the core install stays light, and `check_chart` says how to
install them before any file is read. Labels from session files (model names, paths) reach the page only as
JSON data inside a script, with `<`, `>` and `&` escaped, and through the template's autoescaping.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pi_tools.usage.errors import UsageError

if TYPE_CHECKING:
    import polars as pl

    from pi_tools.usage.report import UsageData

TEMPLATE = "usage_chart.html.j2"
EXTRA = "pip install 'pi-tools[charts]'"
FORMATS = (".html", ".htm", ".svg", ".png")
PERIOD_KEYS = ("day", "week", "month")
TOKEN_KINDS = ("input", "output", "cacheRead", "cacheWrite")
MAX_SERIES = 11
"""The colour key's values drawn apart (by total cost); the rest share one "N others" series, so the legend stays
readable."""
IMAGE_WIDTH = 900
"""SVG and PNG have no page to follow: a width that reads well in a report."""
HEIGHT = 260


def check_chart(out: str) -> None:
    """Refuse a --chart file whose kind is unknown, or the missing extra, before any session is read."""
    extension = os.path.splitext(out)[1].lower()
    if extension not in FORMATS:
        raise UsageError(f"--chart {out!r}: expected a file ending in .html, .svg or .png")
    from importlib.util import find_spec

    if find_spec("altair") is None or find_spec("vl_convert") is None:
        raise UsageError(f"--chart needs the charts extra: {EXTRA}")


def chart_keys(by: str | tuple[str, ...]) -> tuple[str, str]:
    """(period, colour) for the --by keys: the first period key (else day) spans the time axis, the first other
    key (else model) colours the bars."""
    from pi_tools.usage.report import grouping_keys

    keys = grouping_keys(by)
    period = next((key for key in keys if key in PERIOD_KEYS), "day")
    colour = next((key for key in keys if key not in PERIOD_KEYS), "model")
    return period, colour


def period_span(day: str, period: str) -> tuple[str, str, str]:
    """(label, first day, the day after the last) of the day's period: its ISO week starts on Monday."""
    from datetime import date, timedelta

    from pi_tools.usage.dates import month_span
    from pi_tools.usage.report import period_of

    value = date.fromisoformat(day)
    if period == "month":
        first, last = month_span(value.year, value.month)
    elif period == "week":
        first = value - timedelta(days=value.weekday())
        last = first + timedelta(days=6)
    else:
        first = last = value
    label = day if period == "day" else period_of(day, period)
    return label, first.isoformat(), (last + timedelta(days=1)).isoformat()


def chart_records(frame: pl.DataFrame, period: str, colour: str) -> list[dict[str, Any]]:
    """One record per (period, colour value): its span and sums, the rows the charts draw."""
    import polars as pl

    if not frame.height:
        return []
    frame = frame.with_columns(
        (pl.col("costStored") + pl.col("costRecomputed")).alias("cost"),
        pl.col(colour).fill_null("unknown").alias("series"),
    )
    if colour == "session":
        frame = frame.with_columns(pl.col("series").map_elements(os.path.basename, return_dtype=pl.String))
    ranked = frame.group_by("series").agg(pl.col("cost").sum(), pl.col("totalTokens").sum()) \
        .sort(["cost", "totalTokens", "series"], descending=[True, True, False]).get_column("series").to_list()
    if len(ranked) > MAX_SERIES + 1:
        others = f"{len(ranked) - MAX_SERIES} others"
        frame = frame.with_columns(pl.when(pl.col("series").is_in(ranked[:MAX_SERIES])).then(pl.col("series"))
                                   .otherwise(pl.lit(others)).alias("series"))
    sums = ["cost", "messages", *TOKEN_KINDS, "totalTokens"]
    from pi_tools.usage.counter import MESSAGE_KIND

    frame = frame.with_columns(pl.when(pl.col("kind") == MESSAGE_KIND).then(pl.col("messages")).otherwise(0)
                               .alias("messages"))  # usage entries are spending, not messages
    grouped = frame.group_by(["day", "series"]).agg([pl.col(name).sum() for name in sums])
    records: dict[tuple[str, str], dict[str, Any]] = {}
    for row in grouped.iter_rows(named=True):
        label, start, end = period_span(row["day"], period)
        record = records.get((label, row["series"]))
        if record is None:
            records[(label, row["series"])] = {"period": label, "start": start, "end": end,
                                               colour: row["series"], **{name: row[name] for name in sums}}
        else:
            for name in sums:
                record[name] += row[name]
    for record in records.values():
        record["cost"] = round(record["cost"], 6)
    return [records[key] for key in sorted(records)]


def chart_specs(records: list[dict[str, Any]], period: str, colour: str,
                width: int | str = "container") -> list[dict[str, Any]]:
    """The two Vega-Lite specs: cost per period coloured by `colour`, and tokens per period by kind. Both have a
    temporal x axis (a bar spans its period, in UTC as the days are given) and hover tooltips."""
    import altair as alt

    data = alt.Data(values=records)
    x = alt.X("start:T", title=period, scale=alt.Scale(type="utc"), axis=alt.Axis(format=_AXIS_FORMATS[period]))
    x2 = alt.X2("end:T")
    size: dict[str, Any] = {"width": width, "height": HEIGHT}
    if width == "container":
        size["autosize"] = alt.AutoSizeParams(type="fit-x", contains="padding")
    cost = alt.Chart(data, title=f"Cost per {period} by {colour}", **size) \
        .mark_bar(stroke="white", strokeWidth=0.5).encode(
            x=x, x2=x2,
            y=alt.Y("sum(cost):Q", title="cost (USD)", stack="zero"),
            color=alt.Color(f"{colour}:N", title=colour, scale=alt.Scale(scheme="tableau20"),
                            sort=alt.EncodingSortField("cost", op="sum", order="descending")),
            tooltip=[alt.Tooltip("period:N", title=period), alt.Tooltip(f"{colour}:N", title=colour),
                     alt.Tooltip("sum(cost):Q", title="cost", format="$,.4f"),
                     alt.Tooltip("sum(messages):Q", title="messages", format=","),
                     alt.Tooltip("sum(totalTokens):Q", title="tokens", format=",")],
        )
    tokens = alt.Chart(data, title=f"Tokens per {period} by kind", **size) \
        .mark_bar(stroke="white", strokeWidth=0.5).transform_fold(list(TOKEN_KINDS), as_=["kind", "tokens"]) \
        .encode(
            x=x, x2=x2,
            y=alt.Y("sum(tokens):Q", title="tokens", stack="zero"),
            color=alt.Color("kind:N", title="kind", sort=list(TOKEN_KINDS)),
            tooltip=[alt.Tooltip("period:N", title=period), alt.Tooltip("kind:N", title="kind"),
                     alt.Tooltip("sum(tokens):Q", title="tokens", format=",")],
        )
    specs = []
    for chart in (cost, tokens):
        spec = chart.to_dict()
        spec.pop("$schema", None)  # a URL the page would never fetch; kept out so the page names no network
        specs.append(spec)
    return specs


_AXIS_FORMATS = {"day": "%Y-%m-%d", "week": "%Y-%m-%d", "month": "%Y-%m"}


def chart_data(frame: pl.DataFrame, period: str, colour: str = "model") -> dict[str, Any]:
    """The page's figures: the chart records and the summary line (sessions, messages, tokens, cost)."""
    import polars as pl

    from pi_tools.usage.counter import MESSAGE_KIND

    empty = not frame.height
    return {
        "period": period,
        "colour": colour,
        "records": chart_records(frame, period, colour),
        "total_cost": 0.0 if empty else float(frame.get_column("costStored").sum())
        + float(frame.get_column("costRecomputed").sum()),
        "total_tokens": 0 if empty else int(frame.get_column("totalTokens").sum()),
        # usage entries (Pi 1.6's cache warming) are spending, counted in cost and tokens, not messages
        "messages": 0 if empty else int(frame.filter(pl.col("kind") == MESSAGE_KIND).get_column("messages").sum()),
        "sessions": 0 if empty else int(frame.get_column("session").n_unique()),
    }


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `</script>`, no comment or CDATA opener can form."""
    import orjson

    return orjson.dumps(value).decode().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_chart(frame: pl.DataFrame, period: str, colour: str = "model") -> str:
    """The offline HTML page: summary, two charts as wide as the page, the JavaScript inlined."""
    import jinja2

    from pi_tools.output.templates import template_loader

    environment = jinja2.Environment(
        loader=template_loader(), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    template = environment.get_template(TEMPLATE)  # first: a broken install is named before any work
    import vl_convert

    figures = chart_data(frame, period, colour)
    specs = chart_specs(figures["records"], period, colour)
    return template.render(**figures, specs=[_script_json(spec) for spec in specs],
                           javascript=vl_convert.javascript_bundle())  # type: ignore[call-arg]


def render_image(frame: pl.DataFrame, period: str, colour: str, extension: str) -> bytes:
    """The two charts one above the other, as SVG or PNG (vl-convert renders them without a browser)."""
    import vl_convert

    records = chart_records(frame, period, colour)
    cost, tokens = chart_specs(records, period, colour, IMAGE_WIDTH)
    for part in (cost, tokens):
        part.pop("config", None)
    spec = {"vconcat": [cost, tokens], "resolve": {"scale": {"color": "independent"}}}
    if extension == ".svg":
        return str(vl_convert.vegalite_to_svg(spec)).encode("utf-8")
    return bytes(vl_convert.vegalite_to_png(spec, scale=2))


def write_chart(data: UsageData, by: str | tuple[str, ...], out: str) -> None:
    """Draw the report's data grouped as --by asks, into `out` (.html, .svg or .png), written atomically."""
    check_chart(out)
    period, colour = chart_keys(by)
    frame = data.frame()
    extension = os.path.splitext(out)[1].lower()
    if extension in (".html", ".htm"):
        content = render_chart(frame, period, colour).encode("utf-8")
    else:
        content = render_image(frame, period, colour, extension)
    from pi_tools.output.atomic import write_atomic

    write_atomic(out, content)
