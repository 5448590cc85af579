"""Build the wheel, install it into a fresh virtual environment outside the clone, and run every command once.

An editable install finds everything next to the checkout, so a file missing from the wheel (the templates,
once) goes unnoticed by the test suite; this check runs the wheel the way a user who ran `pip install` has it.
The sources are copied to a scratch folder first, so building writes nothing into the clone; commands run from
an empty working folder on copies of a few fixtures, with HOME and PI_CODING_AGENT_DIR pointing into the
scratch folder. Each command's exit status and output are checked; the last checks remove a template from the
installed package and expect the broken-install message.

Usage: python scripts/check_wheel.py [--keep]   (needs the package registry for the wheel's dependencies)
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "pi_tools", "templates")
SESSION = "fixtures/conformance/cases/c002_branching.jsonl"
CROSS = "fixtures/conformance/cases/c004_crossprovider.jsonl"
DAMAGED = "fixtures/bad/torn_last_line.jsonl"
FAUX = "tests/data/run/faux_first.json"
BODY = "fixtures/streams/cases/anthropic-messages/rec_vercel_text.sse"
CAPTURE = "fixtures/captures/curl_i_raw_gzip.txt"
REFUSED = "fixtures/conformance/cases/c017_crossprovider.jsonl"  # a GIF Gemini refuses
ERROR_BODY = "fixtures/streams/cases/anthropic-messages/syn_http_529_overloaded.body"
CLAUDE = "tests/importers/data/claude-code/real/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
CODEX = "tests/importers/data/codex/real/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


class CheckFailed(Exception):
    pass


class Result:
    def __init__(self, args: list[str], proc: subprocess.CompletedProcess[bytes]) -> None:
        self.args = args
        self.code = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")

    def documents(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


class Installed:
    """The wheel's pi-tools in its own environment, run from an empty folder."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.work = scratch / "work"
        self.venv = scratch / "venv"
        self.bin = self.venv / ("Scripts" if os.name == "nt" else "bin")
        self.env = {key: value for key, value in os.environ.items()
                    if not key.startswith(("PYTHON", "VIRTUAL_ENV", "PI_"))}
        self.env.update(HOME=str(scratch / "home"), PI_CODING_AGENT_DIR=str(scratch / "agent"),
                        SOURCE_DATE_EPOCH="1767225600", PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}")
        self.passed: list[str] = []

    def run(self, *args: str, stdin: str = "", codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None,
            program: str = "pi-tools") -> Result:
        argv = [str(self.bin / program), *args]
        proc = subprocess.run(argv, input=stdin.encode(), capture_output=True, cwd=self.work,
                              env={**self.env, **(env or {})}, timeout=300)
        result = Result(list(args), proc)
        if result.code not in codes:
            raise CheckFailed(f"{program} {' '.join(args)}: exit {result.code}, expected {codes}\n"
                              f"stderr: {result.stderr[-2000:]}")
        if "Traceback" in result.stderr:
            raise CheckFailed(f"{program} {' '.join(args)}: a traceback\n{result.stderr[-2000:]}")
        return result

    def check(self, name: str, condition: bool, detail: str = "") -> None:
        if not condition:
            raise CheckFailed(f"{name}: {detail or 'unexpected output'}")
        self.passed.append(name)
        print(f"ok  {name}", flush=True)


