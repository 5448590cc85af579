"""Issue 25's export items: the title, rendered assistant Markdown that lets no session text become markup,
and huge outputs cut from the page with the exact full text kept in a sidecar file beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HEADER = {"type": "session", "version": 3, "id": "issue25-session", "timestamp": "2026-01-01T00:00:00.000Z",
          "cwd": "/tmp/work"}
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0.00003, "output": 0.000075, "cacheRead": 0, "cacheWrite": 0, "total": 0.000105}}


def _session(path: Path, user: str, assistant: str, tool_output: str | None = None,
             name: str | None = None) -> Path:
    entries: list[dict[str, Any]] = [HEADER]
    if name is not None:
        entries.append({"type": "session_info", "id": "n1", "parentId": None,
                        "timestamp": "2026-01-01T00:00:00.500Z", "name": name})
    entries.append({"type": "message", "id": "u1", "parentId": "n1" if name is not None else None,
                    "timestamp": "2026-01-01T00:00:01.000Z",
                    "message": {"role": "user", "content": [{"type": "text", "text": user}], "timestamp": 1}})
    content: list[dict[str, Any]] = [{"type": "text", "text": assistant}]
    if tool_output is not None:
        content.append({"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat big.log"}})
    entries.append({"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z",
                    "message": {"role": "assistant", "content": content, "provider": "anthropic",
                                "model": "claude-sonnet-4-5", "api": "anthropic-messages", "usage": USAGE,
                                "stopReason": "toolUse" if tool_output is not None else "stop", "timestamp": 2}})
    if tool_output is not None:
        entries.append({"type": "message", "id": "t1", "parentId": "a1", "timestamp": "2026-01-01T00:00:03.000Z",
                        "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                                    "content": [{"type": "text", "text": tool_output}], "isError": False,
                                    "timestamp": 3}})
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return path


def _title(page: str) -> str:
    found = re.search(r"<h1>(.*?)</h1>", page)
    assert found
    return found[1]


def test_the_title_is_the_name_else_the_first_user_message_else_the_id(cli: Any, tmp_path: Path) -> None:
    named = _session(tmp_path / "named.jsonl", "fix the bug", "done", name="  Bug hunt  ")
    run = cli("export", str(named), "-o", str(tmp_path / "named.html"))
    assert run.code == 0, run.stderr
    assert _title((tmp_path / "named.html").read_text(encoding="utf-8")) == "Bug hunt"

    long_words = "Please   look at\nthe failing test in tests/test_parser.py and tell me why the tokenizer drops " \
                 "the last character of every line"
    unnamed = _session(tmp_path / "unnamed.jsonl", long_words, "ok")
    run = cli("export", str(unnamed), "-o", "-", "--format", "md")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines()[0] == ("# Please look at the failing test in tests/test\\_parser.py and tell me why "
                                          "the tok…")
    html = cli("export", str(unnamed), "-o", "-", "--format", "html").stdout
    assert _title(html) == "Please look at the failing test in tests/test_parser.py and tell me why the tok…"

    silent = _session(tmp_path / "silent.jsonl", "   ", "ok")
    assert _title(cli("export", str(silent), "-o", "-").stdout) == "issue25-session"


HOSTILE = """# Plan

Some **bold**, `a <b>code</b> span` and ~~old~~ text.

<script>alert(1)</script>
<img src=x onerror=alert(2)>

