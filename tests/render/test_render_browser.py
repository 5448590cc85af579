"""The rendered page in a real browser (headless Chromium): it loads, runs only its own script, and looks right.

Session text is untrusted, so the proof is behavioural: hostile text in user messages, thinking, tool arguments,
tool output, custom roles and the session header tries to set attributes on <body>; the page's own script sets
`data-pi-render`. The DOM Chromium dumps after loading must carry only the latter, with and without the page's
CSP (escaping alone must hold), while a control page with the same text unescaped shows the probe works.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from pi_tools.render import RenderRequest, build_preview, pair_targets, render_view
from pi_tools.session import load_session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = Path(__file__).resolve().parents[1] / "data" / "render" / "hostile.jsonl"
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')

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


@pytest.fixture(scope="module")
def hostile_page() -> str:
    targets = pair_targets(["anthropic-messages", "openai-responses", "google-generative-ai"], [])
    request = RenderRequest(targets, system_prompt="<script>document.body.setAttribute('data-pwned','sys')</script>",
                            block_images=False)
    return render_view(build_preview(load_session(HOSTILE), request), "html")


def test_no_injected_script_runs(tmp_path: Path, hostile_page: str) -> None:
    page = tmp_path / "hostile.html"
    page.write_text(hostile_page, encoding="utf-8")
    dom = _chromium(tmp_path, page, "--dump-dom")
    body = _body_tag(dom)
    assert 'data-pi-render="ready"' in body
    assert "pwned" not in body
    # The hostile text is there, as text.
    assert "&lt;script&gt;window.__pwned=1;document.body.setAttribute('data-pwned','script')&lt;/script&gt;" in dom
    assert "&lt;img src=x onerror=" in dom
    assert dom.count("<script") == 1


def test_escaping_holds_without_the_csp(tmp_path: Path, hostile_page: str) -> None:
    assert CSP_META.search(hostile_page)
    page = tmp_path / "no-csp.html"
    page.write_text(CSP_META.sub("", hostile_page), encoding="utf-8")
    body = _body_tag(_chromium(tmp_path, page, "--dump-dom"))
    assert 'data-pi-render="ready"' in body and "pwned" not in body


def test_probe_detects_a_script_that_does_run(tmp_path: Path) -> None:
    page = tmp_path / "control.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>control</p>"
        "<script>document.body.setAttribute('data-pwned','script')</script>"
        "<img src=x onerror=\"document.body.setAttribute('data-pwned-img','1')\"></body></html>",
        encoding="utf-8")
    body = _body_tag(_chromium(tmp_path, page, "--dump-dom"))
    assert 'data-pwned="script"' in body and 'data-pwned-img="1"' in body


def test_screenshot_on_a_laptop_window(tmp_path: Path, hostile_page: str) -> None:
    page = tmp_path / "shot.html"
    page.write_text(hostile_page, encoding="utf-8")
    png = tmp_path / "shot.png"
    _chromium(tmp_path, page, f"--screenshot={png}", "--window-size=1400,900")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 900)
    assert len(data) > 40_000  # a blank or error page compresses to a few kilobytes
