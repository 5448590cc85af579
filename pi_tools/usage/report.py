"""Token usage and cost reports over many sessions, grouped by session, period, model, provider or API.

The scan (scan.py, counting with counter.py) runs on the engine's workers and returns small per-file sums. Grouping those few rows is
plain Python (importing polars alone would cost the common `--format json` run a fifth of its time); the
tabular outputs (csv, parquet) and the chart are polars'. Counting follows ccusage's pi reader for
`--scope all` (so totals agree with it), and Pi's own active path for `--scope active`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from pi_tools.usage.counter import ALL_COST_SOURCES, COST_MODES, COST_SOURCES, MESSAGE_KIND, PROVIDER
from pi_tools.usage.errors import UsageError
from pi_tools.usage.scan import (
    GROUP_FIELDS,
    KEY_FIELDS,
    SOURCE_FIELDS,
    SUM_FIELDS,
    plan_jobs,
    scan,
    session_files,
)

if TYPE_CHECKING:
    import polars as pl

    from pi_tools.engine import Engine
    from pi_tools.pi import PiVersion

GROUPINGS = ("session", "day", "week", "month", "model", "provider", "api", "kind")
PERIODS = ("day", "week", "month")
TOTAL_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "messages", "costSources")
ROW_COLUMNS = (
    "messages", "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost", "costStored",
    "costRecomputed", "costSources", "cacheHitRatio",
)
FLAT_SOURCES = tuple(f"costSources.{source}" for source in COST_SOURCES)
"""csv/parquet spell the costSources object as one column per source, named by its JSON path."""


@dataclass(frozen=True)
class Shape:
    """The report's columns, as the Pi version's spending rules make them (session/spending.py). The default is
    the code's (Pi 0.85's): assistant messages only, every stored cost Pi's estimate."""

    usage_entries: bool = False
    """Usage entries are spending: rows count them (`usageEntries`) apart from `messages`, and say how much of
    `cost` they are (`costUsageEntries`)."""
    provider_billed: bool = False
    """Stored costs may be the provider's bill: rows say how much of `cost` it is (`costFromProvider`), and
    `costSources` counts them as `provider`."""

    @property
    def sources(self) -> tuple[str, ...]:
        return ALL_COST_SOURCES if self.provider_billed else COST_SOURCES

    @property
    def row_columns(self) -> tuple[str, ...]:
        if not (self.usage_entries or self.provider_billed):
            return ROW_COLUMNS
        columns: list[str] = []
        for name in ROW_COLUMNS:
            columns.append(name)
            if name == "messages" and self.usage_entries:
                columns.append("usageEntries")
            elif name == "costRecomputed":
                columns.extend(("costUsageEntries",) * self.usage_entries + ("costFromProvider",) * self.provider_billed)
        return tuple(columns)

    @property
    def total_keys(self) -> tuple[str, ...]:
        extra = ("usageEntries", "costUsageEntries") * self.usage_entries + ("costFromProvider",) * self.provider_billed
        return (*TOTAL_KEYS[:-1], *extra, TOTAL_KEYS[-1])

    @property
    def flat_sources(self) -> tuple[str, ...]:
        return tuple(f"costSources.{source}" for source in self.sources)


PLAIN = Shape()
"""The code's default shape (Pi 0.85's)."""
COST_DECIMALS = 6
"""Costs in the json, csv and parquet outputs are rounded to 6 decimals, dollars to the micro-dollar: off by at
most half a micro-dollar (far below what is billed or compared), a cheap message still shows, and the float
sums' noise (`30.330197699999978`) is gone."""


@dataclass
class UsageOptions:
    by: str = "day"
    """One grouping key or several, comma-separated (GROUPINGS): `model,day`."""
    scope: str = "all"
    since: str | None = None
    """First day (dates.parse_span's forms: `2026-03-01`, `2026-03`, `30d`, `last-month`, ...)."""
    until: str | None = None
    """Last day, inclusive (the same forms; a month counts to its last day)."""
    month: str | None = None
    """One calendar month (`2026-03`, `this`, `last`), instead of --since/--until."""
    timezone: str | None = None  # IANA name; None = local (TZ or the system zone), as ccusage does
    dedupe_copies: bool = False
    engine: Engine | None = None
    """Where the files are scanned (default: this machine, on every core when the files are large)."""
    cost: str = "auto"  # COST_MODES: auto, stored, recomputed
    pi: PiVersion | None = None
    """The Pi version whose spending is counted (None: pi.resolve(), --pi's, else PI_TOOLS_PI's, else the
    default)."""
    today: date | None = None
    """The day relative forms count from (None: today in the report's zone); tests pin it."""


