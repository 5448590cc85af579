"""`pi-tools payload` usage errors: exact messages, exit 2, no traceback."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.providers.registry import builds
from pi_tools.providers.table import representative_models

CASE = "fixtures/conformance/cases/c001_tools.jsonl"


def test_session_model_of_another_api_is_an_error_document(cli: Any) -> None:
    run = cli("payload", "--api", "anthropic-messages", CASE)
    assert run.code == 2
    assert run.documents() == [{
        "kind": "error", "source": CASE, "pi": "0.85",
        "error": "model mistral/mistral-medium-latest speaks mistral-conversations, not anthropic-messages; pass "
                 "--model with a model of that API (see pi-tools models --api anthropic-messages)",
    }]
    assert run.stderr.startswith(f"pi-tools: {CASE}: model mistral/mistral-medium-latest speaks")


def test_bad_model_and_api_are_usage_errors(cli: Any) -> None:
    wrong_api = cli("payload", "--api", "anthropic-messages", "--model", "openai/gpt-5.1", CASE)
    assert (wrong_api.code, wrong_api.stdout) == (2, "")
    assert wrong_api.stderr == "pi-tools: --model openai/gpt-5.1 speaks openai-responses, not anthropic-messages\n"
    unknown = cli("payload", "--api", "anthropic-messages", "--model", "foo/bar", CASE)
    assert unknown.code == 2 and unknown.stderr.startswith("pi-tools: --model: unknown provider 'foo'")
    no_api = cli("payload", "--api", "nope", CASE)
    assert no_api.code == 2 and no_api.stderr.startswith("pi-tools: --api: unknown API 'nope' (choose from ")
    assert "Traceback" not in wrong_api.stderr + unknown.stderr + no_api.stderr


def test_tools_file_must_be_a_list_of_tools(cli: Any, tmp_path: Any) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text('{"name": "x"}')
    run = cli("payload", "--api", "mistral-conversations", "--tools", str(tools), CASE)
    assert run.code == 2
    assert run.stderr == (f"pi-tools: --tools {tools}: expected a JSON array of "
                          "{name, description, parameters} objects\n")


@pytest.mark.parametrize(("api", "model"), sorted((api, model) for api, model in representative_models().items()
                                                   if builds(api)))  # the APIs Pi 0.85 has
def test_content_that_is_not_a_list_fails_as_pi_fails(cli: Any, api: str, model: str) -> None:
    """A user message whose content is a number: Pi 0.85's context estimate throws for every API (oracle)."""
    bad = "fixtures/bad/wrong_field_types.jsonl"
    run = cli("payload", "--api", api, "--model", model, bad)
    assert run.code == 2
    assert run.documents() == [{"kind": "error", "source": bad, "pi": "0.85", "api": api, "model": model,
                                "error": "content is not iterable"}]
