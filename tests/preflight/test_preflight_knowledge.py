"""Provider knowledge: findings graded by what is known of the request's provider; --learn writes the table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tools.preflight.knowledge import grade

REALWORLD = Path(__file__).resolve().parents[2] / "fixtures" / "realworld"


def test_grade_by_provider() -> None:
    rule = "completions-tool-message-without-call"
    assert grade(rule, "error", "openai-completions", "openai/gpt-4o") == ("error", None)
    # DashScope: accepted 43 such requests (issue 26) and refused the shape in run-llama/llama_index#19224.
    assert grade(rule, "error", "openai-completions", "qwen-token-plan/qwen3-coder-plus") == (
        "warning", "(recorded both accepting and refusing this shape on qwen-token-plan: a warning, not an error; "
                   "see docs/preflight.md, Provider knowledge)")
    assert grade(rule, "warning", "openai-completions", "qwen-token-plan-cn/qwen3-coder-plus") == ("warning", None)
    assert grade(rule, "error", "openai-completions", "groq/openai/gpt-oss-120b") == (
        "warning", "(known to hold for openai; not known for groq, which speaks openai-completions: a warning, not "
                   "an error)")
    assert grade(rule, "error", "openai-completions", "openrouter/openai/gpt-4o") == ("error", None)
    assert grade("anthropic-tool-result-without-use", "error", "anthropic-messages", "zai/glm-5.2") == (None, None)
    assert grade("anthropic-tool-result-without-use", "error", "anthropic-messages", "anthropic/claude-sonnet-4-5") \
        == ("error", None)


def test_every_evidence_names_its_kind() -> None:
    from pi_tools.preflight.knowledge import load

    kinds = ("documented:", "recorded:", "from the issue:", "as ")
    for rule, entry in load().rules.items():
        for kind, providers in entry.items():
            for provider, evidence in providers.items():
                assert evidence.startswith(kinds), (rule, kind, provider)
    assert grade("context-window", "error", "openai-completions", "groq/openai/gpt-oss-120b") == ("error", None)


def test_unknown_provider_finding_is_a_warning_naming_the_reference(cli: Any, tmp_path: Path) -> None:
    from tests.preflight.test_preflight import ORPHAN, write_session

    session = write_session(tmp_path, ORPHAN)
    run = cli("preflight", "--format", "json", "--model", "groq/openai/gpt-oss-120b", session)
    assert run.code == 0
    assert [(f["rule"], f["severity"], f["message"], f["fix"]) for f in run.documents()] == [
        ("completions-tool-message-without-call", "warning",
         "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' "
         "(tool_call_id 'call_x'). (known to hold for openai; not known for groq, which speaks openai-completions: a warning, not an error)",
         "no repair: a result whose call is gone cannot be paired again; remove the result entry by hand, or branch "
         "from before it (--leaf)")]


def test_learn_writes_the_table_format_and_never_overwrites(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "learned.json"
    source = str(REALWORLD / "marcpadz__dexter-v3__pi-session.jsonl")
    run = cli("preflight", "--replay", "--learn", str(out), source)
    assert run.code == 1
    assert run.stderr == f"pi-tools: wrote what the providers accepted and refused to {out}\n"
    assert json.loads(out.read_text()) == {
        "about": "learned by pi-tools preflight --replay --learn; add with --knowledge FILE",
        "rules": {"google-thought-signature": {"holds": {
            "google-vertex": f"recorded verdict: {source} line 1040 (rejected)"}}}}
    again = cli("preflight", "--replay", "--learn", str(out), source)
    assert (again.code, again.stderr) == (2, f"pi-tools: --learn {out}: the file exists; name a new file\n")
    assert cli("preflight", "--learn", str(tmp_path / "x.json"), source).code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("[")
    refused = cli("preflight", "--knowledge", str(bad), source)
    assert refused.code == 2 and refused.stderr.startswith(f"pi-tools: --knowledge: {bad}: not JSON: ")


def test_learned_provider_accepting_and_refusing_a_shape_is_disputed() -> None:
    from pi_tools.preflight.knowledge import learned

    finding = {"rule": "completions-tool-message-without-call", "severity": "error"}
    docs = [{"source": "s.jsonl", "line": line, "model": "acme/m1", "outcome": outcome, "reproducible": True,
             "findings": [finding]} for line, outcome in ((4, "accepted"), (9, "rejected"))]
    assert learned(docs)["rules"] == {"completions-tool-message-without-call": {"disputed": {
        "acme": "recorded verdict: s.jsonl line 4 (accepted); recorded verdict: s.jsonl line 9 (rejected)"}}}
    assert learned(docs[:1])["rules"] == {"completions-tool-message-without-call": {"accepts": {
        "acme": "recorded verdict: s.jsonl line 4 (accepted)"}}}
