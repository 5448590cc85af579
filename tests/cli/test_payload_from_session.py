"""`pi-tools payload` without --api/--model (the session's model), --at/--last (the request behind a stored
answer), and the note when a request holds no system prompt or tools (issue 25, "What did my agent send?")."""

from __future__ import annotations

from typing import Any

from pi_tools.pipeline.stages import missing_parts_note

SMALL = "fixtures/corpus/small.jsonl"  # a1 and a3 answered by anthropic/claude-sonnet-4-5, a2 by openai/gpt-5
RECORDED = "tests/data/requests16/gen16_new.jsonl"  # Pi 1.6 wrote it: system messages with prompt and tools
NO_PROMPT = (f"pi-tools: {SMALL}: note: the request holds no system prompt and no tools: the session does not "
             "record them; pass --system-prompt pi (Pi's own) or --system-prompt TEXT and --tools-file FILE\n")


def test_the_sessions_model_and_its_api_when_none_is_given(cli: Any) -> None:
    run = cli("payload", SMALL)
    given = cli("payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5", SMALL)
    assert (run.code, given.code) == (0, 0)
    assert run.stdout == given.stdout
    assert run.documents()[0]["api"] == "anthropic-messages"
    assert run.stderr == (f"pi-tools: {SMALL}: built for anthropic/claude-sonnet-4-5 (anthropic-messages), the "
                          "session's current model; --model chooses another\n" + NO_PROMPT)
    assert given.stderr == NO_PROMPT  # a model given: nothing to say of it


def test_model_without_api_takes_the_models_api(cli: Any) -> None:
    run = cli("payload", "--model", "openai/gpt-5", SMALL)
    given = cli("payload", "--api", "openai-responses", "--model", "openai/gpt-5", SMALL)
    assert (run.code, run.stdout, run.stderr) == (0, given.stdout, NO_PROMPT)
    unknown = cli("payload", "--model", "foo/bar", SMALL)
    assert (unknown.code, unknown.stdout) == (2, "")
    assert unknown.stderr.startswith("pi-tools: --model: unknown provider 'foo'")


def test_a_session_that_records_no_model_says_what_to_pass(cli: Any) -> None:
    bare = "fixtures/bad/header_only.jsonl"
    run = cli("payload", bare)
    message = ("the session records no model (no assistant message or model change on its path names one); pass "
               "--api API and --model PROVIDER/ID")
    assert run.code == 2
    assert run.documents() == [{"kind": "error", "source": bare, "pi": "0.85", "error": message}]
    assert run.stderr == f"pi-tools: {bare}: {message}\n"
    with_api = cli("payload", "--api", "anthropic-messages", bare)
    assert with_api.code == 2
    assert with_api.documents()[0]["error"] == ("the session records no model (no assistant message or model "
                                                "change on its path names one); pass --model PROVIDER/ID")


