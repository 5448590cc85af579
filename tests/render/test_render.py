"""`pi-tools render`: payload mapping against the goldens, the named changes, escaping, both formats, the CLI."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pipeline.stages import OFFLINE_API_KEY
from pi_tools.providers.catalog import find_model
from pi_tools.providers.table import items_key
from pi_tools.providers.transform_trace import transformed_messages
from pi_tools.render import RenderRequest, Target, TargetError, build_preview, pair_targets, render_view
from pi_tools.render.environment import md_code, md_text
from pi_tools.render.payload_map import map_payload
from pi_tools.render.preview import display_json
from pi_tools.session import load_session

from support.golden import CASES, case_names, expected

DATA = Path(__file__).resolve().parents[1] / "data" / "render"
HOSTILE = DATA / "hostile.jsonl"
ALL_APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
            "mistral-conversations", "bedrock-converse-stream"]
INJECTIONS = ("<script>", "<img src=x onerror", "<svg onload", "<iframe srcdoc", "<a href=\"javascript:",
              "</pre></details></td></tr></table>")


# --- mapping payload items back to messages, checked on every golden payload ----------------------------------


def _result_id(api: str, fragment: Any) -> Any:
    if api == "anthropic-messages":
        return fragment["tool_use_id"]
    if api == "openai-completions":
        return fragment["tool_call_id"]
    if api == "openai-responses":
        return fragment["call_id"]
    if api == "mistral-conversations":
        return fragment["toolCallId"]
    if api == "bedrock-converse-stream":
        return fragment["toolResult"]["toolUseId"]
    return fragment["functionResponse"]["name"]


def _expected_result_id(api: str, message: dict[str, Any]) -> Any:
    if api == "openai-responses":
        return message["toolCallId"].split("|")[0]
    if api in ("google-generative-ai", "google-vertex"):
        return message["toolName"]
    return message["toolCallId"]


@pytest.mark.parametrize("case", [name for name in case_names() if "error" not in expected(name)])
def test_payload_items_map_back_to_their_messages(case: str) -> None:
    """Every item of every golden payload is attributed to exactly one message (or the system prompt), no
    message that should be sent goes unlocated, and each tool result lands on the item carrying its id."""
    doc = expected(case)
    inputs = doc["inputs"]
    checked = 0
    for variant in ("payloads", "payloadsReasoning"):
        for key, entry in (doc.get(variant) or {}).items():
            if "payload" not in entry:
                continue
            api = key.split("@")[0]
            model = find_model(entry["model"])
            payload = entry["payload"]
            transformed = transformed_messages(api, model, doc["llm"])
            mapping = map_payload(api, payload, transformed, model, bool(inputs.get("systemPrompt")))
            label = items_key(api)
            assert mapping.unmatched == [], (case, key)
            assert [p.status for p in mapping.placements if p.status == "lost"] == [], (case, key)
            covered: list[int] = []
            for placement, message in zip(mapping.placements, transformed, strict=True):
                for where, value in placement.fragments + placement.extras:
                    match = re.match(re.escape(label) + r"\[(\d+)\]$", where)
                    if match:
                        covered.append(int(match.group(1)))
                        assert value is payload[label][int(match.group(1))]
                    else:
                        covered.append(int(re.match(re.escape(label) + r"\[(\d+)\]", where).group(1)))  # type: ignore[union-attr]
                if message.get("role") == "toolResult" and placement.status == "sent":
                    assert _result_id(api, placement.fragments[0][1]) == _expected_result_id(api, message), (case, key)
            for where, _ in mapping.system:
                match = re.match(re.escape(label) + r"\[(\d+)\]$", where)
                if match:
                    covered.append(int(match.group(1)))
            assert sorted(set(covered)) == list(range(len(payload[label]))), (case, key)
            checked += 1
    assert checked > 0


# --- the named changes on real sessions -----------------------------------------------------------------------


def _codes(cell: dict[str, Any]) -> list[str]:
    return [n["code"] for n in cell["notes"]]


def _row(view: dict[str, Any], entry_id: str) -> dict[str, Any]:
    return next(r for r in view["rows"] if r["entryId"] == entry_id)


@pytest.fixture(scope="module")
def c004_view() -> dict[str, Any]:
    inputs = expected("c004_crossprovider")["inputs"]
    tree = load_session(CASES / "c004_crossprovider.jsonl")
    targets = pair_targets(["anthropic-messages", "mistral-conversations", "openai-responses"],
                           ["anthropic/claude-sonnet-4-5"])
    return build_preview(tree, RenderRequest(targets, system_prompt=inputs["systemPrompt"], tools=inputs["tools"]))


def test_cross_provider_thinking_becomes_text_and_loses_its_signature(c004_view: dict[str, Any]) -> None:
    row = _row(c004_view, "5c17a409")  # deepseek thinking (signature "reasoning_content") + tool call
    thinking = "The stack trace points at line 37. The timeout is probably from the retry loop not clearing its timer."
    for cell in row["cells"]:
        assert "thinking-to-text" in _codes(cell) and "signature-dropped" in _codes(cell)
        assert any("deepseek/deepseek-v4-flash" in n["detail"] for n in cell["notes"])
    anthropic = row["cells"][0]
    assert anthropic["fragments"][0]["label"] == "messages[1]"
    assert '"type": "text",\n      "text": "' + thinking + '"' in anthropic["fragments"][0]["json"]
    assert '"signature"' not in anthropic["fragments"][0]["json"]


def test_cross_provider_tool_call_ids_renamed_where_the_api_requires(c004_view: dict[str, Any]) -> None:
    call, result = _row(c004_view, "5c17a409"), _row(c004_view, "9be3c1b8")
    anthropic_call, mistral_call = call["cells"][0], call["cells"][1]
    assert "tool-call-id-renamed" not in _codes(anthropic_call)  # already valid for Anthropic
    renamed = [n["detail"] for n in mistral_call["notes"] if n["code"] == "tool-call-id-renamed"]
    assert renamed == ["call_01_oi3Kf0MYklk3GpMebElmsdk6 → 1r0i26keu (this API's id rules)"]
    assert '"id": "1r0i26keu"' in mistral_call["fragments"][0]["json"]
    result_notes = [n["detail"] for n in result["cells"][1]["notes"] if n["code"] == "tool-result-id-renamed"]
    assert result_notes == ["toolCallId call_01_oi3Kf0MYklk3GpMebElmsdk6 → 1r0i26keu to follow its renamed tool call"]
    assert '"toolCallId": "1r0i26keu"' in result["cells"][1]["fragments"][0]["json"]
    google_call = _row(c004_view, "52d217bb")["cells"][0]
    assert "signature-dropped" in _codes(google_call)
    assert any("thoughtSignature" in n["detail"] for n in google_call["notes"])


def test_synthetic_result_inserted_before_the_next_assistant(c004_view: dict[str, Any]) -> None:
    rows = c004_view["rows"]
    index = next(i for i, r in enumerate(rows) if r["kind"] == "synthetic")
    synthetic = rows[index]
    assert rows[index - 1]["entryId"] == "f60bd1f3" and rows[index + 1]["entryId"] == "8236f9e1"
    anthropic, mistral, _ = synthetic["cells"]
    assert "synthetic-result" in _codes(anthropic)
    assert "bash_1771359314362_6 (bash)" in anthropic["notes"][0]["detail"]
    # Anthropic groups the two stored results and the synthetic one into one user turn.
    assert anthropic["fragments"][0]["label"] == "messages[12].content[2]"
    assert "results-grouped" in _codes(anthropic)
    assert '"content": "No result provided"' in anthropic["fragments"][0]["json"]
    assert '"is_error": true' in anthropic["fragments"][0]["json"]
    assert "[tool error] No result provided" in mistral["fragments"][0]["json"]
    assert "error-prefixed" in _codes(mistral) and "error-prefixed" not in _codes(anthropic)


def test_max_tokens_clamp_is_explained_with_the_golden_value(c004_view: dict[str, Any]) -> None:
    golden = expected("c004_crossprovider")["payloadsReasoning"]["mistral-conversations"]["payload"]["maxTokens"]
    mistral = c004_view["targets"][1]
    clamp = [n for n in mistral["notes"] if n["code"] == "max-tokens-clamped"]
    assert len(clamp) == 1
    assert f"maxTokens = {golden}, below the model's maximum 262144" in clamp[0]["detail"]
    estimate = c004_view["session"]["estimate"]
    assert golden == 262144 - estimate - 4096
    anthropic = c004_view["targets"][0]
    assert [n["detail"] for n in anthropic["notes"] if n["code"] == "max-tokens"] == [
        "max_tokens = 64000 (the model's maximum 64000)"]


def test_errored_turns_are_skipped_and_images_downgraded_for_text_only_models() -> None:
    tree = load_session(CASES / "c005_errors.jsonl")
    view = build_preview(tree, RenderRequest(pair_targets(["anthropic-messages", "openai-completions"], [])))
    llm = expected("c005_errors")["llm"]
    errored = [m for m in llm if m.get("role") == "assistant" and m.get("stopReason") in ("error", "aborted")]
    assert errored
    skipped_rows = [r for r in view["rows"] if r["kind"] == "message" and r["cells"][0]["state"] == "turn-skipped"]
    assert len(skipped_rows) == len(errored)
    for row in skipped_rows:
        for cell in row["cells"]:
            assert cell["fragments"] == [] and _codes(cell) == ["turn-skipped"]
    first = next(m for m in errored if m.get("errorMessage"))
    details = [n["detail"] for r in skipped_rows for n in r["cells"][0]["notes"]]
    assert any(first["errorMessage"][:60] in d for d in details)
    downgraded = [r for r in view["rows"] if "image-downgraded" in _codes(r["cells"][1])]
    assert downgraded and all("image-downgraded" not in _codes(r["cells"][0]) for r in downgraded)
    assert all("(image omitted: model does not support images)" in f["json"] or
               "(tool image omitted: model does not support images)" in f["json"] or
               "(see attached image)" in f["json"] for r in downgraded for f in r["cells"][1]["fragments"])


def test_custom_roles_summaries_and_block_images_are_named() -> None:
    view = build_preview(load_session(HOSTILE), RenderRequest([Target("anthropic-messages")], block_images=True))
    by_id = {r["entryId"]: r for r in view["rows"]}
    assert [n["code"] for n in by_id["u1"]["llm"]["notes"]] == ["images-blocked"]
    assert "Image reading is disabled." in by_id["u1"]["cells"][0]["fragments"][0]["json"]
    assert by_id["b1"]["llm"]["notes"][0]["code"] == "role-converted"
    assert by_id["b2"]["llm"]["state"] == "dropped"
    assert by_id["b2"]["llm"]["notes"][0]["label"] == "excluded from context"
    assert by_id["b2"]["cells"][0]["state"] == "dropped"
    assert by_id["c1"]["llm"]["notes"][0]["code"] == "role-converted"
    assert by_id["x1"]["llm"]["notes"][0]["label"] == "unknown role dropped"
    assert by_id["a2"]["cells"][0]["state"] == "turn-skipped"
    compaction = build_preview(load_session(CASES / "c003_compaction.jsonl"),
                               RenderRequest([Target("openai-responses")]))
    summary = compaction["rows"][0]
    assert summary["role"] == "compactionSummary"
    assert [n["code"] for n in summary["llm"]["notes"]] == ["summary-to-user"]
    assert "<summary>" in summary["llm"]["fragment"]["json"]


def test_payload_failure_is_shown_per_target() -> None:
    view = build_preview(load_session(CASES / "edge_openai_bad_signature.jsonl"),
                         RenderRequest(pair_targets(["openai-responses", "anthropic-messages"], [])))
    golden = expected("edge_openai_bad_signature")["payloads"]["openai-responses"]["error"]
    assert view["targets"][0]["error"] == golden
    assert view["targets"][1]["error"] is None
    assert all(r["cells"][0]["state"] in ("error", "turn-skipped", "dropped") for r in view["rows"])
    page = render_view(view, "html")
    assert "Pi fails to build this payload: " + golden.replace("'", "&#39;").replace('"', "&#34;") in page


# --- targets ---------------------------------------------------------------------------------------------------


def test_target_pairing() -> None:
    assert pair_targets(["anthropic-messages", "anthropic-messages"],
                        ["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-6"]) == [
        Target("anthropic-messages", "anthropic/claude-sonnet-4-5"),
        Target("anthropic-messages", "anthropic/claude-opus-4-6")]
    assert pair_targets(["openai-responses", "mistral-conversations"], ["mistral/magistral-medium-latest"]) == [
        Target("openai-responses"), Target("mistral-conversations", "mistral/magistral-medium-latest")]
    assert pair_targets([], ["google/gemini-3-flash-preview"]) == [
        Target("google-generative-ai", "google/gemini-3-flash-preview")]
    with pytest.raises(TargetError, match="speaks openai-responses, not anthropic-messages"):
        pair_targets(["anthropic-messages"], ["openai/gpt-5.1"])
    with pytest.raises(TargetError, match="unknown API"):
        pair_targets(["smoke-signals"], [])
    with pytest.raises(TargetError, match="nope/none"):
        pair_targets(["anthropic-messages"], ["nope/none"])


def test_default_models_session_or_representative() -> None:
    view = build_preview(load_session(CASES / "c004_crossprovider.jsonl"),
                         RenderRequest([Target(api) for api in ALL_APIS]))
    assert [(t["model"], t["why"].split(" ")[0]) for t in view["targets"]] == [
        ("anthropic/claude-opus-4-5", "the"),  # the session's current model speaks anthropic-messages
        ("groq/openai/gpt-oss-120b", "representative"),
        ("openai/gpt-5.1", "representative"),
        ("google/gemini-2.5-flash", "representative"),
        ("mistral/mistral-medium-latest", "representative"),
        ("amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "representative"),
    ]
    call = _row(view, "5c17a409")
    assert "ids-not-sent" in _codes(call["cells"][3])  # gemini-2.5 matches calls by name
    assert '"id"' not in call["cells"][3]["fragments"][0]["json"]
    assert all("ids-not-sent" not in _codes(cell) for i, cell in enumerate(call["cells"]) if i != 3)


# --- escaping --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_view() -> dict[str, Any]:
    targets = pair_targets(["anthropic-messages", "openai-responses", "openai-completions"], [])
    return build_preview(load_session(HOSTILE), RenderRequest(targets, system_prompt="sys <script>x</script>"))


def test_html_escapes_every_session_text(hostile_view: dict[str, Any]) -> None:
    page = render_view(hostile_view, "html")
    for raw in INJECTIONS:
        assert raw not in page
    assert page.count("<script") == 1  # the page's own
    nonce = re.search(r"script-src 'nonce-([A-Za-z0-9_-]+)'", page)
    assert nonce and f'<script nonce="{nonce.group(1)}">' in page
    assert "default-src 'none'" in page
    assert "&lt;script&gt;window.__pwned=1;document.body.setAttribute(&#39;data-pwned&#39;" in page
    assert "&lt;img src=x onerror=\\&#34;window.__pwned=1" in page
    assert 'class="role role-x&#34; onmouseover=&#34;' in page
    assert "hostile-&lt;b&gt;session&lt;/b&gt;" in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page


def test_markdown_escapes_text_and_fences_code_safely(hostile_view: dict[str, Any]) -> None:
    page = render_view(hostile_view, "md")
    # Outside fenced blocks no raw markup survives; inside, fences outlast every backtick run.
    outside: list[str] = []
    fence: str | None = None
    for line in page.split("\n"):
        opener = re.match(r"^(`{3,})", line)
        if fence is None and opener:
            fence = opener.group(1)
            continue
        if fence is not None:
            assert not re.match(r"^`{" + str(len(fence)) + r",}\s*$", line) or line.strip() == fence
            if line.strip() == fence:
                fence = None
            continue
        outside.append(line)
    assert fence is None
    text = "\n".join(outside)
    assert "<" not in text and ">" not in text.replace("\n> ", "\n").lstrip("> ")
    assert "hostile-&lt;b&gt;session&lt;/b&gt;" in text
    assert "&lt;script&gt;" in text
    assert "````json\n" in page or "`````json\n" in page  # the hostile text holds ``` and ````
    assert "\\*\\*" not in text.replace("\\*\\*\\*", "")


def test_markdown_filters() -> None:
    assert str(md_text("<b>x</b> & [l](javascript:x) *e* `c` |\n# h")) == \
        "&lt;b&gt;x&lt;/b&gt; &amp; \\[l\\](javascript:x) \\*e\\* \\`c\\` \\| # h"
    assert str(md_text("# title")) == "\\# title"
    assert str(md_text("1. item")) == "1\\. item"
    assert str(md_code("a ```` b")) == "`````\na ```` b\n`````"
    assert str(md_code("<script>", "json")) == "```json\n<script>\n```"


def test_display_json_shortens_opaque_data_and_escapes_lone_surrogates() -> None:
    shown = display_json({"type": "image", "data": "A" * 5000, "text": "B" * 5000, "bad": "\ud800x"})
    assert "AAAA… [5000 characters, shortened for display]" in shown
    assert "B" * 5000 in shown
    assert '"bad": "\\ud800x"' in shown


# --- formats and several APIs -----------------------------------------------------------------------------------


def test_html_and_markdown_show_every_api_side_by_side(c004_view: dict[str, Any]) -> None:
    html = render_view(c004_view, "html")
    for api, model in [("anthropic-messages", "anthropic/claude-sonnet-4-5"),
                       ("mistral-conversations", "mistral/mistral-medium-latest"),
                       ("openai-responses", "openai/gpt-5.1")]:
        assert f"<th>{api}<span class=\"model\">{model}</span></th>" in html
    assert html.count('<tr class="message">') == 21 and html.count('<tr class="synthetic">') == 1
    assert html.count("note-thinking-to-text") >= 3 and "note-synthetic-result" in html
    md = render_view(c004_view, "md")
    for page in (html, md):  # payloads are built offline: no key, not even the placeholder, is ever shown
        assert OFFLINE_API_KEY not in page and "apiKey" not in page
    assert md.count("#### anthropic\\-messages") == 0
    assert md.count("#### anthropic-messages (anthropic/claude-sonnet-4-5)") == 22
    assert md.count("#### mistral-conversations (mistral/mistral-medium-latest)") == 22
    assert "**thinking → text** (thinking-to-text)" in md
    assert "**max tokens clamped** (max-tokens-clamped): maxTokens = " in md


# --- the command -----------------------------------------------------------------------------------------------


def test_cli_renders_html_and_markdown(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    result = cli("render", str(HOSTILE), "--api", "anthropic-messages", "--api", "openai-responses",
                 "--system-prompt", "be brief", "--block-images", "-o", str(out))
    assert result.code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<script") == 1
    assert "Image reading is disabled." in page
    md_out = tmp_path / "page.md"
    result = cli("render", str(CASES / "c005_errors.jsonl"), "--model", "mistral/magistral-medium-latest",
                 "-o", str(md_out))
    assert result.code == 0, result.stderr
    md = md_out.read_text(encoding="utf-8")
    assert md.startswith("# Payload preview: ") and "errored turn skipped" in md
    assert "mistral/magistral-medium-latest" in md


def test_cli_several_files_go_to_a_directory(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "pages"
    result = cli("render", str(CASES / "c000_linear.jsonl"), str(CASES / "c001_tools.jsonl"),
                 "--api", "google-generative-ai", "--format", "md", "--reasoning", "high", "-o", str(out))
    assert result.code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["c000_linear.md", "c001_tools.md"]
    assert "reasoning high" in (out / "c001_tools.md").read_text(encoding="utf-8")


def test_cli_reports_bad_usage(cli: Any, tmp_path: Path) -> None:
    out = str(tmp_path / "x.html")
    bad_api = cli("render", str(HOSTILE), "--api", "telepathy", "-o", out)
    assert bad_api.code == 2 and "unknown API 'telepathy'" in bad_api.stderr and "Traceback" not in bad_api.stderr
    mismatch = cli("render", str(HOSTILE), "--api", "anthropic-messages", "--model", "openai/gpt-5.1", "-o", out)
    assert mismatch.code == 2 and "speaks openai-responses" in mismatch.stderr
    leaf = cli("render", str(HOSTILE), "--api", "anthropic-messages", "--leaf", "nope", "-o", out)
    assert leaf.code == 2 and "Entry nope not found" in leaf.stderr
    missing = cli("render", str(tmp_path / "missing.jsonl"), "--api", "anthropic-messages", "-o", out)
    assert missing.code == 2 and "missing.jsonl" in missing.stderr
    assert not Path(out).exists()


def test_cli_damaged_session_still_renders_to_stdout(cli: Any) -> None:
    damaged = Path(__file__).resolve().parents[2] / "fixtures" / "bad" / "wrong_field_types.jsonl"
    result = cli("render", str(damaged), "--api", "anthropic-messages", "--api", "openai-responses", "-o", "-")
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr and result.stdout.startswith("<!DOCTYPE html>")
    assert "Payload preview · " + str(damaged) in result.stdout and result.stdout.rstrip().endswith("</html>")
