"""`pi-tools search --pi 1.6`: system messages are searched by their text, prompt sections and tools; hits carry
`pi`; exact documents for sessions of tests/data/pi16 and ../shared/conformance16."""

from __future__ import annotations

from typing import Any

import pytest

from support.oracle_path import CONFORMANCE16

E06 = "tests/data/pi16/cases/e06_comp_sys.jsonl"


def test_a_prompt_section_is_found_in_its_system_message(cli: Any) -> None:
    run = cli("search", "--pi", "1.6", "--format", "json", "A2", E06)
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == ('{"kind":"hit","source":"' + E06 + '","pi":"1.6","line":5,"entryId":"s2","role":"system",'
                          '"branch":"active","text":"A2"}\n')


def test_under_085_a_system_message_has_no_sections_to_search(cli: Any) -> None:
    run = cli("search", "--format", "json", "A2", E06, env={"PI_TOOLS_PI": ""})
    assert (run.code, run.stdout) == (1, "")
    assert cli("search", "--pi", "0.85", "--format", "json", "A2", E06).stdout == ""


def test_tools_added_and_removed_are_found_by_name(cli: Any) -> None:
    case = CONFORMANCE16 / "cases" / "gen16_edits.jsonl"
    if not case.is_file():
        pytest.skip(f"{case} is not there (../shared/conformance16)")
    run = cli("search", "--pi", "1.6", "--role", "system", "--format", "json", "bash", str(case))
    assert [(hit["line"], hit["entryId"], hit["role"], hit["text"]) for hit in run.documents()] == \
        [(3, "3cdf9db3", "system", "bash"), (10, "cdca5e6b", "system", "bash")]


def test_the_index_is_still_085s(cli: Any) -> None:
    run = cli("search", "--pi", "1.6", "x", "--index", "nowhere")
    assert (run.code, run.stderr) == (2, "pi-tools: pi-tools search --index does not reproduce Pi 1.6 yet; "
                                         "pass --pi 0.85\n")