@dataclass
class UsageData:
    """Per-file sums (columns GROUP_FIELDS + SUM_FIELDS + "session") and the files that could not be read."""

    columns: dict[str, list[Any]]
    errors: dict[str, str] = field(default_factory=dict)
    files: int = 0
    shape: Shape = PLAIN
    """The report's columns, per the version's spending rules."""
    asked: tuple[str | None, str | None] = (None, None)
    """The first and last day asked for (None: unbounded)."""
    covered: tuple[str, str] | None = None
    """The first and last day of the data read, before the range was applied (None: the files hold no usage)."""

    def frame(self) -> pl.DataFrame:
        """The sums as a polars frame, for column-wise work such as the chart."""
        import polars as pl

        schema: dict[str, Any] = {name: pl.String for name in (*GROUP_FIELDS, "session")}
        for name in SUM_FIELDS:
            schema[name] = pl.Float64 if name.startswith("cost") else pl.Int64
        return pl.DataFrame({name: self.columns[name] for name in schema}, schema=schema)


def empty_range_note(data: UsageData) -> str | None:
    """What to say when the range holds no usage although the files do: the range asked and the days the data
    covers, so that the next try can aim at them (None when there are rows, or no range was asked)."""
    if data.columns["day"] or data.covered is None or data.asked == (None, None):
        return None
    first, last = data.asked
    asked = f"from {first} to {last}" if first and last else f"from {first} on" if first else f"up to {last}"
    return (f"no usage {asked}; the sessions read cover {data.covered[0]} to {data.covered[1]} "
            f"(--since {data.covered[0]} --until {data.covered[1]})")


