"""`pi-tools usage` for the questions of issue 25: months and relative ranges, several --by keys, the data's span
when a range is empty, bad files as errors (exit 2), costs rounded, and the Vega-Lite chart."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pi_tools.usage.chart import chart_keys, chart_records, chart_specs
from pi_tools.usage.dates import parse_month, parse_span, report_range
from pi_tools.usage.errors import UsageError
from pi_tools.usage.report import UsageOptions, collect_usage

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T00:00:00.000Z", "cwd": "/w"}
ROOT = Path(__file__).resolve().parents[2]


def assistant(entry_id: str, stamp: str, model: str, cost: float, provider: str = "anthropic") -> dict[str, Any]:
    usage = {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}
    return {"type": "message", "id": entry_id, "parentId": None, "timestamp": stamp,
            "message": {"role": "assistant", "content": [], "api": "anthropic-messages", "provider": provider,
                        "model": model, "usage": usage, "stopReason": "stop", "timestamp": 0}}


def write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """March and July 2026 (a gap of three months between), two models; costs whose float sum is noisy."""
    root = tmp_path / "sessions"
    write(root / "p" / "a.jsonl", [
        HEADER,
        assistant("a1", "2026-03-01T10:00:00.000Z", "claude-sonnet-4-5", 0.1),
        assistant("a2", "2026-03-01T11:00:00.000Z", "claude-sonnet-4-5", 0.2),
        assistant("a3", "2026-03-02T11:00:00.000Z", "<script>x</script>", 1.0, provider="acme"),
    ])
    write(root / "p" / "b.jsonl", [HEADER, assistant("b1", "2026-07-02T09:00:00.000Z", "claude-sonnet-4-5", 2.5)])
    return root


def run(cli: Any, *args: str) -> tuple[int, str, str]:
    result = cli("usage", *args, "--timezone", "UTC")
    return result.code, result.stdout, result.stderr


# Ranges -----------------------------------------------------------------------------------------------------

TODAY = date(2026, 1, 15)


@pytest.mark.parametrize(("value", "span"), [
    ("today", ("2026-01-15", "2026-01-15")),
    ("yesterday", ("2026-01-14", "2026-01-14")),
    ("30d", ("2025-12-16", "2025-12-16")),
    ("2w", ("2026-01-01", "2026-01-01")),
    ("this-month", ("2026-01-01", "2026-01-31")),
    ("last-month", ("2025-12-01", "2025-12-31")),
    ("2024-02", ("2024-02-01", "2024-02-29")),
    ("20260302", ("2026-03-02", "2026-03-02")),
    ("2026-03-02", ("2026-03-02", "2026-03-02")),
])
def test_day_forms(value: str, span: tuple[str, str]) -> None:
    first, last = parse_span(value, "--since", TODAY)
    assert (first.isoformat(), last.isoformat()) == span


def test_month_forms_and_refusals() -> None:
    assert [d.isoformat() for d in parse_month("last", TODAY)] == ["2025-12-01", "2025-12-31"]
    assert [d.isoformat() for d in parse_month("this", TODAY)] == ["2026-01-01", "2026-01-31"]
    assert [d.isoformat() for d in parse_month("2026-02", TODAY)] == ["2026-02-01", "2026-02-28"]
    assert report_range("2026-03", "2026-05", None, TODAY) == ("2026-03-01", "2026-05-31")
    assert report_range(None, None, "last", TODAY) == ("2025-12-01", "2025-12-31")
    cases = [
        (("March", None, None), "--since 'March' is not a date (YYYY-MM-DD, YYYYMMDD, YYYY-MM, today, yesterday, "
                                "Nd, Nw, this-month or last-month)"),
        ((None, "2026-02-30", None), "--until '2026-02-30' is not a date in the calendar"),
        ((None, None, "2026-13"), "--month '2026-13' is not a month in the calendar"),
        ((None, None, "March"), "--month 'March' is not a month (YYYY-MM, this or last)"),
        (("2026-03", None, "last"), "--month names the whole range: give it without --since/--until"),
        (("2026-05", "2026-03", None), "--since '2026-05' (2026-05-01) is after --until '2026-03' (2026-03-31)"),
    ]
    for (since, until, month), message in cases:
        with pytest.raises(UsageError) as caught:
            report_range(since, until, month, TODAY)
        assert str(caught.value) == message


def test_month_option_and_relative_forms_on_the_cli(cli: Any, sessions: Path) -> None:
    code, out, err = run(cli, str(sessions), "--month", "2026-03", "--format", "json")
    assert (code, err) == (0, "")
    assert [row["day"] for row in json.loads(out)["rows"]] == ["2026-03-01", "2026-03-02"]
    code, out, err = run(cli, str(sessions), "--since", "2026-07", "--format", "json")
    assert [row["day"] for row in json.loads(out)["rows"]] == ["2026-07-02"]
    # relative to the real today: everything since long ago
    code, out, err = run(cli, str(sessions), "--since", "5000d", "--until", "today", "--format", "json")
    assert (code, len(json.loads(out)["rows"])) == (0, 3)
    assert run(cli, str(sessions), "--month", "last", "--since", "2026-01-01") == (
        2, "", "pi-tools: --month names the whole range: give it without --since/--until\n")


def test_library_pins_today_for_relative_forms(sessions: Path) -> None:
    data = collect_usage([str(sessions)], UsageOptions(month="last", timezone="UTC", today=date(2026, 4, 10)))
    assert sorted(set(data.columns["day"])) == ["2026-03-01", "2026-03-02"]


def test_empty_range_names_the_span_the_data_covers(cli: Any, sessions: Path) -> None:
    note = ("pi-tools: no usage from 2026-05-01 to 2026-05-31; the sessions read cover 2026-03-01 to 2026-07-02 "
            "(--since 2026-03-01 --until 2026-07-02)\n")
    assert run(cli, str(sessions), "--month", "2026-05") == (0, "", note)
    code, out, err = run(cli, str(sessions), "--month", "2026-05", "--format", "json")
    assert (code, json.loads(out)["rows"], err) == (0, [], note)
    assert run(cli, str(sessions), "--since", "2027-01-01")[2] == (
        "pi-tools: no usage from 2027-01-01 on; the sessions read cover 2026-03-01 to 2026-07-02 "
        "(--since 2026-03-01 --until 2026-07-02)\n")


# Grouping and rounding ----------------------------------------------------------------------------------------

def test_several_by_keys(cli: Any, sessions: Path) -> None:
    code, out, err = run(cli, str(sessions), "--by", "model,month", "--format", "json")
    assert (code, err) == (0, "")
    rows = json.loads(out)["rows"]
    assert [(row["model"], row["month"], row["messages"]) for row in rows] == [
        ("<script>x</script>", "2026-03", 1), ("claude-sonnet-4-5", "2026-03", 2), ("claude-sonnet-4-5", "2026-07", 1)]
    assert list(rows[0])[:3] == ["model", "month", "messages"]
    code, out, err = run(cli, str(sessions), "--by", "provider,month", "--format", "csv")
    assert out.splitlines()[0].startswith("provider,month,messages,")
    assert out.splitlines()[1].startswith("acme,2026-03,1,")
    code, out, err = run(cli, str(sessions), "--by", "provider,month")
    assert out.splitlines()[0].split()[:3] == ["provider", "month", "msgs"]
    assert out.splitlines()[2].split()[:3] == ["acme", "2026-03", "1"]
    assert run(cli, str(sessions), "--by", "model,year") == (
        2, "", "pi-tools: --by 'year': expected one of session, day, week, month, model, provider, api, kind\n")
    assert run(cli, str(sessions), "--by", "day,day") == (2, "", "pi-tools: --by 'day,day': a key is named twice\n")
    shown = cli("usage", "--help")
    assert "[session|day|week|month|model|provider|api|kind][,...]" in shown.stdout


def test_costs_are_rounded_to_micro_dollars(cli: Any, sessions: Path) -> None:
    """0.1 + 0.2 is 0.30000000000000004 in floats; rows and totals say 0.3 (6 decimals)."""
    code, out, _ = run(cli, str(sessions / "p" / "a.jsonl"), "--by", "day", "--format", "json")
    document = json.loads(out)
    assert '"cost":0.3,' in out and document["rows"][0]["cost"] == 0.3
    assert document["totals"]["cost"] == 1.3
    code, out, _ = run(cli, str(sessions / "p" / "a.jsonl"), "--by", "day", "--format", "csv")
    assert out.splitlines()[1].split(",")[7] == "0.3"


# Bad input -----------------------------------------------------------------------------------------------------

def test_files_that_are_not_sessions_are_errors(cli: Any, tmp_path: Path, sessions: Path) -> None:
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    other = tmp_path / "other.jsonl"
    other.write_text('{"a": 1}\n', encoding="utf-8")
    missing = tmp_path / "nowhere.jsonl"
    expected = {
        binary: f"{binary}: not a pi session: no line holds a JSON value Pi keeps (no session header)",
        empty: f"{empty}: empty file, not a session (Pi would start a new session in it)",
        other: f"{other}: not a pi session: line 1, the first value Pi keeps, is not a session header with a "
               "string id",
        missing: f"{missing}: no such file",
    }
    for path, message in expected.items():
        for scope in ("all", "active") if path != missing else ("all",):
            assert run(cli, str(path), "--scope", scope)[0] == 2
        assert run(cli, str(path)) == (2, "", f"pi-tools: {message}\n")
    # next to a good file: the good one is still reported, the bad one named, exit 2
    code, out, err = run(cli, str(sessions), str(missing), "--format", "json")
    assert (code, err, json.loads(out)["totals"]["messages"]) == (2, f"pi-tools: {missing}: no such file\n", 4)


# The chart ------------------------------------------------------------------------------------------------------

def test_chart_spec_has_a_time_axis_the_page_width_and_the_by_colour(sessions: Path) -> None:
    assert chart_keys("model,week") == ("week", "model")
    assert chart_keys("provider") == ("day", "provider")
    assert chart_keys("month") == ("month", "model")
    data = collect_usage([str(sessions)], UsageOptions(timezone="UTC"))
    records = chart_records(data.frame(), "week", "provider")
    assert [(r["period"], r["start"], r["end"], r["provider"], r["cost"]) for r in records] == [
        ("2026-W09", "2026-02-23", "2026-03-02", "anthropic", 0.3),
        ("2026-W10", "2026-03-02", "2026-03-09", "acme", 1.0),
        ("2026-W27", "2026-06-29", "2026-07-06", "anthropic", 2.5),
    ]
    cost, tokens = chart_specs(records, "week", "provider")
    for spec in (cost, tokens):
        assert spec["width"] == "container" and spec["autosize"] == {"type": "fit-x", "contains": "padding"}
        assert spec["encoding"]["x"]["field"] == "start" and spec["encoding"]["x"]["type"] == "temporal"
        assert spec["encoding"]["x"]["scale"] == {"type": "utc"}
        assert spec["encoding"]["x2"] == {"field": "end"}
        assert "$schema" not in spec
    assert cost["encoding"]["color"]["field"] == "provider"
    assert [t["field"] for t in cost["encoding"]["tooltip"]] == ["period", "provider", "cost", "messages",
                                                                 "totalTokens"]
    assert tokens["encoding"]["color"]["field"] == "kind"
    assert chart_specs(records, "week", "provider", 900)[0]["width"] == 900


def test_chart_files_by_extension(cli: Any, sessions: Path, tmp_path: Path) -> None:
    page = tmp_path / "usage.html"
    assert run(cli, str(sessions), "--by", "model,week", "--chart", str(page))[0] == 0
    html = page.read_text(encoding="utf-8")
    # two inline scripts: vl-convert's bundle of Vega, Vega-Lite and vega-embed, then the embedding; no src
    assert html.count("<script") == 2 and "<script src" not in html and "<link" not in html
    before, rest = html.split("<script>", 1)
    bundle, embedding = rest.split("</script>", 1)
    assert "window.vegaEmbed=" in bundle and len(bundle) > 500_000
    assert "http" not in before and "http" not in embedding  # the page and its specs name no network address
    assert embedding.count('vegaEmbed("#chart') == 2
    assert '"width":"container"' in html and '"field":"model"' in html
    assert "\\u003cscript\\u003ex\\u003c/script\\u003e" in html and "<script>x</script>" not in html
    image = tmp_path / "usage.svg"
    assert run(cli, str(sessions), "--chart", str(image))[0] == 0
    assert image.read_text(encoding="utf-8").startswith("<svg") and "Cost per day by model" in image.read_text()
    picture = tmp_path / "usage.png"
    assert run(cli, str(sessions), "--by", "provider,month", "--chart", str(picture))[0] == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run(cli, str(sessions), "--chart", str(tmp_path / "usage.pdf")) == (
        2, "", f"pi-tools: --chart '{tmp_path / 'usage.pdf'}': expected a file ending in .html, .svg or .png\n")


def test_chart_without_the_extra_says_how_to_install_it(sessions: Path, tmp_path: Path) -> None:
    probe = ("import sys\n"
             "sys.modules['altair'] = None\n"
             "sys.argv = ['pi-tools', 'usage', sys.argv[1], '--chart', sys.argv[2]]\n"
             "from pi_tools.cli.entry import main\n"
             "main()\n")
    done = subprocess.run([sys.executable, "-c", probe, str(sessions), str(tmp_path / "u.html")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "pi-tools: --chart needs the charts extra: pip install 'pi-tools[charts]'\n")
    assert not (tmp_path / "u.html").exists()
