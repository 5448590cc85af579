"""Transcripts (`export --format md|html`): reading order, the whole tree, and filters that remove only what they
name, on every conformance case and real-world session."""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from pi_tools.export import ExportOptions, build_transcript, export_session
from pi_tools.export.stage import rewritten_tree
from pi_tools.export.templating import md_block, md_line, md_tick
from pi_tools.export.transcript import TranscriptOptions, hidden_by_compaction
from pi_tools.js.values import js_to_string
from pi_tools.render.environment import md_code, md_span, md_text
from pi_tools.session import SessionReadError, load_session

from support.golden import CASES, REALWORLD, case_names, realworld_names

SESSIONS = [CASES / f"{name}.jsonl" for name in case_names()] + [REALWORLD / f"{n}.jsonl" for n in realworld_names()]
NONCE = re.compile(r"nonce-[A-Za-z0-9_-]+|nonce=\"[A-Za-z0-9_-]+\"")


def _tree(path: Path) -> Any:
    try:
        return load_session(str(path))
    except SessionReadError:
        pytest.skip("Pi refuses this file")


def _shown_ids(view: dict[str, Any]) -> list[str]:
    """Entry ids in the order the transcript shows them (a result right after its call's message)."""
    out: list[str] = []
    for row in view["rows"]:
        if row["kind"] in ("open", "close", "marker"):
            continue
        out.append(row["id"])
        for block in row.get("blocks", []):
            if block["kind"] == "tool" and block["result"] is not None:
                out.append(block["result"]["entryId"])
    return out


def _id(entry: Any) -> str:
    return js_to_string(entry.get("id", "")) if isinstance(entry, dict) else ""


def _page(tree: Any, fmt: str, options: ExportOptions | None = None) -> str:
    return NONCE.sub("nonce", "".join(export_session(tree, fmt, options)))


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_every_entry_of_the_active_path_in_order(path: Path) -> None:
    tree = _tree(path)
    for leaf in [None, *tree.leaves()[:6]]:
        view = build_transcript(tree, TranscriptOptions(leaf=leaf))
        entries = tree.path(tree.leaf_id if leaf is None else leaf)
        shown = _shown_ids(view)
        # Results are shown beside their calls, so a result may come before the other results of the same call
        # batch; the order of everything else is the path's.
        assert sorted(shown) == sorted(_id(e) for e in entries)
        calls_first = [i for i in shown if i in {_id(e) for e in entries if _role(e) != "toolResult"}]
        assert calls_first == [_id(e) for e in entries if _role(e) != "toolResult"]


