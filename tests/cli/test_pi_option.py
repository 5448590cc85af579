"""--pi / PI_TOOLS_PI: one option for every command that reads sessions or builds requests (pi_tools.cli.options),
the versions of pi_tools.pi, and the commands that do not build Pi 1.6 requests yet refusing it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest

from pi_tools import pi
from pi_tools.cli import options

CASE = "fixtures/conformance/cases/c001_tools.jsonl"
SYSTEM = "tests/data/pi16/cases/e06_comp_sys.jsonl"
def test_the_option_offers_the_versions_of_the_pi_room() -> None:
    assert get_args(options.PiName) == pi.NAMES  # the one copy of the names outside pi_tools/pi
    assert pi.DEFAULT in pi.NAMES
    for name in pi.NAMES:
        version = pi.get(name)
        assert version.name == name and version.context is not None


def test_resolve_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pi.ENVIRONMENT, raising=False)
    assert pi.resolve().name == pi.DEFAULT
    monkeypatch.setenv(pi.ENVIRONMENT, "1.6")
    assert pi.resolve().name == "1.6"
    assert pi.resolve("0.85").name == "0.85"
    with pytest.raises(pi.UnknownPiVersion):
        pi.resolve("2.0")


@pytest.mark.parametrize("args", [
    ["preflight", "--format", "json", CASE],
    ["render", CASE, "--api", "anthropic-messages", "-o", "-", "--format", "md"],
    ["visibility", CASE, "--api", "anthropic-messages", "--format", "json"],
], ids=lambda args: args[0])
def test_request_building_commands_build_pi_16_requests(cli: Any, args: list[str]) -> None:
    """preflight, render and visibility --api build Pi 1.6's requests (--pi or PI_TOOLS_PI), the same either way."""
    assert pi.get("1.6").request_commands is None  # every request command builds 1.6's
    chosen = cli(*args[:1], "--pi", "1.6", *args[1:])
    assert chosen.code in (0, 1) and chosen.stderr == ""
    by_environment = cli(*args, env={"PI_TOOLS_PI": "1.6"})
    assert (by_environment.code, by_environment.stdout) == (chosen.code, chosen.stdout)


def test_run_runs_pi_16(cli: Any, tmp_path: Any) -> None:
    """`run` builds Pi 1.6 requests (and writes its sessions) under --pi 1.6 or PI_TOOLS_PI=1.6."""
    for given, env in ((["--pi", "1.6"], None), ([], {"PI_TOOLS_PI": "1.6"})):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        script = tmp_path / "empty.json"
        script.write_text('{"responses": []}')
        ran = cli("run", *given, "--session-dir", str(folder), "--tools", "none", "--max-turns", "1",
                  "--faux-script", str(script), "hello", env=env)
        assert ran.code == 1 and ran.stderr == ""  # the empty faux queue answers with an error message
        (session,) = folder.iterdir()
        roles = [line.split('"role":"')[1].split('"')[0] for line in session.read_text().splitlines()
                 if '"role":"' in line]
        assert roles == ["user", "assistant"]


def test_payload_builds_pi_16_requests_per_api(cli: Any) -> None:
    """`payload` builds Pi 1.6 requests for the APIs whose folder has a 1.6 adapter, and names the others."""
    from pi_tools.providers.catalog import all_models
    from pi_tools.providers.registry import builds
    from pi_tools.providers.table import api_names

    edition = pi.get("1.6").requests
    speakers = {}
    for model in all_models(catalog=edition.catalog):
        speakers.setdefault(model["api"], f"{model['provider']}/{model['id']}")
    unbuilt = [api for api in api_names() if not builds(api, edition) and api in speakers]
    for api in unbuilt:
        run = cli("payload", "--pi", "1.6", "--api", api, "--model", speakers[api], CASE)
        assert run.code == 2
        assert run.documents()[0]["error"] == f"pi-tools does not build {api} requests for this Pi version yet"


def test_visibility_reads_as_the_version_it_is_given(cli: Any) -> None:
    as_16 = cli("visibility", "--pi", "1.6", "--format", "json", SYSTEM)
    assert as_16.code == 0 and {row["pi"] for row in as_16.documents()} == {"1.6"}
    assert [row["reasons"] for row in as_16.documents() if row["role"] == "system"][-1] == {"tui": "system-message"}
    as_085 = cli("visibility", "--pi", "0.85", "--format", "json", SYSTEM)
    assert as_085.code == 0 and {row["pi"] for row in as_085.documents()} == {"0.85"}