def build_and_install(scratch: Path) -> Installed:
    source = scratch / "source"
    source.mkdir()
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, source / name)
    dist = scratch / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist),
                    str(source)], check=True, cwd=scratch)
    (wheel,) = dist.glob("pi_tools-*.whl")
    print(f"built {wheel.name}", flush=True)
    installed = Installed(scratch)
    venv.create(installed.venv, with_pip=True)
    subprocess.run([str(installed.bin / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    str(wheel)], check=True, cwd=scratch)
    for folder in ("work", "home", "agent/sessions/--work--"):
        (scratch / folder).mkdir(parents=True, exist_ok=True)
    for name in (SESSION, CROSS, DAMAGED, FAUX, BODY, CAPTURE, ERROR_BODY, REFUSED, CLAUDE, CODEX):
        shutil.copy2(ROOT / name, installed.work / Path(name).name)
    shutil.copy2(ROOT / SESSION, scratch / "agent" / "sessions" / "--work--" / Path(SESSION).name)
    return installed


def _is_json_kind(documents: list[Any], kind: str) -> bool:
    return bool(documents) and all(isinstance(d, dict) and d.get("kind") == kind for d in documents)


def check_package(pi: Installed) -> None:
    where = pi.run("-c", "import pi_tools, pi_tools.templates as t, importlib.metadata as m; "
                         "print(pi_tools.__file__); print(t.__file__); print(m.version('pi-tools'))", program="python")
    package, templates, version = where.stdout.split()
    pi.check("the package is the installed wheel", package.startswith(str(pi.venv)) and
             templates.startswith(str(pi.venv)), where.stdout)
    # --version names the package, then the Pi versions it reproduces and the default.
    shown_version = pi.run("--version").stdout
    pi.check("--version", shown_version.startswith(f"pi-tools {version}\nreproduces Pi ")
             and "\ndefault: Pi " in shown_version, shown_version)
    pi.check("python -m pi_tools --version",
             pi.run("-m", "pi_tools", "--version", program="python").stdout == shown_version)
    pi.check("--help", "Commands:" in pi.run("--help").stdout)
    shown = pi.run("--show-completion", "bash", env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    pi.check("--show-completion bash", "complete -o default -F _pi_tools_completion pi-tools" in shown.stdout)


def check_stages(pi: Installed) -> None:
    session = Path(SESSION).name
    context = pi.run("context", session)
    pi.check("context", _is_json_kind(context.documents(), "context") and bool(context.documents()[0]["messages"]))
    llm = pi.run("convert", stdin=context.stdout)
    pi.check("convert (stdin)", _is_json_kind(llm.documents(), "llm"))
    payload = pi.run("payload", "--api", "anthropic-messages", stdin=llm.stdout)
    pi.check("payload (stdin)", _is_json_kind(payload.documents(), "payload")
             and bool(payload.documents()[0]["payload"]["messages"]))
    wire = pi.run("payload", "--api", "openai-responses", "--model", "openai/gpt-5.1", "--wire", Path(CROSS).name)
    pi.check("payload --wire", wire.documents()[0]["wire"]["method"] == "POST")
    transformed = pi.run("transform", "--keep-last", "2", session)
    pi.check("transform", _is_json_kind(transformed.documents(), "context")
             and 0 < len(transformed.documents()[0]["messages"]) < len(context.documents()[0]["messages"]))
    pi.run("render", session, "--api", "anthropic-messages", "--api", "openai-responses", "-o", "page.html")
    html = (pi.work / "page.html").read_text(encoding="utf-8")
    pi.check("render html", html.lstrip().lower().startswith("<!doctype html") and "openai-responses" in html)
    pi.run("render", session, "--api", "google-generative-ai", "-o", "page.md")
    markdown = (pi.work / "page.md").read_text(encoding="utf-8")
    pi.check("render md", markdown.startswith("# ") and "google-generative-ai" in markdown)
    audit = pi.run("audit", "--format", "json", session, codes=(0, 1))
    pi.check("audit", _is_json_kind(audit.documents(), "finding"))
    sarif = pi.run("audit", "--format", "sarif", session, codes=(0, 1))
    pi.check("audit --format sarif", bool(json.loads(sarif.stdout)["runs"][0]["results"]))
    visibility = pi.run("visibility", session)
    pi.check("visibility", len(visibility.stdout.splitlines()) > 10)
    usage = pi.run("usage", session, "--format", "json")  # --chart needs the charts extra: see check_second_wave
    rows = json.loads(usage.stdout)["rows"]
    pi.check("usage", bool(rows) and rows[0]["totalTokens"] > 0)
    pi.run("repair", Path(DAMAGED).name, "-o", "repaired.jsonl")
    pi.check("repair", _is_json_kind(pi.run("context", "repaired.jsonl").documents(), "context"))
    pi.check("tree", "├─" in pi.run("tree", session).stdout)
    pi.check("models", len(pi.run("models").stdout.splitlines()) > 100
             and "anthropic/claude-sonnet-4-5" in pi.run("models", "--api", "anthropic-messages").stdout)
    pi.run("run", "--faux-script", Path(FAUX).name, "--session", "run.jsonl", "--cwd", ".", "--tools", "none",
           "what is here?")
    ran = pi.run("context", "run.jsonl").documents()[0]["messages"]
    pi.check("run (faux)", [m["role"] for m in ran][:2] == ["user", "assistant"])


def check_second_wave(pi: Installed) -> None:
    """The commands of the second wave: preflight, index (read back with polars), search, the rewriters, export."""
    session, cross, refused = Path(SESSION).name, Path(CROSS).name, Path(REFUSED).name
    verdict = pi.run("preflight", "--format", "json", "--model", "google/gemini-2.5-flash", refused, codes=(1,))
    pi.check("preflight (a refused request, exit 1)", [(d["rule"], d["payloadPath"]) for d in verdict.documents()]
             == [("google-image-media-type", "contents[8].parts[1]")], verdict.stdout)
    clean = pi.run("preflight", "--model", "openai/gpt-5.1", session)
    pi.check("preflight (clean)", "no finding" in clean.stdout, clean.stdout)
    first = pi.run("index", "-o", "idx", session, cross)
    again = pi.run("index", "-o", "idx", session, cross)
    pi.check("index, then incremental", "(2 indexed, 0 unchanged, 0 removed)" in first.stderr
             and "(0 indexed, 2 unchanged, 0 removed)" in again.stderr, first.stderr + again.stderr)
    tables = pi.run("-c", "import polars as pl; print(*(pl.read_parquet(f'idx/{t}/*.parquet').height for t in "
                          "('sessions', 'entries', 'messages', 'tool_calls', 'usage')))", program="python")
    heights = [int(height) for height in tables.stdout.split()]
    pi.check("index tables read back", len(heights) == 5 and heights[0] == 2 and all(heights), tables.stdout)
    files = pi.run("search", "--format", "json", "the", session)
    indexed = pi.run("search", "--format", "json", "--index", "idx", "the", session)
    branches = {hit["branch"] for hit in files.documents()}
    pi.check("search (files, then the index)", _is_json_kind(files.documents(), "hit")
             and branches == {"active", "abandoned"} and indexed.stdout == files.stdout)
    for name, args in (("scrub", ["scrub", session, "-o", "scrubbed.jsonl"]),
                       ("slim --drop-branches", ["slim", session, "--drop-branches", "-o", "slim.jsonl"]),
                       ("repair --relink", ["repair", "--relink", session, "-o", "relinked.jsonl"]),
                       ("transform --to-session", ["transform", "--keep-last", "2", "--to-session", "kept.jsonl",
                                                   session])):
        pi.run(*args)
        written = args[args.index("-o") + 1] if "-o" in args else args[args.index("--to-session") + 1]
        pi.check(name, _is_json_kind(pi.run("context", written).documents(), "context"))
    no_extra = pi.run("audit", "--engine", "dask", session, codes=(2,))
    pi.check("--engine dask without the extra", no_extra.stderr
             == "pi-tools: --engine dask needs the dask extra: pip install 'pi-tools[dask]'\n", no_extra.stderr)
    no_charts = pi.run("usage", session, "--chart", "usage.html", codes=(2,))
    pi.check("usage --chart without the extra", no_charts.stderr
             == "pi-tools: --chart needs the charts extra: pip install 'pi-tools[charts]'\n", no_charts.stderr)
    pi.run("export", session, "-o", "transcript.html")
    pi.check("export html", (pi.work / "transcript.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>"))


def check_third_wave(pi: Installed) -> None:
    """import (both kinds, into Pi's layout, loaded back), trace to a file, and Pi's own prompt in a payload."""
    pi.run("import", Path(CLAUDE).name, Path(CODEX).name, "-o", "imported")
    written = sorted((pi.work / "imported").rglob("*.jsonl"))
    pi.check("import (Claude Code and Codex)", len(written) >= 2 and all(
        _is_json_kind(pi.run("context", str(path)).documents(), "context") for path in written), str(written))
    pi.run("trace", Path(SESSION).name, "-o", "trace.json")
    spans = json.loads((pi.work / "trace.json").read_text(encoding="utf-8"))["resourceSpans"][0]["scopeSpans"][0]
    pi.check("trace -o", spans["spans"][0]["name"] == "invoke_agent pi" and len(spans["spans"]) > 1)
    prompted = pi.run("payload", "--system-prompt", "pi", "--cwd", str(pi.work), "--api", "anthropic-messages",
                      "--model", "anthropic/claude-sonnet-4-5", Path(SESSION).name).documents()[0]["payload"]
    pi.check("payload --system-prompt pi", bool(prompted.get("system")) and bool(prompted.get("tools")))


def check_decode(pi: Installed) -> None:
    body = pi.run("decode", "--api", "anthropic-messages", Path(BODY).name)
    message = body.documents()[0]
    pi.check("decode body", message["kind"] == "message" and message["message"]["stopReason"] == "stop")
    raw = pi.run("decode", "--api", "anthropic-messages", Path(CAPTURE).name).documents()[0]
    pi.check("decode raw capture", raw["message"] == message["message"])
    error_body = (pi.work / Path(ERROR_BODY).name).read_bytes()
    entries = [
        {"request": {"url": "https://api.anthropic.com/v1/messages?key=SECRET"},
         "response": {"status": 200, "headers": [{"name": "content-type", "value": "text/event-stream"}],
                      "content": {"text": (pi.work / Path(BODY).name).read_text(encoding="utf-8")}}},
        {"request": {"url": "https://api.anthropic.com/v1/messages"},
         "response": {"status": 529, "headers": [{"name": "content-type", "value": "application/json"}],
                      "content": {"text": base64.b64encode(error_body).decode(), "encoding": "base64"}}},
    ]
    (pi.work / "traffic.har").write_text(json.dumps({"log": {"entries": entries}}), encoding="utf-8")
    har = pi.run("decode", "--api", "anthropic-messages", "traffic.har")
    documents = har.documents()
    pi.check("decode HAR", [d["entry"]["index"] for d in documents] == [0, 1]
             and documents[0]["message"] == message["message"] and documents[1]["message"]["stopReason"] == "error"
             and "SECRET" not in har.stdout)


def check_session_folder(pi: Installed) -> None:
    folder = pi.scratch / "agent" / "sessions"
    said = f"pi-tools: no PATH given: reading Pi's session folder {folder}\n"
    usage = pi.run("usage", "--format", "json")
    pi.check("usage without PATH", usage.stderr == said and bool(json.loads(usage.stdout)["rows"]))
    listing = pi.run("ls")
    pi.check("ls without PATH", listing.stderr == said and "019f0c21" in listing.stdout)
    audit = pi.run("audit", codes=(0, 1))
    pi.check("audit without PATH", audit.stderr.startswith(said) and "orphaned-tool-call" in audit.stdout)
    missing = pi.run("ls", codes=(2,), env={"PI_CODING_AGENT_DIR": str(pi.scratch / "nowhere")})
    pi.check("ls without PATH, no folder", "does not exist" in missing.stderr)


def check_broken_install(pi: Installed) -> None:
    """Last: take templates out of the installed package, as a broken install would have it."""
    where = pi.run("-c", "import pi_tools.templates as t, os; print(os.path.dirname(t.__file__))", program="python")
    templates = Path(where.stdout.strip())
    for name, args in (("render.md.j2", ["render", Path(SESSION).name, "--api", "anthropic-messages", "-o", "x.md"]),
                       ("export.html.j2", ["export", Path(SESSION).name, "-o", "x.html"])):
        (templates / name).unlink()
        result = pi.run(*args, codes=(2,))
        pi.check(f"missing {name} is named", result.stderr.startswith(
            f"pi-tools: template {name} is missing from this installation (looked in {templates})"), result.stderr)


CHECKS: tuple[Callable[[Installed], None], ...] = (check_package, check_stages, check_second_wave, check_third_wave,
                                                   check_decode,
                                                   check_session_folder, check_broken_install)


def main() -> int:
    keep = "--keep" in sys.argv[1:]
    scratch = Path(tempfile.mkdtemp(prefix="pi-tools-wheel-"))
    try:
        installed = build_and_install(scratch)
        for check in CHECKS:
            check(installed)
    except (CheckFailed, subprocess.CalledProcessError) as exc:
        print(f"check_wheel: FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"check_wheel: kept {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"check_wheel: {len(installed.passed)} checks passed on the installed wheel")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
