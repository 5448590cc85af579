"""Stage sweep: every command pi-tools has, run on each session of a folder (usually scripts/fuzz_oracle.py's
damaged cases), looking for what no user may see: a traceback, an internal error ("please report it"), an exit
status other than 0, 1 or 2, or a hang.

scripts/fuzz_oracle.py compares what Pi itself builds (context, convert, payload, wire); the commands Pi has no
counterpart for (audit, preflight, repair, slim, scrub, tree, render, export, visibility, search, usage, index)
are only checked here. The commands run in this process through the CLI's own app, as `pi-tools ...` runs them
(the recursion limit as engine.depth raises it; output written with backslash escapes for lone surrogates, as
cli.app.main writes it), split over --jobs processes.

usage: python scripts/sweep_stages.py CASES_DIR [--jobs 2] [--limit N] [--timeout 60]
Prints one line per problem (kind, exception or message, where, command, file) and a count per kind.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import tempfile
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def variants(path: str, out: str) -> list[list[str]]:
    """The commands run on each file (writing ones into `out`)."""
    written = os.path.join(out, "out.jsonl")
    return [
        ["audit", "--format", "json", path], ["audit", "--format", "sarif", path],
        ["repair", path, "-o", written, "--force"],
        ["repair", path, "-o", written, "--force", "--close-orphans", "--relink", "--trim-failed",
         "--drop-malformed-calls", "--header"],
        ["repair", path, "-o", written, "--force", "--for-model", "anthropic/claude-sonnet-4-5"],
        ["repair", path, "-o", written, "--force", "--for-model", "google/gemini-2.5-flash", "--format", "json"],
        ["slim", path, "-o", written, "--force", "--max-image-kb", "0", "--max-tool-output-kb", "1",
         "--drop-branches"],
        ["scrub", path, "-o", written, "--force", "--pattern", "a"],
        ["tree", path, "--width", "60"],
        ["render", "--api", "anthropic-messages", "--api", "openai-completions", "--model",
         "anthropic/claude-sonnet-4-5", "--model", "groq/openai/gpt-oss-120b", path, "-o",
         os.path.join(out, "preview.html")],
        ["export", "--format", "md", path, "-o", os.path.join(out, "export.md")],
        ["visibility", path], ["search", "e", "--branch", "all", path], ["usage", "--by", "model", path],
        ["preflight", path], ["preflight", "--replay", path],
        ["preflight", "--model", "mistral/mistral-medium-latest", "--format", "junit", path],
        ["preflight", "--model", "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", path],
        ["preflight", "--model", "openai/gpt-5.1", path],
        ["preflight", "--model", "groq/openai/gpt-oss-120b", "--format", "json", path],
        ["preflight", "--model", "google/gemini-2.5-flash", path],
        ["payload", "--api", "anthropic-messages", path],
        ["payload", "--api", "openai-responses", "--model", "openai/gpt-5.1", "--reasoning", "high", "--wire", path],
        ["index", path, "-o", os.path.join(out, "index")],
    ]


class _Hang(Exception):
    pass


def _on_alarm(_signum: int, _frame: object) -> None:
    raise _Hang


def _no_exit(code: int) -> None:
    """Some commands end with os._exit (cli.common); in this process that must not end the sweep."""
    raise SystemExit(code)


def sweep(files: list[str], timeout: float) -> list[tuple[str, str, str, str]]:
    """(kind, detail, command, file) of every problem met on `files`."""
    from typer.testing import CliRunner

    from pi_tools.cli.app import app
    from pi_tools.engine.depth import allow_deep_values

    allow_deep_values()
    os._exit = _no_exit  # type: ignore[assignment]
    signal.signal(signal.SIGALRM, _on_alarm)
    runner = CliRunner()
    problems: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory() as out:
        for path in files:
            for argv in variants(path, out):
                command = " ".join(argv[:3])
                signal.setitimer(signal.ITIMER_REAL, timeout)
                try:
                    run = runner.invoke(app, argv, catch_exceptions=True)
                except _Hang:
                    problems.append(("hang", f"no answer within {timeout:.0f} s", command, path))
                    continue
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                text = run.stdout + run.stderr
                error = run.exception
                if error is not None and not isinstance(error, SystemExit) \
                        and not isinstance(error, UnicodeEncodeError):  # (the runner's own streams cannot
                    # write lone surrogates; the CLI's write them as backslash escapes)
                    where = traceback.extract_tb(error.__traceback__)[-1]
                    problems.append(("traceback", f"{type(error).__name__}: {str(error)[:120]} "
                                     f"({where.filename.rsplit('pi_tools/', 1)[-1]}:{where.lineno})", command, path))
                elif "please report it" in text or "internal error (" in text:
                    line = next(line for line in text.splitlines() if "please report it" in line
                                or "internal error (" in line)
                    problems.append(("internal-error", line[:200], command, path))
                elif run.exit_code not in (0, 1, 2) and not (argv[0] == "repair" and run.exit_code == 3):
                    # (3 is repair's own: nothing to repair, wrote nothing; docs/repair.md)
                    problems.append(("exit-status", str(run.exit_code), command, path))
    return problems


def _worker(files: list[str], timeout: float, queue: multiprocessing.Queue[list[tuple[str, str, str, str]]]) -> None:
    queue.put(sweep(files, timeout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    files = sorted(str(path) for path in args.cases.glob("*.jsonl"))[:args.limit]
    queue: multiprocessing.Queue[list[tuple[str, str, str, str]]] = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=_worker, args=(files[part::args.jobs], args.timeout, queue))
               for part in range(args.jobs)]
    for worker in workers:
        worker.start()
    problems = [problem for _ in workers for problem in queue.get()]
    for worker in workers:
        worker.join()
    for kind, detail, command, path in sorted(problems):
        print(f"{kind}\t{detail}\t{command}\t{path}")
    counts = Counter(kind for kind, *_ in problems)
    print(f"{len(files)} sessions x {len(variants('', ''))} commands: "
          + (", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "no problem"))
    raise SystemExit(1 if problems else 0)


if __name__ == "__main__":
    main()
