"""`pi-tools visibility --pi 1.6`: what Pi 1.6's context edits, system messages, usage entries and compactions do
to each entry, as exact documents and tables (sessions of tests/data/pi16)."""

from __future__ import annotations

from typing import Any

import pytest

from support.oracle_path import CONFORMANCE16

CASES = "tests/data/pi16/cases"
E05 = f"{CASES}/e05_comp_edits.jsonl"


def _row(entry_id: str, line: int, kind: str, role: str | None, context: bool, model: bool, tui: bool,
         reasons: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"kind": "visibility", "source": E05, "pi": "1.6", "entryId": entry_id, "line": line, "type": kind,
            "role": role, "stored": True, "context": context, "model": model, "tui": tui, "reasons": reasons,
            **extra}


def _all(reason: str) -> dict[str, str]:
    return {"context": reason, "model": reason, "tui": reason}


def test_edits_say_what_they_did_and_what_the_model_got_instead(cli: Any) -> None:
    """The latest edit inside the compaction's range wins: a replacement names its edit and the content sent, a
    null one removes the entry from the context (Pi's TUI still draws it); edits outside the range, of a
    compaction or of a summarised entry do nothing, and their rows say so."""
    run = cli("visibility", "--pi", "1.6", "--format", "json", E05)
    assert run.code == 0 and run.stderr == (
        f"pi-tools: {E05}: model column as sent through anthropic-messages, the API of anthropic/claude-sonnet-4-5, "
        "the session's current model; --api chooses another\n")
    edit = "context-edit-entry"
    assert [{key: value for key, value in row.items() if key != "api"} for row in run.documents()] == [
        _row("u1", 2, "message", "user", False, False, False, _all("compacted-away")),
        _row("a1", 3, "message", "assistant", False, False, False, _all("compacted-away")),
        _row("x0", 4, "context_edit", None, False, False, False, _all("compacted-away"),
             edit={"target": "u2", "action": "replaces", "applied": False}),
        _row("u2", 5, "message", "user", True, True, True, {}),
        _row("a2", 6, "message", "assistant", True, True, True, {},
             edit={"by": "x1", "line": 7, "action": "replaced",
                   "content": [{"type": "text", "text": "edit in kept range"}]}),
        _row("x1", 7, "context_edit", None, False, False, False, _all(edit),
             edit={"target": "a2", "action": "replaces", "applied": True}),
        _row("u3", 8, "message", "user", False, False, True,
             {"context": "removed-by-context-edit", "model": "removed-by-context-edit"},
             edit={"by": "x3", "line": 11, "action": "removed"}),
        _row("k1", 9, "compaction", None, True, True, True, {}),
        _row("x2", 10, "context_edit", None, False, False, False, _all(edit),
             edit={"target": "u1", "action": "replaces", "applied": False}),
        _row("x3", 11, "context_edit", None, False, False, False, _all(edit),
             edit={"target": "u3", "action": "removes", "applied": True}),
        _row("u4", 12, "message", "user", True, True, True, {}),
        _row("x4", 13, "context_edit", None, False, False, False, _all(edit),
             edit={"target": "k1", "action": "replaces", "applied": False}),
    ]
    # the key order of a document: "pi" after "source", as the context documents carry it
    assert run.stdout.splitlines()[0].startswith('{"kind":"visibility","source":"' + E05 + '","pi":"1.6","entryId"')