def grouping_keys(by: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The --by keys (`model,day` or a sequence), each one of GROUPINGS, none twice."""
    keys = tuple(key.strip() for key in by.split(",")) if isinstance(by, str) else tuple(by)
    for key in keys:
        if key not in GROUPINGS:
            raise UsageError(f"--by {key!r}: expected one of {', '.join(GROUPINGS)}")
    if len(set(keys)) != len(keys):
        raise UsageError(f"--by {','.join(keys)!r}: a key is named twice")
    return keys


def _check_timezone(name: str | None) -> None:
    if name is None:
        return
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin or UTC)") from None


def collect_usage(paths: list[str], options: UsageOptions) -> UsageData:
    """Scan every session file below `paths` and return the per-file sums within the range asked."""
    from pi_tools.usage.dates import report_range, today_in

    _check_timezone(options.timezone)
    grouping_keys(options.by)
    today = options.today if options.today is not None else today_in(options.timezone)
    since, until = report_range(options.since, options.until, options.month, today)
    if options.cost not in COST_MODES:
        raise UsageError(f"--cost {options.cost!r}: expected one of {', '.join(COST_MODES)}")
    version = options.pi
    if version is None:
        from pi_tools.pi import resolve

        version = resolve()
    spending = version.spending
    shape = Shape(spending.usage_entries, spending.provider_billed)
    files = session_files(paths)
    jobs = plan_jobs(files, options.scope, options.timezone, options.dedupe_copies, options.cost,
                     spending if shape != PLAIN else None, version.context if options.scope == "active" else None)
    errors: dict[str, str] = {}
    names = (*GROUP_FIELDS, *SUM_FIELDS, *(KEY_FIELDS if options.dedupe_copies else ()), "session")
    columns: dict[str, list[Any]] = {name: [] for name in names}
    for result in scan(jobs, options.engine):
        errors.update(result.errors)
        for path, rows in result.rows.items():
            for name, values in rows.items():
                columns[name].extend(values)
            columns["session"].extend([path] * len(rows["day"]))
    covered = (min(columns["day"]), max(columns["day"])) if columns["day"] else None
    keep = [(since is None or day >= since) and (until is None or day <= until) for day in columns["day"]]
    if options.dedupe_copies:
        # Forks copy entries verbatim (same id and timestamp); keep the first file's copy (files sorted by name).
        seen: set[tuple[Any, ...]] = set()
        keys = zip(columns["entryId"], columns["timestamp"], columns["totalTokens"], strict=True)
        for index, key in enumerate(keys):
            if key[0] is None:
                continue
            if key in seen:
                keep[index] = False
            seen.add(key)
        for name in KEY_FIELDS:
            del columns[name]
    if not all(keep):
        columns = {name: [value for value, kept in zip(values, keep, strict=True) if kept]
                   for name, values in columns.items()}
    return UsageData(columns, errors, len(files), shape, (since, until), covered)


def period_of(day: str, by: str) -> str:
    """The ISO week (`2026-W34`) or the month (`2026-08`) of a day."""
    if by == "month":
        return day[:7]
    from datetime import date

    year, week, _ = date.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def usage_rows(data: UsageData, by: str | tuple[str, ...]) -> list[dict[str, Any]]:
    """One row per value of the `by` keys (one key or several: `model,day`), sorted by them: token sums, costs
    (exact sums; the outputs round them, `rounded`), and how many messages' costs came from each source."""
    names = grouping_keys(by)
    columns = data.columns
    key_columns = [_key_column(columns, name) for name in names]
    keys: list[tuple[Any, ...]] = list(zip(*key_columns, strict=True))
    shape = data.shape
    sum_names: tuple[str, ...] = SUM_FIELDS
    sum_columns = [columns[name] for name in SUM_FIELDS]
    if shape.usage_entries:  # the records that are usage entries, and their cost, summed apart
        entries = [count if kind != MESSAGE_KIND else 0 for count, kind in zip(columns["messages"], columns["kind"],
                                                                                 strict=True)]
        entry_costs = [stored + recomputed if kind != MESSAGE_KIND else 0.0 for stored, recomputed, kind in zip(
            columns["costStored"], columns["costRecomputed"], columns["kind"], strict=True)]
        sum_names = (*SUM_FIELDS, "usageEntries", "costUsageEntries")
        sum_columns += [entries, entry_costs]
    sums: dict[Any, list[Any]] = {}
    for index, key in enumerate(keys):
        running = sums.get(key)
        if running is None:
            sums[key] = [column[index] for column in sum_columns]
        else:
            for position, column in enumerate(sum_columns):
                running[position] += column[index]
    rows: list[dict[str, Any]] = []
    for key in sorted(sums, key=lambda values: tuple((value is None, value or "") for value in values)):
        values = dict(zip(sum_names, sums[key], strict=True))
        if shape.usage_entries:
            values["messages"] -= values["usageEntries"]
        prompt = values["input"] + values["cacheRead"] + values["cacheWrite"]
        row: dict[str, Any] = dict(zip(names, key, strict=True))
        for name in shape.row_columns:
            if name == "cost":
                row[name] = float(values["costStored"] + values["costRecomputed"])
            elif name == "cacheHitRatio":
                row[name] = values["cacheRead"] / prompt if prompt > 0 else None
            elif name == "costSources":
                row[name] = {source: int(values[field]) for source, field in zip(shape.sources, SOURCE_FIELDS,
                                                                                  strict=False)}
            elif name.startswith("cost"):
                row[name] = float(values[name])
            else:
                row[name] = int(values[name])
        rows.append(row)
    return rows


def _key_column(columns: dict[str, list[Any]], name: str) -> list[Any]:
    """One --by key's value per summed row: a column as scanned, or the week or month of its day."""
    if name not in ("week", "month"):
        return columns["day" if name == "day" else name]
    periods: dict[str, str] = {}
    return [periods[day] if day in periods else periods.setdefault(day, period_of(day, name))
            for day in columns["day"]]


def usage_totals(rows: list[dict[str, Any]], shape: Shape = PLAIN) -> dict[str, Any]:
    """The totals object of the json format (exactly the shape's total_keys: TOTAL_KEYS by default)."""
    totals: dict[str, Any] = {}
    for key in shape.total_keys:
        if key.startswith("cost") and key != "costSources":
            totals[key] = float(sum(row[key] for row in rows))
        elif key == "costSources":
            totals[key] = {source: sum(row[key][source] for row in rows) for source in shape.sources}
        else:
            totals[key] = int(sum(row[key] for row in rows))
    return totals


def rounded(values: dict[str, Any]) -> dict[str, Any]:
    """A row or totals with its costs rounded to COST_DECIMALS, as every output gives them (totals are rounded
    from the exact sums, not summed from rounded rows)."""
    return {name: round(value, COST_DECIMALS) if name.startswith("cost") and isinstance(value, float) else value
            for name, value in values.items()}


def usage_document(rows: list[dict[str, Any]], shape: Shape = PLAIN) -> dict[str, Any]:
    """`{"rows": [...], "totals": {...}}`: what `--format json` prints as one JSON object, costs rounded."""
    return {"rows": [rounded(row) for row in rows], "totals": rounded(usage_totals(rows, shape))}


def flat_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its costSources object spelled as FLAT_SOURCES columns in its place (for csv and parquet)."""
    flat: dict[str, Any] = {}
    for name, value in row.items():
        if name == "costSources":
            flat.update((f"costSources.{source}", count) for source, count in value.items())
        else:
            flat[name] = value
    return flat


def rows_frame(rows: list[dict[str, Any]], by: str | tuple[str, ...], shape: Shape = PLAIN) -> pl.DataFrame:
    """The rows as a polars frame with fixed column types (an empty report still has its columns)."""
    import polars as pl

    schema: dict[str, Any] = {name: pl.String for name in grouping_keys(by)}
    for name in shape.row_columns:
        if name == "costSources":
            schema.update((flat, pl.Int64) for flat in shape.flat_sources)
        else:
            schema[name] = pl.Float64 if name.startswith("cost") or name == "cacheHitRatio" else pl.Int64
    flat_rows = [flat_row(rounded(row)) for row in rows]
    return pl.DataFrame(flat_rows, schema=schema) if rows else pl.DataFrame(schema=schema)


def with_periods(frame: pl.DataFrame) -> pl.DataFrame:
    """Add week (ISO week, `2026-W34`) and month (`2026-08`) columns derived from the day."""
    import polars as pl

    return frame.with_columns(
        pl.col("day").str.to_date("%Y-%m-%d").dt.strftime("%G-W%V").alias("week"),
        pl.col("day").str.slice(0, 7).alias("month"),
    )


def _tokens(value: Any) -> str:
    return f"{int(value):,}"


def render_table(rows: list[dict[str, Any]], by: str | tuple[str, ...], shape: Shape = PLAIN) -> str:
    """A fixed-width table for people. The cost says where it came from: `*` marks rows with messages priced
    by usage itself (catalog or price table), `!` rows with messages no source could price (counted as $0);
    the lines under the table count the messages per source. With usage entries (the shape's), a column counts
    them and one says how much of the cost they are; with provider-billed costs, one says how much of it the
    provider billed."""
    entries, billed = shape.usage_entries, shape.provider_billed
    names = grouping_keys(by)
    headers = [*names, "msgs", *["usage entries"] * entries, "input", "output", "cache read", "cache write",
               "total tokens", "cost $", *["usage entries $"] * entries, *["provider-billed $"] * billed,
               "cache hit"]
    body: list[list[str]] = []
    for row in rows:
        sources = row["costSources"]
        mark = ("*" if sources["catalog"] or sources["priceTable"] else "") + ("!" if sources["unpriced"] else "")
        ratio = row["cacheHitRatio"]
        body.append([
            *("-" if row[name] is None else str(row[name]) for name in names), _tokens(row["messages"]),
            *([_tokens(row["usageEntries"])] if entries else []), _tokens(row["input"]),
            _tokens(row["output"]), _tokens(row["cacheRead"]), _tokens(row["cacheWrite"]),
            _tokens(row["totalTokens"]), f"{row['cost']:.4f}{mark}",
            *([f"{row['costUsageEntries']:.4f}"] if entries else []),
            *([f"{row['costFromProvider']:.4f}"] if billed else []),
            "-" if ratio is None else f"{ratio:.1%}",
        ])
    totals = usage_totals(rows, shape)
    body.append(["total", *[""] * (len(names) - 1), _tokens(totals["messages"]), *([_tokens(totals["usageEntries"])] if entries else []),
                 _tokens(totals["input"]), _tokens(totals["output"]),
                 _tokens(totals["cacheRead"]), _tokens(totals["cacheWrite"]), _tokens(totals["totalTokens"]),
                 f"{totals['cost']:.4f}", *([f"{totals['costUsageEntries']:.4f}"] if entries else []),
                 *([f"{totals['costFromProvider']:.4f}"] if billed else []), ""])
    widths = [max(len(line[i]) for line in [headers, *body]) for i in range(len(headers))]

    keys = len(names)

    def fmt(cells: list[str]) -> str:
        first = [cell.ljust(width) for cell, width in zip(cells[:keys], widths[:keys], strict=True)]
        return "  ".join([*first, *(cell.rjust(width) for cell, width in zip(cells[keys:], widths[keys:],
                                                                              strict=True))])

    lines = [fmt(headers), "  ".join("-" * width for width in widths)]
    lines.extend(fmt(cells) for cells in body[:-1])
    lines.append("  ".join("-" * width for width in widths))
    lines.append(fmt(body[-1]))
    lines.extend(cost_source_notes(totals["costSources"], "message(s) or usage entr(ies)" if entries else "message(s)"))
    if entries and totals["usageEntries"]:
        lines.append(f"  {totals['usageEntries']} usage entr{'y' if totals['usageEntries'] == 1 else 'ies'} "
                     "(spending outside messages; kind cache_warm: Pi's cache warming) counted in the tokens and "
                     "cost, not in msgs; --by kind shows each kind.")
    return "\n".join(lines) + "\n"


def cost_source_notes(sources: dict[str, int], records: str = "message(s)") -> list[str]:
    """The table's footnotes: how many messages' (`records`': with usage entries, those too) costs came from each
    source (nothing when all were stored)."""
    notes: list[str] = []
    if sources["catalog"] or sources["priceTable"]:
        parts = []
        if sources["catalog"]:
            parts.append(f"{sources['catalog']} from the pi-ai catalog")
        if sources["priceTable"]:
            from pi_tools.usage.pricing import table_source

            source = table_source()
            parts.append(f"{sources['priceTable']} from the LiteLLM price table (litellm {source['version']}, "
                         f"snapshot {source['snapshotDate']})")
        notes.append(f"* costs priced by usage (stored cost 0 or none, or --cost recomputed): {', '.join(parts)}.")
    if sources["unpriced"]:
        notes.append(f"! {sources['unpriced']} {records} have no price (no usable stored cost, and a model "
                     "neither the catalog nor the price table prices): counted as $0.")
    if sources["stored"] and (sources["catalog"] or sources["priceTable"] or sources["unpriced"]):
        notes.append(f"  {sources['stored']} {records} cost what the session stored.")
    if sources.get(PROVIDER):
        notes.append(f"  {sources[PROVIDER]} cost(s) are what the provider billed (cost.totalFromProvider): taken "
                     "as stored, never re-priced, in every --cost mode.")
    return notes


def write_rows(rows: list[dict[str, Any]], by: str | tuple[str, ...], fmt: str, out: str | None,
               shape: Shape = PLAIN) -> bytes | None:
    """csv/parquet writer (polars): the csv bytes for stdout when no file is given (parquet needs one)."""
    from pi_tools.usage.jsnumbers import too_wide

    if (problem := too_wide(rows)) is not None:
        raise UsageError(f"--format {fmt}: {problem}")
    frame = rows_frame(rows, by, shape)
    if fmt == "parquet":
        if out is None:
            raise UsageError("--format parquet writes a binary file: name it with -o OUT.parquet")
        import io

        from pi_tools.output.atomic import write_atomic

        buffer = io.BytesIO()
        frame.write_parquet(buffer)
        write_atomic(out, buffer.getvalue())
        return None
    text = frame.write_csv()
    if out is not None:
        from pi_tools.output.atomic import write_atomic

        write_atomic(out, text.encode("utf-8"))
        return None
    return text.encode("utf-8")