def test_at_rebuilds_the_request_behind_a_stored_answer(cli: Any) -> None:
    """a2 (a branch from u1) answered with openai/gpt-5: its request is u1's context for that model, not the
    session's current model (a3's)."""
    run = cli("payload", "--at", "a2", SMALL)
    by_hand = cli("payload", "--leaf", "u1", "--api", "openai-responses", "--model", "openai/gpt-5", SMALL)
    assert (run.code, by_hand.code) == (0, 0)
    assert run.stdout == by_hand.stdout
    document = run.documents()[0]
    assert document["model"] == "openai/gpt-5"
    assert document["payload"]["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "Please clean the build folder."}]}]
    assert run.stderr == (f"pi-tools: {SMALL}: built for openai/gpt-5 (openai-responses), the model that answered "
                          "entry a2, line 6\n" + NO_PROMPT)


def test_last_is_at_the_active_paths_last_answer(cli: Any) -> None:
    last = cli("payload", "--last", SMALL)
    at = cli("payload", "--at", "a3", SMALL)
    assert (last.code, last.stdout, last.stderr) == (0, at.stdout, at.stderr)
    assert last.stderr.startswith(f"pi-tools: {SMALL}: built for anthropic/claude-sonnet-4-5 (anthropic-messages), "
                                  "the model that answered entry a3, line 8\n")
    assert last.documents()[0]["payload"]["messages"][-1]["role"] == "user"  # a3's own answer is not in it


def test_at_errors_name_the_file_line_and_problem(cli: Any) -> None:
    user = cli("payload", "--at", "u1", SMALL)
    assert user.code == 2
    assert user.stderr == (f"pi-tools: {SMALL}:3: --at u1: the entry is a user message, not an assistant message "
                           "(only an answer was produced by a request)\n")
    missing = cli("payload", "--at", "zz", SMALL)
    assert (missing.code, missing.stderr) == (2, f"pi-tools: {SMALL}: --at zz: no entry with that id\n")
    nothing = cli("payload", "--last", "fixtures/bad/header_only.jsonl")
    assert (nothing.code, nothing.stderr) == (
        2, "pi-tools: fixtures/bad/header_only.jsonl: --last: the active path holds no assistant message\n")
    both = cli("payload", "--at", "a1", "--last", SMALL)
    assert (both.code, both.stdout, both.stderr) == (
        2, "", "pi-tools: --at and --last: give one (--last is --at the last assistant message)\n")
    api = cli("payload", "--last", "--api", "anthropic-messages", SMALL)
    assert (api.code, api.stdout, api.stderr) == (
        2, "", "pi-tools: --last and --api: --last rebuilds the stored request with the message's own model, API "
               "and context; leave out --api\n")
    context = cli("context", SMALL).stdout.encode()
    piped = cli("payload", "--last", stdin=context)
    assert piped.code == 2
    assert piped.stderr == (f"pi-tools: {SMALL}: --last needs a session file, not a stage document (a document "
                            "holds no stored answers)\n")
    assert "Traceback" not in user.stderr + missing.stderr + piped.stderr


def test_a_transcript_that_records_prompt_and_tools_gets_no_note(cli: Any) -> None:
    run = cli("payload", "--pi", "1.6", "--last", RECORDED)
    assert run.code == 0
    assert run.stderr == (f"pi-tools: {RECORDED}: built for anthropic/claude-sonnet-4-5 (anthropic-messages), the "
                          "model that answered entry 989459fc, line 13\n")
    assert run.documents()[0]["payload"]["system"]  # the recorded prompt is sent


def test_several_files_note_each(cli: Any) -> None:
    run = cli("payload", SMALL, "fixtures/conformance/cases/c000_linear.jsonl")
    assert run.code == 0
    assert run.stderr.count(" note: the request holds no system prompt and no tools") == 2
    assert run.stderr.count("the session's current model; --model chooses another") == 2


def test_the_note_names_what_is_missing() -> None:
    tool = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
    assert missing_parts_note({"systemPrompt": "Be brief.", "tools": [tool], "messages": []}) is None
    assert missing_parts_note({"systemPrompt": "Be brief.", "messages": []}) == (
        "the request holds no tools: the session does not record them; pass --tools-file FILE")
    assert missing_parts_note({"systemPrompt": None, "tools": [tool], "messages": []}) == (
        "the request holds no system prompt: the session does not record it; pass --system-prompt TEXT (or pi: "
        "Pi's own)")
    recorded = [{"role": "system", "content": "Be brief.", "toolsAdded": [tool]}, {"role": "user", "content": "hi"}]
    assert missing_parts_note({"systemPrompt": None, "messages": recorded}) is None


def test_render_previews_the_sessions_model_when_none_is_given(cli: Any) -> None:
    run = cli("render", SMALL, "--format", "md", "-o", "-")
    given = cli("render", SMALL, "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5",
                "--format", "md", "-o", "-")
    assert (run.code, run.stdout) == (0, given.stdout)
    assert run.stderr == (f"pi-tools: {SMALL}: previewed for anthropic/claude-sonnet-4-5 (anthropic-messages), the "
                          "session's current model; --api/--model choose others\n")
    bare = "fixtures/bad/header_only.jsonl"
    none = cli("render", bare, "--format", "md", "-o", "-")
    assert (none.code, none.stdout) == (2, "")
    assert none.stderr == (f"pi-tools: {bare}: the session records no model (no assistant message or model change "
                           "on its path names one); pass --api API and --model PROVIDER/ID\n")
