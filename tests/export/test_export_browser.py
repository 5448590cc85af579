"""The exported transcript in a real browser (headless Chromium): hostile session text stays text.

tests/data/export/hostile.jsonl puts `<script>`, `<img onerror>`, `javascript:` links (Markdown and HTML) and
breakout attempts into every string the transcript shows (header, name, model, labels, user text, image type and
data, thinking, text, tool names, arguments, ids, output, diffs, errors, bash, custom, summaries, unknown entries
and roles). Each payload would set an attribute on <body>; the page's own script sets `data-pi-export`. The DOM
Chromium dumps after loading must carry only the latter, with and without the CSP, and hold no link at all.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from pi_tools.export import ExportOptions, export_session
from pi_tools.session import load_session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = Path(__file__).resolve().parents[1] / "data" / "export" / "hostile.jsonl"
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')
SHOTS = Path(__file__).resolve().parents[2] / ".pytest_cache" / "export-screenshots"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package `chromium`; CI installs it)")


def _chromium(tmp_path: Path, page: Path, *extra: str) -> str:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", *extra, page.as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")[-2000:]
    return result.stdout.decode("utf-8", "replace")


def _body_tag(dom: str) -> str:
    match = re.search(r"<body[^>]*>", dom)
    assert match, dom[:500]
    return match.group(0)


@pytest.fixture(scope="module", params=["active", "all"])
def hostile_page(request: pytest.FixtureRequest) -> str:
    options = ExportOptions(branches=request.param)
    return "".join(export_session(load_session(str(HOSTILE)), "html", options))


def test_no_injected_script_or_link_runs(tmp_path: Path, hostile_page: str) -> None:
    page = tmp_path / "hostile.html"
    page.write_text(hostile_page, encoding="utf-8")
    dom = _chromium(tmp_path, page, "--dump-dom")
    body = _body_tag(dom)
    assert 'data-pi-export="ready"' in body
    assert "pwned" not in body
    assert dom.count("<script") == 1
    tags = re.findall(r"<[a-zA-Z][^<>]*>", dom)
    assert not [t for t in tags if re.match(r"<a\b", t) or "href" in t or "javascript:" in t]  # no link at all
    # The hostile text is there, as text.
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','script')&lt;/script&gt;" in dom
    assert "&lt;img src=x onerror=" in dom
    assert "[click me](javascript:document.body.setAttribute('data-pwned','js'))" in dom
    assert "&lt;a href=\"javascript:document.body.setAttribute('data-pwned','a')\"&gt;link&lt;/a&gt;" in dom
    # The one well-formed PNG is inlined; the image whose type and data carry markup is not.
    assert dom.count("<img ") == 1 and 'src="data:image/png;base64,iVBORw0KGgo' in dom


def test_escaping_holds_without_the_csp(tmp_path: Path, hostile_page: str) -> None:
    assert CSP_META.search(hostile_page)
    page = tmp_path / "no-csp.html"
    page.write_text(CSP_META.sub("", hostile_page), encoding="utf-8")
    body = _body_tag(_chromium(tmp_path, page, "--dump-dom"))
    assert 'data-pi-export="ready"' in body and "pwned" not in body


def test_probe_detects_a_link_and_script_that_do_run(tmp_path: Path) -> None:
    page = tmp_path / "control.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>control</p>"
        "<script>document.body.setAttribute('data-pwned','script')</script>"
        "<a id=l href=\"javascript:document.body.setAttribute('data-pwned-js','1')\">x</a>"
        "<script>document.getElementById('l').click()</script></body></html>",
        encoding="utf-8")
    body = _body_tag(_chromium(tmp_path, page, "--dump-dom"))
    assert 'data-pwned="script"' in body and 'data-pwned-js="1"' in body


@pytest.mark.parametrize(("name", "size"), [("laptop", (1400, 900)), ("phone", (500, 900))])
def test_screenshots_on_a_laptop_and_a_phone(tmp_path: Path, hostile_page: str, name: str,
                                             size: tuple[int, int]) -> None:
    """Screenshots kept under .pytest_cache/export-screenshots for a person to look at.

    500 CSS pixels is the narrowest viewport headless Chromium lays out (narrower windows are cropped from a
    500-pixel layout); the page's phone layout starts below 700.
    """
    page = tmp_path / "shot.html"
    page.write_text(hostile_page, encoding="utf-8")
    SHOTS.mkdir(parents=True, exist_ok=True)
    png = SHOTS / f"hostile-{name}-{'all' if 'Abandoned branch' in hostile_page else 'active'}.png"
    _chromium(tmp_path, page, f"--screenshot={png}", f"--window-size={size[0]},{size[1]}")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == size
    assert len(data) > 30_000  # a blank or error page compresses to a few kilobytes