def _role(entry: Any) -> Any:
    message = entry.get("message") if isinstance(entry, dict) else None
    return message.get("role") if isinstance(message, dict) else None


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_the_page_shows_each_message_in_order(path: Path) -> None:
    """In the HTML itself: every path entry's anchor (or its result's id) in order, and the user texts."""
    tree = _tree(path)
    page = _page(tree, "html")
    entries = tree.path(tree.leaf_id)
    position = 0
    for entry in entries:
        if _role(entry) == "toolResult":
            continue
        anchor = f'id="entry-{escape(_id(entry))}"'
        found = page.find(anchor, position)
        assert found >= 0, (_id(entry), anchor)
        position = found
        if _role(entry) == "user":
            content = entry["message"].get("content")
            text = content if isinstance(content, str) else "\n".join(
                b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
            if text.strip() and not text.startswith("<skill"):
                assert re.sub(r"[\ud800-\udfff]", "\ufffd", str(escape(text))) in page[found:]
    markdown = _page(tree, "md")
    position = 0
    for entry in entries:
        if _role(entry) == "toolResult" or not _id(entry):
            continue
        found = markdown.find(f"`{_id(entry)}`", position)
        assert found >= 0, _id(entry)
        position = found


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_branches_all_shows_every_entry_exactly_once(path: Path) -> None:
    tree = _tree(path)
    view = build_transcript(tree, TranscriptOptions(branches="all"))
    assert Counter(_shown_ids(view)) == Counter(_id(e) for e in tree.entries)
    opens = [row for row in view["rows"] if row["kind"] == "open"]
    assert len(opens) == sum(1 for row in view["rows"] if row["kind"] == "close")
    # One group per abandoned branch point child: leaves off the active path each sit in an abandoned group.
    if len(tree.leaves()) > 1 and not any(o.get("stray") for o in opens):
        assert any(o["abandoned"] for o in opens)
    page = _page(tree, "html", ExportOptions(branches="all"))
    assert page.count('<details class="branch') == len(opens)
    ids = Counter(_id(e) for e in tree.entries if _role(e) != "toolResult" and _id(e))
    for entry_id, count in ids.items():
        assert page.count(f'id="entry-{escape(entry_id)}"') >= count


def test_abandoned_branches_are_marked_and_collapsed() -> None:
    tree = load_session(str(CASES / "c002_branching.jsonl"))
    view = build_transcript(tree, TranscriptOptions(branches="all"))
    active = {_id(e) for e in tree.path(tree.leaf_id)}
    depth = 0
    for row in view["rows"]:
        if row["kind"] == "open":
            depth += 1
        elif row["kind"] == "close":
            depth -= 1
        elif row["kind"] not in ("marker",):
            # Outside every group: the active path only; inside an abandoned group: never the active path.
            assert (row["id"] in active) == (depth == 0), row["id"]
    page = _page(tree, "html", ExportOptions(branches="all"))
    assert '<details class="branch abandoned"><summary>Abandoned branch' in page
    assert '<details class="branch abandoned" open>' not in page


@pytest.mark.parametrize("name", ["c016_compaction", "c029_compaction", "edge_compaction_corners",
                                  "badlogic__pi-mono__compact"])
def test_history_before_a_compaction_is_shown_and_marked(name: str) -> None:
    path = CASES / f"{name}.jsonl" if (CASES / f"{name}.jsonl").exists() else REALWORLD / f"{name}.jsonl"
    tree = load_session(str(path))
    entries = tree.path(tree.leaf_id)
    hidden = {_id(e) for e in entries if id(e) in hidden_by_compaction(entries)}
    assert hidden
    view = build_transcript(tree)
    rows = [r for r in view["rows"] if r["kind"] not in ("open", "close", "marker")]
    assert {r["id"] for r in rows if r["hidden"]} == {r["id"] for r in rows if r["id"] in hidden}
    markers = [r for r in view["rows"] if r["kind"] == "marker"]
    assert markers and markers[0]["hidden"] and "Not in the model's context" in markers[0]["text"]
    page = _page(tree, "html")
    assert "Not in the model&#39;s context" in page and page.count("not in context</span>") >= len(
        [r for r in rows if r["hidden"] and r["kind"] != "meta"])


def _without_tools(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        if row["kind"] == "tool_result":
            continue
        if row["kind"] == "assistant":
            row = {**row, "blocks": [b for b in row["blocks"] if b["kind"] != "tool"]}
        out.append(row)
    return out


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_filters_remove_what_they_name_and_nothing_else(path: Path) -> None:
    tree = _tree(path)
    for branches in ("active", "all"):
        full = build_transcript(tree, TranscriptOptions(branches=branches))["rows"]
        no_tools = build_transcript(tree, TranscriptOptions(branches=branches, tools=False))["rows"]
        assert no_tools == _without_tools(full)
        assert not any(b["kind"] == "tool" for r in no_tools for b in r.get("blocks", []))
        no_thinking = build_transcript(tree, TranscriptOptions(branches=branches, thinking=False))["rows"]
        assert no_thinking == [{**r, "blocks": [b for b in r["blocks"] if b["kind"] != "thinking"]}
                               if r["kind"] == "assistant" else r for r in full]
        for role in ("user", "assistant"):
            only = build_transcript(tree, TranscriptOptions(branches=branches, only=role))["rows"]
            assert [r for r in only if r["kind"] not in ("open", "close", "marker")] == [
                r for r in full if r["kind"] == role]
            assert [r for r in only if r["kind"] in ("open", "close")] == [
                r for r in full if r["kind"] in ("open", "close")]


def _word_to_redact(tree: Any) -> str:
    """A 10-letter word of the session's own text (same length as [REDACTED], so no truncation moves)."""
    text = " ".join(json.dumps(e.get("message", {}).get("content", "")) for e in tree.path(tree.leaf_id)
                    if isinstance(e, dict) and isinstance(e.get("message"), dict))
    words = Counter(w for w in re.findall(r"(?<![\w\\])[a-z]{10}(?![\w])", text))
    for word, _ in words.most_common():
        if word not in {"everything", "assistant_", "abandoned_"}:
            return word
    pytest.skip("no 10-letter word to redact")


@pytest.mark.parametrize("path", [CASES / "c002_branching.jsonl", CASES / "c001_tools.jsonl",
                                  REALWORLD / "castai__kimchi-dev__session.jsonl",
                                  REALWORLD / "badlogic__pi-mono__session.jsonl"], ids=lambda p: p.stem)
def test_redact_replaces_matches_and_nothing_else(path: Path) -> None:
    tree = load_session(str(path))
    word = _word_to_redact(tree)
    plain = _page(tree, "html")
    assert word in plain
    redacted = _page(tree, "html", ExportOptions(redact=(rf"\b{word}\b",)))
    assert re.search(rf"\b{word}\b", redacted) is None and "[REDACTED]" in redacted
    assert redacted == re.sub(rf"\b{word}\b", "[REDACTED]", plain)
    chat_plain = [json.loads(line) for line in _page(tree, "chat").splitlines()]
    chat_redacted = [json.loads(line) for line in _page(tree, "chat", ExportOptions(redact=(rf"\b{word}\b",))).splitlines()]
    assert chat_redacted == _sub_strings(chat_plain, re.compile(rf"\b{word}\b"))


CHAT_STRUCTURE = {"id", "role", "type", "toolCallId", "state", "mediaType", "url", "stopReason"}


def _sub_strings(value: Any, regex: re.Pattern[str], key: str | None = None) -> Any:
    if isinstance(value, str):
        return value if key in CHAT_STRUCTURE else regex.sub("[REDACTED]", value)
    if isinstance(value, list):
        return [_sub_strings(v, regex) for v in value]
    if isinstance(value, dict):
        return {k: _sub_strings(v, regex, k) for k, v in value.items()}
    return value


def test_scrub_replaces_credentials_everywhere(tmp_path: Path, cli: Any) -> None:
    key = "sk-ant-api03-" + "A" * 40
    token = "ghp_" + "b" * 36
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-03-01T10:00:01.000Z",
         "message": {"role": "user", "content": f"use {key} please", "timestamp": 1}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-03-01T10:00:02.000Z",
         "message": {"role": "assistant", "content": [
             {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": f"GH={token} gh pr list"}}],
             "provider": "anthropic", "model": "m", "stopReason": "toolUse", "timestamp": 2}},
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-03-01T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": f"echo {key}"}], "isError": False, "timestamp": 3}},
    ]
    session = tmp_path / "s.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    for fmt in ("md", "html", "chat"):
        out = tmp_path / f"out.{fmt}"
        run = cli("export", str(session), "--format", fmt, "--scrub", "-o", str(out))
        assert run.code == 0, run.stderr
        text = out.read_text(encoding="utf-8")
        assert key not in text and token not in text
        assert "[REDACTED:anthropic-api-key]" in text.replace("\\[", "[").replace("\\]", "]")
        assert "[REDACTED:github-token]" in text.replace("\\[", "[").replace("\\]", "]")
    assert session.read_text(encoding="utf-8").count(key) == 2  # the input is never touched


def test_rewriting_copies_and_keeps_structure() -> None:
    tree = load_session(str(CASES / "c001_tools.jsonl"))
    before = json.dumps(tree.entries)
    copy = rewritten_tree(tree, lambda s: s.upper())
    assert json.dumps(tree.entries) == before
    assert [_id(e) for e in copy.entries] == [_id(e) for e in tree.entries]
    assert [e.get("type") for e in copy.entries] == [e.get("type") for e in tree.entries]


def test_the_transcript_shows_turn_details() -> None:
    """Model, tokens and cost per turn; tool arguments beside results; bash executions; summaries as such."""
    tree = load_session(str(CASES / "c006_bashcustom.jsonl"))
    page = _page(tree, "html")
    view = build_transcript(tree)
    assistants = [r for r in view["rows"] if r["kind"] == "assistant"]
    assert assistants and all(r["model"] and r["usage"] for r in assistants)
    first = next(e["message"] for e in tree.path(tree.leaf_id) if _role(e) == "assistant")
    assert f"${first['usage']['cost']['total']:.4f}" in page
    bash = [r for r in view["rows"] if r["kind"] == "bash"]
    stored = [e["message"] for e in tree.path(tree.leaf_id) if _role(e) == "bashExecution"]
    assert [r["command"] for r in bash] == [m["command"] for m in stored]
    assert all(f"$ {escape(m['command'])}" in page for m in stored)
    summaries = build_transcript(load_session(str(CASES / "c010_summarymsgs.jsonl")))["rows"]
    assert {"branch_summary", "compaction"} <= {r["kind"] for r in summaries}


def test_export_cli_errors_are_clear(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "x.html"
    bad_leaf = cli("export", str(CASES / "c000_linear.jsonl"), "--leaf", "nope", "-o", str(out))
    assert bad_leaf.code == 2 and "Entry nope not found" in bad_leaf.stderr and "Traceback" not in bad_leaf.stderr
    bad_regex = cli("export", str(CASES / "c000_linear.jsonl"), "--redact", "(", "-o", str(out))
    assert bad_regex.code == 2 and "--redact: invalid regular expression '('" in bad_regex.stderr
    missing = cli("export", str(tmp_path / "none.jsonl"), "-o", str(out))
    assert missing.code == 2 and "none.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    assert not out.exists()
    several = tmp_path / "pages"
    run = cli("export", str(CASES / "c000_linear.jsonl"), str(CASES / "c001_tools.jsonl"), "--format", "md",
              "-o", str(several))
    assert run.code == 0 and sorted(p.name for p in several.iterdir()) == ["c000_linear.md", "c001_tools.md"]


def test_markdown_escapes_equal_the_previews() -> None:
    """The export's fast Markdown filters give exactly what render/environment.py's filters give."""
    rng = random.Random(13)
    alphabet = string.printable + "é日`\\\u2028"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert md_line(text) == md_text(text)
        assert md_tick(text) == md_span(text)
        assert md_block(text, "py") == md_code(text, "py")


BAD = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "bad").glob("*.jsonl"))


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_damaged_files_export_or_fail_clearly(tmp_path: Path, cli: Any, path: Path) -> None:
    """Every damaged file either exports (all formats, the whole tree) or is refused with a named reason."""
    for fmt, branches in (("html", "all"), ("md", "all"), ("chat", "active")):
        out = tmp_path / f"out.{fmt}"
        run = cli("export", str(path), "--format", fmt, "--branches", branches, "-o", str(out))
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr.lower()
        if run.code == 0:
            assert out.exists()
        else:
            assert run.code == 2 and path.name in run.stderr and not out.exists()


@pytest.mark.parametrize("path", [CASES / "c010_summarymsgs.jsonl", CASES / "edge_images_mimes.jsonl",
                                  REALWORLD / "marcpadz__dexter-v3__pi-session.jsonl"], ids=lambda p: p.stem)
def test_the_page_is_self_contained(path: Path) -> None:
    """One file: no stylesheet, script, image, font or frame from anywhere else; images only as data: URLs."""
    page = "".join(export_session(load_session(str(path)), "html", ExportOptions(branches="all")))
    tags = re.findall(r"<[a-zA-Z][^<>]*>", page)
    assert not [t for t in tags if re.match(r"<(link|iframe|object|embed|base)\b", t)]
    # Links: only those of rendered assistant Markdown (markdown-it's checked targets, never followed with the
    # page's referrer) and the links to cut texts' sidecar files.
    links = [t for t in tags if re.match(r"<a\b", t)]
    assert all(re.fullmatch(r'<a href="[^"]*" rel="noopener noreferrer nofollow">', t)
               or re.fullmatch(r'<a class="full" href="[^"/]*">', t) for t in links), links
    assert not [t for t in links if re.search(r'href="\s*(javascript|vbscript|data|file):', t, re.I)]
    assert [t for t in tags if t.startswith("<script")] == [t for t in tags if t.startswith("<script nonce=")]
    assert len([t for t in tags if t.startswith("<script")]) == 1
    assert all(re.search(r' src="data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\r\n]*"', t)
               for t in tags if " src=" in t)
    assert "url(" not in page.split("</style>", 1)[0] and "@import" not in page
    assert "default-src 'none'" in page


HOSTILE = Path(__file__).resolve().parents[1] / "data" / "export" / "hostile.jsonl"


@pytest.mark.parametrize("branches", ["active", "all"])
def test_markdown_renders_inert_in_a_commonmark_renderer(branches: str) -> None:
    """The Markdown transcript of hostile text, rendered by markdown-it (CommonMark, raw HTML allowed), holds no
    element from the session: no script, image, link, iframe or event handler, only the page's own markup."""
    markdown_it = pytest.importorskip("markdown_it")
    text = "".join(export_session(load_session(str(HOSTILE)), "md", ExportOptions(branches=branches)))
    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).render(text)
    tags = {re.match(r"</?([a-zA-Z0-9]+)", t).group(1).lower() for t in re.findall(r"</?[a-zA-Z][^<>]*>", rendered)}
    assert tags <= {"h1", "h3", "h4", "p", "ul", "li", "em", "strong", "code", "pre", "hr", "br", "blockquote"}
    assert "<script" not in rendered and "<a " not in rendered and "<img" not in rendered
    assert "&lt;script&gt;document.body.setAttribute" in rendered
    assert "[click me](javascript:" in rendered  # shown as text, never a link


def test_prose_keeps_code_spans_and_nothing_else() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    from pi_tools.export.templating import md_prose

    text = ("Set `min-width: 0` and ``a`b``, <img src=x onerror=alert(1)> and `<script>alert(1)</script>` "
            "[x](javascript:alert(1))\na lone ` <b>here</b>\n# not a heading `x`\n1. not a list")
    prose = str(md_prose(text))
    assert "`min-width: 0`" in prose and "``a`b``" in prose
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).render(prose)
    assert "<code>min-width: 0</code>" in html and "<code>a`b</code>" in html
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in html
    assert "a lone ` &lt;b&gt;here&lt;/b&gt;" in html  # an unmatched backtick is text
    assert "<img" not in html and "<a " not in html and "<b>" not in html and "<h1" not in html and "<ol" not in html