def test_a_version_pi_tools_does_not_reproduce_is_refused(cli: Any) -> None:
    refused = cli("context", "--pi", "2.0", CASE)
    assert (refused.code, refused.stdout) == (2, "")
    assert refused.stderr == "pi-tools: --pi: pi-tools reproduces Pi 0.85 or 1.6, not '2.0'\n"
    assert cli("context", CASE, env={"PI_TOOLS_PI": "2.0"}).code == 2


def test_documents_name_their_version(cli: Any) -> None:
    default = cli("context", CASE, env={"PI_TOOLS_PI": ""})  # empty: no choice, the newest
    chosen = cli("context", "--pi", "1.6", CASE)
    assert default.stdout == chosen.stdout
    (document,) = cli("context", "--pi", "0.85", CASE).documents()
    assert document["pi"] == "0.85"
    assert list(document)[:3] == ["kind", "source", "pi"]
    by_environment = cli("convert", SYSTEM, env={"PI_TOOLS_PI": "1.6"})
    (llm,) = by_environment.documents()
    assert llm["pi"] == "1.6" and [m["role"] for m in llm["messages"]][0] == "system"


def test_tree_shows_16s_entries_without_calling_them_unknown(cli: Any) -> None:
    case = "tests/data/pi16/cases/e03_multi.jsonl"
    as_16 = cli("tree", "--pi", "1.6", case)
    assert as_16.code == 0 and "[context omit:" in as_16.stdout and "[usage cache_warm" in as_16.stdout
    assert "unknown-entry-type" not in as_16.stdout
    assert "unknown-entry-type" in cli("tree", "--pi", "0.85", case).stdout


def test_index_and_search_index_read_16(cli: Any, tmp_path: Any) -> None:
    """Every command reads Pi 1.6 now: index writes 1.6's tables, search --index searches them (tests/corpus:
    test_index16.py, test_search16.py); by --pi or PI_TOOLS_PI alike."""
    out = tmp_path / "idx"
    indexed = cli("index", SYSTEM, "-o", str(out), "--pi", "1.6")
    assert (indexed.code, indexed.stdout) == (0, "") and "system_sections" in indexed.stderr
    searched = cli("search", "--format", "json", "x", "--index", str(out), "--pi", "1.6")
    assert searched.code in (0, 1) and searched.stderr == ""
    assert cli("index", SYSTEM, "-o", str(tmp_path / "env"), env={"PI_TOOLS_PI": "1.6"}).code == 0
    assert cli("search", "x", "--index", str(tmp_path / "env"), env={"PI_TOOLS_PI": "1.6"}).code in (0, 1)


def test_transform_reads_as_the_version_it_is_given(cli: Any) -> None:
    run = cli("transform", "--pi", "1.6", "--drop-role", "user", SYSTEM)
    (document,) = run.documents()
    assert document["pi"] == "1.6" and document["messages"][0]["role"] == "system"


@pytest.mark.parametrize("args", [
    ["repair", SYSTEM, "--dry-run"], ["slim", SYSTEM, "--dry-run", "--max-image-kb", "1"],
    ["scrub", SYSTEM, "--dry-run"], ["transform", SYSTEM, "--to-session", "out.jsonl", "--dry-run", "--redact", "x"],
], ids=lambda args: args[0])
def test_rewriting_commands_read_16(cli: Any, args: list[str]) -> None:
    """repair, slim, scrub and transform --to-session rewrite Pi 1.6 files (tests/rewrite/test_rewrite16.py); the
    file needs no repair, which repair says with its own status (3: nothing written)."""
    expected = 3 if args[0] == "repair" else 0
    assert cli(*args, "--pi", "1.6").code == expected
    assert cli(*args, env={"PI_TOOLS_PI": "1.6"}).code == expected


def test_without_a_choice_every_command_reproduces_the_newest_pi(cli: Any) -> None:
    """No --pi and no PI_TOOLS_PI: Pi 1.6, the newest version pi-tools reproduces (documents say so)."""
    import os

    env = {key: value for key, value in os.environ.items() if key != pi.ENVIRONMENT}
    assert pi.DEFAULT == pi.NAMES[-1] == "1.6"
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pi_tools", *args], capture_output=True, text=True, env=env,
                              cwd=str(Path(__file__).resolve().parents[2]))

    (context,) = [json.loads(line) for line in run("context", CASE).stdout.splitlines()]
    assert context["pi"] == "1.6"
    version = run("--version").stdout
    assert version.endswith("default: Pi 1.6 (--pi VERSION, or PI_TOOLS_PI)\n"), version
    payload = run("payload", "--api", "openai-responses", "--model", "openai/gpt-5.6-sol", CASE)
    (document,) = [json.loads(line) for line in payload.stdout.splitlines()]
    assert (document["pi"], document["kind"]) == ("1.6", "payload")
