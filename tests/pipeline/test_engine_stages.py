"""Every batch stage on the engine: the same stdout and stderr in this process (--jobs 1), on a pool (--jobs 2)
and through the path a stage took before the engine; the shared --engine/--scheduler/--jobs options."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pipe.documents import DocumentWriter
from pi_tools.pipeline.stages import as_context, as_llm, iter_inputs, run_stage

from support.golden import ROOT

AUDIT_DATA = ROOT / "tests" / "data" / "audit"
MODEL = ["--model", "anthropic/claude-sonnet-4-5"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A folder of fixtures, damaged ones included, and a name that is not there (an error in the middle)."""
    folder = tmp_path_factory.mktemp("corpus")
    names = sorted(AUDIT_DATA.glob("*.jsonl")) + [ROOT / "fixtures" / "realworld" / "badlogic__pi-mono__compact.jsonl"]
    paths = []
    for index, source in enumerate(names):
        target = folder / f"{index:02d}-{source.name}"
        shutil.copyfile(source, target)
        paths.append(str(target))
    paths.insert(5, str(folder / "missing.jsonl"))
    return paths


def _before_the_engine(files: list[str], build: Any, diagnostics: bool = True, noted: bool = False) -> tuple[str, str]:
    """stdout and stderr of a document stage over many files as it ran before the engine: one stream in this
    process (cli.common.run_documents without the exit). `noted`: build(item, notes) adds its notes for stderr
    (payload's), written before the input's problems as the CLI writes them."""
    out = io.BytesIO()
    problems: list[str] = []
    writer = DocumentWriter(out)
    if noted:
        noting = build

        def build(item: Any) -> Any:
            notes: list[str] = []
            try:
                return noting(item, notes)
            finally:
                problems.extend(notes)

    run_stage(iter_inputs(files, None, check_all_lines=diagnostics), build, writer.write, problems.append)
    writer.flush()
    return out.getvalue().decode(), "".join(f"pi-tools: {line}\n" for line in problems)


def _both(cli: Any, *args: str) -> Any:
    serial, pooled = cli(*args, "--jobs", "1"), cli(*args, "--jobs", "2")
    assert (pooled.code, pooled.stdout, pooled.stderr) == (serial.code, serial.stdout, serial.stderr)
    return serial


@pytest.mark.parametrize("stage", ["context", "convert"])
def test_document_stages_give_what_they_gave(cli: Any, corpus: list[str], stage: str) -> None:
    run = _both(cli, stage, *corpus)
    build = as_context if stage == "context" else as_llm
    assert (run.stdout, run.stderr) == _before_the_engine(corpus, build)
    assert run.code == 2  # the missing file (and the damaged ones) are error documents; the others go on
    assert len(run.documents()) == len(corpus)


def test_payload_gives_what_it_gave(cli: Any, corpus: list[str]) -> None:
    from pi_tools.engine.helper import split_threshold
    from pi_tools.pipeline.stages import PayloadRequest
    from pi_tools.pipeline.tasks import PayloadOptions, build_payload

    run = _both(cli, "payload", "--api", "anthropic-messages", *MODEL, *corpus)
    options = PayloadOptions(PayloadRequest("anthropic-messages", MODEL[1]), None, split_threshold())
    assert (run.stdout, run.stderr) == _before_the_engine(
        corpus, lambda item, notes: build_payload(item, options, notes=notes), False, noted=True)
    assert run.stderr.count(": note: the request holds no system prompt and no tools: ") >= len(corpus) - 8
    assert [doc["kind"] for doc in run.documents()].count("payload") >= len(corpus) - 8


def _concatenated(cli: Any, files: list[str], *args: str) -> tuple[str, str]:
    runs = [cli(*args, name) for name in files]
    return "".join(run.stdout for run in runs), "".join(run.stderr for run in runs)


@pytest.mark.parametrize("args", [
    ("visibility", "--format", "json"),
    ("preflight", "--format", "json", *MODEL),
    ("preflight", "--replay", "--format", "json"),
    ("scrub", "--check", "--format", "json"),
])
def test_per_file_stages_give_each_file_s_own_output(cli: Any, corpus: list[str], args: tuple[str, ...]) -> None:
    files = corpus[3:7]  # the missing file among them
    run = _both(cli, *args, *files)
    assert (run.stdout, run.stderr) == _concatenated(cli, files, *args)
    assert run.code == 2


def test_visibility_tables_are_headed_by_their_file(cli: Any, corpus: list[str]) -> None:
    files = [corpus[0], corpus[-1]]
    run = _both(cli, "visibility", *files)
    alone = [cli("visibility", name).stdout for name in files]
    assert run.stdout == "".join(f"==> {name} <==\n{table}" for name, table in zip(files, alone, strict=True))
    assert run.code == 0


@pytest.mark.parametrize("args", [("audit", "--format", "json"), ("usage", "--format", "json", "--by", "session")])
def test_report_stages_agree_in_and_out_of_a_pool(cli: Any, corpus: list[str], args: tuple[str, ...]) -> None:
    folder = str(Path(corpus[0]).parent)
    run = _both(cli, *args, folder)
    assert run.stdout and run.code in (0, 1, 2)


STAGES = [
    ["context"], ["convert"], ["payload", "--api", "anthropic-messages"], ["audit"], ["visibility"],
    ["usage"], ["preflight"], ["scrub", "--check"],
]


@pytest.mark.parametrize("stage", STAGES, ids=lambda stage: stage[0])
@pytest.mark.parametrize(("options", "message"), [
    (["--jobs", "0"], "pi-tools: --jobs: expected a positive number\n"),
    (["--engine", "spark"], "pi-tools: --engine: expected one of local, dask, got 'spark'\n"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "pi-tools: --scheduler: only with --engine dask\n"),
])
def test_bad_engine_options_are_usage_errors(cli: Any, stage: list[str], options: list[str], message: str) -> None:
    session = str(AUDIT_DATA / "clean.jsonl")
    run = cli(*stage, *options, session, session)
    assert (run.code, run.stdout, run.stderr) == (2, "", message)


@pytest.mark.parametrize("stage", STAGES, ids=lambda stage: stage[0])
def test_dask_without_the_extra_says_how_to_install_it(cli: Any, stage: list[str]) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the dask extra is installed here")
    session = str(AUDIT_DATA / "clean.jsonl")
    run = cli(*stage, "--engine", "dask", session, session)
    assert run.code == 2
    assert run.stderr == "pi-tools: --engine dask needs the dask extra: pip install 'pi-tools[dask]'\n"
    assert run.stdout == ""