def test_the_table_names_the_edit_and_what_was_sent(cli: Any) -> None:
    run = cli("visibility", "--pi", "1.6", "--width", "130", f"{CASES}/e03_multi.jsonl", f"{CASES}/e06_comp_sys.jsonl",
              f"{CASES}/e10_old_comp.jsonl")
    assert run.code == 0
    assert run.stdout == f"""\
==> {CASES}/e03_multi.jsonl <==
line  id  type/role          context  model  tui  why not                     text
2     u1  message/user       yes      yes    yes  replaced by x4              user: q1 ⇒ sent: restored
3     a1  message/assistant  no       no     yes  removed-by-context-edit x2  assistant: r1
4     x1  context_edit       no       no     no   context-edit-entry          [context replace: a1]
5     x2  context_edit       no       no     no   context-edit-entry          [context omit: a1]
6     x3  context_edit       no       no     no   context-edit-entry          [context omit: u1]
7     x4  context_edit       no       no     no   context-edit-entry          [context replace: u1]
8     x5  context_edit       no       no     no   context-edit-entry          [context replace: u9]
9     u9  message/user       yes      yes    yes  replaced by x5              user: q9 ⇒ sent: early
10    g1  usage              no       no     no   usage-entry                 [usage cache_warm anthropic/claude-sonnet-4-5]
==> {CASES}/e06_comp_sys.jsonl <==
line  id  type/role          context  model  tui  why not                   text
2     s1  message/system     no       no     no   compacted-away            system: [sections: a]
3     u1  message/user       yes      yes    yes                            user: q1
4     a1  message/assistant  yes      yes    yes                            assistant: r1
5     s2  message/system     no       no     no   superseded-by-compaction  system: [sections: a]
6     u2  message/user       yes      yes    yes                            user: q2
7     a2  message/assistant  yes      yes    yes                            assistant: r2
8     k1  compaction         yes      yes    yes                            [compaction] SUM [with system: [sections: preamble]]
9     s3  message/system     yes      yes    no   system-message            system: [sections: b]
10    u3  message/user       yes      yes    yes                            user: q3
==> {CASES}/e10_old_comp.jsonl <==
line  id  type/role          context  model  tui  why not           text
2     u1  message/user       no       no     no   compacted-away    user: q1
3     a1  message/assistant  yes      yes    yes                    assistant: r1
4     k1  compaction         no       no     yes  older-compaction  [compaction] OLD [with system: [sections: preamble]]
5     u2  message/user       yes      yes    yes                    user: q2
6     a2  message/assistant  yes      yes    yes                    assistant: r2
7     k2  compaction         yes      yes    yes                    [compaction] NEW
8     u3  message/user       yes      yes    yes                    user: q3
"""


def test_085_reads_the_same_file_as_it_always_did(cli: Any) -> None:
    """Under 0.85 (--pi or PI_TOOLS_PI) 1.6's entries are unknown, system messages an unknown role, no edit
    applies; the rows name the version."""
    default = cli("visibility", "--format", "json", E05, env={"PI_TOOLS_PI": "0.85"})
    assert cli("visibility", "--pi", "0.85", "--format", "json", E05).stdout == default.stdout
    rows = default.documents()
    assert all(row["pi"] == "0.85" and "edit" not in row for row in rows)
    assert {row["reasons"].get("context") for row in rows if row["type"] == "context_edit"} == \
        {"compacted-away", "unknown-entry-type"}
    assert [(row["entryId"], row["context"]) for row in rows if row["role"] == "user"] == \
        [("u1", False), ("u2", True), ("u3", True), ("u4", True)]
    system = cli("visibility", "--pi", "0.85", "--format", "json", f"{CASES}/e06_comp_sys.jsonl")
    assert [row["reasons"] for row in system.documents() if row["entryId"] in ("s2", "s3")] == \
        [{"model": "unknown-role", "tui": "unknown-role"}] * 2


def test_the_16_session_pi_wrote_sends_its_system_message_and_does_not_draw_it(cli: Any) -> None:
    case = CONFORMANCE16 / "cases" / "gen16_new.jsonl"
    if not case.is_file():
        pytest.skip(f"{case} is not there (../shared/conformance16)")
    run = cli("visibility", "--pi", "1.6", "--format", "json", str(case))
    (system,) = [row for row in run.documents() if row["role"] == "system"]
    assert (system["context"], system["model"], system["tui"], system["reasons"]) == \
        (True, True, False, {"tui": "system-message"})


def test_an_edit_pi_throws_on_is_an_error_of_that_file(cli: Any) -> None:
    run = cli("visibility", "--pi", "1.6", f"{CASES}/e12_repl_missing.jsonl", f"{CASES}/e06_comp_sys.jsonl")
    assert run.code == 2
    assert run.stderr == (f"pi-tools: {CASES}/e12_repl_missing.jsonl: Cannot read properties of undefined "
                          "(reading 'content')\n"
                          f"pi-tools: {CASES}/e06_comp_sys.jsonl: model column as sent through anthropic-messages, "
                          "the API of anthropic/claude-sonnet-4-5, the session's current model; --api chooses "
                          "another\n")
