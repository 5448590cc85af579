"""`pi-tools search --pi 1.6`: system messages are searched by their text, prompt sections and tools; hits carry
`pi`; exact documents for sessions of tests/data/pi16 and ../shared/conformance16; `--index` gives the hits the
files give (an index written under 1.6; one written under 0.85 is refused)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_tools.corpus.index import index_corpus
from pi_tools.corpus.match import Matcher
from pi_tools.corpus.search import SearchSpec, search_paths
from pi_tools.corpus.search_index import search_index
from pi_tools.engine import Engine
from pi_tools.pi import resolve

from support.oracle_path import CONFORMANCE16, GEN16

E06 = "tests/data/pi16/cases/e06_comp_sys.jsonl"


def test_a_prompt_section_is_found_in_its_system_message(cli: Any) -> None:
    run = cli("search", "--pi", "1.6", "--format", "json", "A2", E06)
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == ('{"kind":"hit","source":"' + E06 + '","pi":"1.6","line":5,"entryId":"s2","role":"system",'
                          '"branch":"active","text":"A2"}\n')


def test_under_085_a_system_message_has_no_sections_to_search(cli: Any) -> None:
    run = cli("search", "--pi", "0.85", "--format", "json", "A2", E06)
    assert (run.code, run.stdout) == (1, "")
    assert cli("search", "--format", "json", "A2", E06, env={"PI_TOOLS_PI": "0.85"}).stdout == ""


def test_tools_added_and_removed_are_found_by_name(cli: Any) -> None:
    case = CONFORMANCE16 / "cases" / "gen16_edits.jsonl"
    if not case.is_file():
        pytest.skip(f"{case} is not there (../shared/conformance16)")
    run = cli("search", "--pi", "1.6", "--role", "system", "--format", "json", "bash", str(case))
    assert [(hit["line"], hit["entryId"], hit["role"], hit["text"]) for hit in run.documents()] == \
        [(3, "3cdf9db3", "system", "bash"), (10, "cdca5e6b", "system", "bash")]


PATTERNS = ["A2", "bash", "You are", "<cwd>/tmp/y</cwd>", "q1", "edited", "SUM", "Run", "Read file", "ok"]
OPTIONS: list[dict[str, Any]] = [
    {}, {"ignore_case": True}, {"regex": True}, {"branch": "active"}, {"roles": frozenset({"system"})},
    {"roles": frozenset({"user", "system"})}, {"tool": "bash"},
]


@pytest.fixture(scope="module")
def corpus16(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str]:
    """The 1.6 edge cases, ../shared/conformance16's cases (gen16_* among them) and, where the generator is
    installed, a corpus it writes; and their index under 1.6."""
    paths = ["tests/data/pi16/cases"]
    if (CONFORMANCE16 / "cases").is_dir():
        paths.append(str(CONFORMANCE16 / "cases"))
    if GEN16.exists():
        generated = tmp_path_factory.mktemp("gen16")
        run = subprocess.run([str(GEN16), "--seed", "16", "--count", "20", "--out", str(generated)],
                             capture_output=True, timeout=300)
        if run.returncode == 0:
            paths.append(str(generated))
    out = tmp_path_factory.mktemp("index16") / "idx"
    index_corpus(paths, str(out), Engine(jobs=1), resolve("1.6"))
    return paths, str(out)


def _hits(results: Any) -> list[dict[str, Any]]:
    """The hits, by file and line; a hit whose text holds a lone surrogate left out: Parquet strings are UTF-8, so
    the index holds such a character as its escape's text (`\\ud83d`) under every version (edge_crlf_unicode)."""
    hits = (hit for found in results for hit in found.hits if not _lone_surrogate(hit["text"]))
    return sorted(hits, key=lambda hit: (hit["source"], hit["line"]))


def _lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text) or "\\ud8" in text or "\\udc" in text


@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: ",".join(options) or "plain")
def test_the_index_finds_what_the_files_give(corpus16: tuple[list[str], str], options: dict[str, Any]) -> None:
    """search --index under 1.6 gives the hits of the file search: system messages by their text, sections and
    the tools they add and remove, in the same order (the first match of each entry), with `pi`."""
    paths, out = corpus16
    found = 0
    for pattern in PATTERNS:
        spec = SearchSpec(Matcher(re.escape(pattern) if options.get("regex") else pattern,
                                  options.get("regex", False), options.get("ignore_case", False)),
                          options.get("roles"), options.get("tool"), options.get("branch", "all"), "1.6")
        expected = _hits(search_paths(paths, spec, Engine(jobs=1)))
        assert _hits(search_index(out, [], spec)) == expected, pattern
        found += len(expected)
    assert found > (3 if options.get("tool") else 20)


def test_system_hits_through_the_index(cli: Any, corpus16: tuple[list[str], str]) -> None:
    _, out = corpus16
    run = cli("search", "--pi", "1.6", "--format", "json", "A2", E06, "--index", out)
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == ('{"kind":"hit","source":"' + E06 + '","pi":"1.6","line":5,"entryId":"s2","role":"system",'
                          '"branch":"active","text":"A2"}\n')
    # under 0.85 the same index holds the same messages, searched by their text only (no `pi`)
    assert cli("search", "--pi", "0.85", "--format", "json", "A2", E06, "--index", out).code == 1
    assert cli("search", "--pi", "0.85", "--format", "json", "q1", E06, "--index", out).stdout == \
        cli("search", "--pi", "0.85", "--format", "json", "q1", E06).stdout


def test_an_index_written_for_085_is_refused_under_16(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "idx"
    assert cli("index", "--pi", "0.85", E06, "-o", str(out)).code == 0
    run = cli("search", "--pi", "1.6", "x", "--index", str(out))
    assert (run.code, run.stdout) == (2, "")
    assert run.stderr == (f"pi-tools: --index {out}: no system_sections table (system_sections/*.parquet) (it was "
                          f"written for another Pi version than 1.6); write one with pi-tools index --pi 1.6 "
                          f"PATH... -o {out}\n")