[click](javascript:alert(3)) [docs](https://example.com/a?b=1&c=2) <javascript:alert(4)>
![pixel](https://tracker.example/p.png)

| a | b |
| - | - |
| <i>1</i> | 2 |
"""

RENDERED = (
    '<div class="md"><h1>Plan</h1>\n'
    '<p>Some <strong>bold</strong>, <code>a &lt;b&gt;code&lt;/b&gt; span</code> and <s>old</s> text.</p>\n'
    '<p>&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;img src=x onerror=alert(2)&gt;</p>\n'
    '<p>[click](javascript:alert(3)) <a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">'
    'docs</a> &lt;javascript:alert(4)&gt;\n'
    '!<a href="https://tracker.example/p.png" rel="noopener noreferrer nofollow">pixel</a></p>\n'
    '<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n'
    '<td>&lt;i&gt;1&lt;/i&gt;</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n</div>'
)


def test_assistant_markdown_is_rendered_and_no_session_text_becomes_markup(cli: Any, tmp_path: Path) -> None:
    session = _session(tmp_path / "hostile.jsonl", "<script>alert(0)</script> go", HOSTILE)
    run = cli("export", str(session), "-o", "-", "--format", "html")
    assert run.code == 0, run.stderr
    page = run.stdout
    assert RENDERED in page
    # The page's own scripts carry its nonce; no other script, no image, no javascript: link anywhere.
    assert len(re.findall(r"<script\b", page)) == len(re.findall(r'<script nonce="[^"]+">', page)) >= 1
    assert "<img" not in page and 'href="javascript' not in page.lower() and "onerror=alert" not in \
        page.replace("onerror=alert(2)&gt;", "")
    # The user's text is not Markdown-rendered: shown as written, escaped.
    assert '<div class="prose">&lt;script&gt;alert(0)&lt;/script&gt; go</div>' in page


def test_a_5_mb_output_is_cut_and_kept_whole_beside_the_page(cli: Any, tmp_path: Path) -> None:
    line = "0123456789 <b>&amp; ünïcode line</b>\n"
    huge = (line * (5_000_000 // len(line) + 1))[:5_000_000]
    session = _session(tmp_path / "big.jsonl", "read the log", "Reading it.", tool_output=huge)
    assert session.stat().st_size > 5_000_000
    out = tmp_path / "out"
    out.mkdir()
    run = cli("export", str(session), "-o", str(out / "big.html"))
    assert (run.code, run.stderr) == (0, "")
    page = (out / "big.html").read_text(encoding="utf-8")
    assert (out / "big.html").stat().st_size < 100_000
    assert sorted(path.name for path in out.iterdir()) == ["big.html", "big.html.output-1.txt"]
    assert (out / "big.html.output-1.txt").read_bytes() == huge.encode("utf-8")
    lines = huge.count("\n") + 1
    assert lines == 135136
    assert (f'<p class="cut">Cut: the page shows the first 10000 of 5000000 characters ({lines} lines). '
            f'<a class="full" href="big.html.output-1.txt">The full text: big.html.output-1.txt</a></p>') in page

    run = cli("export", str(session), "-o", str(out / "big notes.md"))
    assert run.code == 0, run.stderr
    markdown = (out / "big notes.md").read_text(encoding="utf-8")
    assert len(markdown) < 50_000
    assert (out / "big notes.md.output-1.txt").read_bytes() == huge.encode("utf-8")
    assert (f"*Cut: the page shows the first 10000 of 5000000 characters ({lines} lines). The full text: "
            f"[big notes.md.output-1.txt](<big%20notes.md.output-1.txt>)*") in markdown.splitlines()

    run = cli("export", str(session), "-o", "-", "--format", "html")
    assert run.code == 0 and len(run.stdout) < 100_000
    assert (f"Cut: the page shows the first 10000 of 5000000 characters ({lines} lines). The full text is in the "
            "session file only (the page went to stdout).") in run.stdout
    assert sorted(path.name for path in out.iterdir()) == [
        "big notes.md", "big notes.md.output-1.txt", "big.html", "big.html.output-1.txt"]


def test_texts_at_the_threshold_stay_whole(cli: Any, tmp_path: Path) -> None:
    exact = "x" * 100_000
    session = _session(tmp_path / "edge.jsonl", "go", "ok", tool_output=exact)
    run = cli("export", str(session), "-o", str(tmp_path / "edge.html"))
    assert run.code == 0, run.stderr
    assert exact in (tmp_path / "edge.html").read_text(encoding="utf-8")
    assert not (tmp_path / "edge.html.output-1.txt").exists()
