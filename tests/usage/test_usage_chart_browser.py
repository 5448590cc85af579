"""The usage chart in a real browser (headless Chromium): Vega renders it offline, on a time axis, at page width.

`usage --chart OUT.html` inlines the Vega, Vega-Lite and vega-embed bundle and renders to SVG, so the DOM that
Chromium dumps after running the page's scripts holds the drawn axes: Vega labels each axis for assistive
technology with its title and scale type ("... for a utc scale with values from A to B"), which is what shows
that the x axis is a time axis spanning the data's real dates (a gap between days stays a gap), not categories.
A screenshot is kept under .pytest_cache/usage-screenshots for a person to look at.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REALWORLD = ROOT / "fixtures" / "realworld"
SHOTS = ROOT / ".pytest_cache" / "usage-screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package `chromium`; CI installs it)"),
    pytest.mark.skipif(not REALWORLD.is_dir(), reason="fixtures/realworld is not in this checkout"),
]


@pytest.fixture(scope="module")
def chart_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("vl_convert", reason="the charts extra is not installed")
    out = tmp_path_factory.mktemp("chart") / "usage.html"
    run = subprocess.run([sys.executable, "-m", "pi_tools", "usage", str(REALWORLD), "--by", "model,day",
                          "--timezone", "UTC", "--chart", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    return out


def _chromium(tmp_path: Path, page: Path, *extra: str) -> str:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--virtual-time-budget=10000", *extra, page.as_uri()]
    result = subprocess.run(command, capture_output=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")[-2000:]
    return result.stdout.decode("utf-8", "replace")


def test_the_chart_draws_a_time_axis_over_the_datas_dates(tmp_path: Path, chart_page: Path) -> None:
    dom = _chromium(tmp_path, chart_page, "--dump-dom")
    axes = re.findall(r'aria-label="([XY]-axis[^"]*)"', dom)
    assert axes == [
        "X-axis titled 'day' for a utc scale with values from 2025-11-17 to 2026-07-20",
        "Y-axis titled 'cost (USD)' for a linear scale with values from 0 to 30",
        "X-axis titled 'day' for a utc scale with values from 2025-11-17 to 2026-07-20",
        "Y-axis titled 'tokens' for a linear scale with values from 0 to 70,000,000",
    ]
    # The cost chart is coloured by the first non-period --by key (model), with a legend naming it.
    assert re.search(r'aria-label="Symbol legend titled \'model\'', dom)
    assert "Cost per day by model" in dom and "Tokens per day by kind" in dom


@pytest.mark.parametrize(("name", "width"), [("wide", 1800), ("laptop", 1200)])
def test_the_chart_follows_the_page_width(tmp_path: Path, chart_page: Path, name: str, width: int) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    png = SHOTS / f"usage-{name}.png"
    _chromium(tmp_path, chart_page, f"--screenshot={png}", f"--window-size={width},1100")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (width, 1100)
    assert len(data) > 40_000  # a blank page or a script error compresses to a few kilobytes
    dom = _chromium(tmp_path, chart_page, "--dump-dom", f"--window-size={width},1100")
    widths = [float(value) for value in re.findall(r'<svg [^>]*class="marks" width="([\d.]+)"', dom)]
    # Both charts span the page (its 2em margins aside), whatever the window's width: no fixed 492 px.
    assert len(widths) == 2 and all(width * 0.85 < drawn <= width for drawn in widths), widths
