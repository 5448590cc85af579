"""Differential fuzzer: damaged sessions through Pi 0.85 (the reference oracle) and through pi-tools, compared.

Sessions are made from the conformance cases and (windows of) the real-world sessions by the damage real
files show (scripts/damage.py), every byte a function of the seed. The oracle runs them in batches
(`oracle --batch DIR OUT --wire`); pi-tools runs them in worker processes, in process, through the functions
its CLI runs (tests/support/differential.py), with a time limit per session. Every difference is classified;
with --minimise, one case per class is shrunk (lines, then JSON members, then long strings) while that class
of difference persists, and written with Pi's document beside it.

usage: python scripts/fuzz_oracle.py --seed 1 --count 400 --out /tmp/fuzz-1 [--jobs 2] [--minimise] [--pi 1.6]
       python scripts/fuzz_oracle.py --cases DIR --out OUT        (existing sessions instead of generated ones)
       python scripts/fuzz_oracle.py --goldens fixtures/fuzz      (Pi's documents for the test suite's sample)
Writes OUT/cases/*.jsonl, OUT/oracle/*.json, OUT/results.jsonl, OUT/report.json, OUT/minimised/ and prints a
summary: cases, cases with differences, internal errors, tracebacks, hangs, crashes, and the classes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from damage import Session, damage  # noqa: E402
from damage import parse_line as parse_damaged_line  # noqa: E402

# The oracle is Pi 0.85: pi-tools reproduces that version here, whatever its default (the newest), as the
# test suite does (tests/conftest.py); the workers inherit it.
os.environ.setdefault("PI_TOOLS_PI", "0.85")
DEFAULT_ORACLE = os.environ.get("PI_TOOLS_ORACLE", "/tmp/oracle/oracle")
if os.path.isdir(DEFAULT_ORACLE):  # the folder or its `oracle` script, as the tests and benchmarks take it
    DEFAULT_ORACLE = os.path.join(DEFAULT_ORACLE, "oracle")
CONFORMANCE = ROOT / "fixtures" / "conformance" / "cases"
REALWORLD = ROOT / "fixtures" / "realworld"
WINDOW_BYTES = 200_000  # at most this much of a real-world session per case (long lines: a few lines)
ORACLE_CHUNK = 60  # sessions per oracle process: one bad file must not cost a whole run


# ------------------------------------------------------------------------------------------------------------
# Generating


def seed_sessions() -> list[tuple[str, bytes]]:
    """The material: every conformance case (Pi 1.6's too, when reproducing 1.6), and every real-world session
    (cut into windows later)."""
    seeds = [(f"conformance/{p.name}", p.read_bytes()) for p in sorted(CONFORMANCE.glob("*.jsonl"))]
    if os.environ.get("PI_TOOLS_PI") == "1.6":  # and the Pi 1.6 cases: system messages, usage entries, edits
        from support.oracle_path import CONFORMANCE16

        for folder in (CONFORMANCE16 / "cases", ROOT / "tests" / "data" / "pi16" / "cases"):
            seeds += [(f"conformance/pi16/{p.name}", p.read_bytes()) for p in sorted(folder.glob("*.jsonl"))]
    seeds += [(f"realworld/{p.name}", p.read_bytes()) for p in sorted(REALWORLD.glob("*.jsonl"))]
    return seeds


def window(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """A real-world session cut down to a few dozen lines (the header and a run of entries), so that each
    case stays small and quick for both sides."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    if len(lines) <= 40:
        return data, "whole"
    size = rng.randint(5, 60)
    start = 1 if rng.random() < 0.6 else rng.randint(1, max(1, len(lines) - size))
    picked = [lines[0]]
    for line in lines[start : start + size]:
        if sum(map(len, picked)) + len(line) > WINDOW_BYTES and len(picked) > 3:
            break
        picked.append(line)
    return b"\n".join(picked) + b"\n", f"lines 1,{start + 1}-{start + len(picked) - 1}"


def generate(seed: int, count: int, out: Path) -> list[dict[str, Any]]:
    """Write `count` damaged sessions to out/ (f{seed}_{n}.jsonl); the manifest says how each was made."""
    out.mkdir(parents=True, exist_ok=True)
    seeds = seed_sessions()
    conformance = [s for s in seeds if s[0].startswith("conformance/")]
    realworld = [s for s in seeds if s[0].startswith("realworld/")]
    manifest = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        source, data = rng.choice(realworld if realworld and rng.random() < 0.3 else conformance)
        cut = "whole"
        if source.startswith("realworld/"):
            data, cut = window(rng, data)
        session = Session.from_bytes(data)
        operations = damage(rng, session, rng.choice([1, 1, 1, 2, 2, 3, 4]))
        name = f"f{seed}_{number:05d}"
        (out / f"{name}.jsonl").write_bytes(session.to_bytes())
        manifest.append({"case": name, "source": source, "cut": cut, "damage": operations})
    return manifest


# ------------------------------------------------------------------------------------------------------------
# The oracle


def run_oracle(cases: Path, out: Path, names: list[str], oracle: str, extra: list[str] | None = None,
               timeout: float = 900) -> dict[str, str]:
    """Pi's documents for the named cases (out/NAME.json), in batches; {name: why} for those it could not make."""
    out.mkdir(parents=True, exist_ok=True)
    failed: dict[str, str] = {}
    todo = [n for n in names if not (out / f"{n}.json").exists()]
    for start in range(0, len(todo), ORACLE_CHUNK):
        chunk = todo[start : start + ORACLE_CHUNK]
        failed.update(_oracle_chunk(cases, out, chunk, oracle, extra or [], timeout))
    return failed


def _oracle_chunk(cases: Path, out: Path, chunk: list[str], oracle: str, extra: list[str],
                  timeout: float) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="fuzz-oracle-") as scratch:
        for name in chunk:
            os.symlink((cases / f"{name}.jsonl").resolve(), Path(scratch) / f"{name}.jsonl")
        why = _oracle_process([oracle, "--batch", scratch, str(out), "--wire", *extra], timeout)
    missing = [n for n in chunk if not (out / f"{n}.json").exists()]
    if not missing:
        return {}
    if len(chunk) == 1:
        return {chunk[0]: why or "no document"}
    failed: dict[str, str] = {}
    for name in missing:  # one at a time: find the file that stopped the batch
        failed.update(_oracle_chunk(cases, out, [name], oracle, extra, timeout / 2))
    return failed


def _oracle_process(command: list[str], timeout: float) -> str | None:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return f"oracle timed out after {timeout:.0f} s"
    if process.returncode != 0:
        return f"oracle exit {process.returncode}: {stderr.decode('utf-8', 'replace')[-300:]}"
    return None


# ------------------------------------------------------------------------------------------------------------
# pi-tools, in worker processes


def worker_main(cases: str, oracle_out: str, names_file: str, results: str, timeout: float,
                keys: str | None, branches: bool) -> None:
    """Compare each named case; one result line per case (a `start` line first, so a crash is attributed)."""
    from support import differential

    os.chdir(cases)
    wanted = set(keys.split(",")) if keys else None

    def on_alarm(_signum: int, _frame: Any) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, on_alarm)
    names = Path(names_file).read_text().split()
    with open(results, "a", encoding="utf-8") as sink:
        for name in names:
            sink.write(json.dumps({"start": name}) + "\n")
            sink.flush()
            document = differential.run_with_big_stack(
                lambda name=name: differential.loads(Path(oracle_out, f"{name}.json").read_bytes()))
            started = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                found = differential.run_with_big_stack(
                    lambda name=name, document=document: differential.differences(
                        f"{name}.jsonl", document, wanted, branches=branches))
            except TimeoutError:
                hang = differential.Difference("session", "hang", ours=f"no answer within {timeout:.0f} s")
                sink.write(json.dumps({"case": name, "seconds": timeout, "differences": [hang.as_json()]}) + "\n")
                sink.flush()
                os._exit(3)  # the stuck thread cannot be stopped; a new worker takes the remaining cases
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            record = {"case": name, "seconds": round(time.monotonic() - started, 3),
                      "differences": [d.as_json() for d in found]}
            sink.write(json.dumps(record, ensure_ascii=True) + "\n")
            sink.flush()


def compare_cases(cases: Path, oracle_out: Path, names: list[str], jobs: int, timeout: float,
                  keys: set[str] | None = None, branches: bool = True) -> dict[str, list[dict[str, str]]]:
    """{case: differences} for every named case, over `jobs` worker processes; a worker that dies marks its
    current case as a crash and a new one takes the rest."""
    results: dict[str, list[dict[str, str]]] = {}
    pending = list(names)
    with tempfile.TemporaryDirectory(prefix="fuzz-work-") as scratch:
        round_number = 0
        while pending:
            round_number += 1
            slices = [pending[i::jobs] for i in range(jobs) if pending[i::jobs]]
            processes = []
            for index, part in enumerate(slices):
                names_file = Path(scratch, f"names-{round_number}-{index}")
                names_file.write_text("\n".join(part))
                sink = Path(scratch, f"results-{round_number}-{index}.jsonl")
                command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(cases.resolve()),
                           str(oracle_out.resolve()), str(names_file), str(sink), str(timeout),
                           ",".join(sorted(keys)) if keys else "-", "1" if branches else "0"]
                processes.append((subprocess.Popen(command, stderr=subprocess.PIPE), sink, part))
            pending = []
            for process, sink, part in processes:
                _, stderr = process.communicate()
                started = None
                lines = sink.read_text().splitlines() if sink.exists() else []
                done = set()
                for line in lines:
                    record = json.loads(line)
                    if "start" in record:
                        started = record["start"]
                    else:
                        results[record["case"]] = record["differences"]
                        done.add(record["case"])
                        started = None
                if process.returncode != 0 and started is not None:
                    why = f"worker exit {process.returncode}: {stderr.decode('utf-8', 'replace')[-300:]}"
                    results[started] = [{"where": "session", "kind": "crash", "path": "", "ours": why, "pi": ""}]
                    done.add(started)
                pending += [n for n in part if n not in done and n not in results]
    return results


# ------------------------------------------------------------------------------------------------------------
# Classes and the report


def signature(difference: dict[str, str]) -> str:
    from support import differential

    return differential.Difference(**difference).signature()


def summarise(results: dict[str, list[dict[str, str]]], oracle_failed: dict[str, str]) -> dict[str, Any]:
    kinds = Counter()
    classes: dict[str, list[str]] = defaultdict(list)
    for case, found in sorted(results.items()):
        for kind in {d["kind"] for d in found}:
            kinds[kind] += 1
        for sig in sorted({signature(d) for d in found}):
            classes[sig].append(case)
    internal = sum(1 for found in results.values() for d in found if d["kind"] == "internal-error")
    return {
        "cases": len(results) + len(oracle_failed),
        "compared": len(results),
        "oracleFailed": len(oracle_failed),
        "casesWithDifferences": sum(1 for found in results.values()
                                    if any(d["kind"] not in ("internal-error", "traceback", "hang", "crash")
                                           for d in found)),
        "casesWithAnyProblem": sum(1 for found in results.values() if found),
        "internalErrorDocuments": internal,
        "casesWithInternalErrors": kinds["internal-error"],
        "tracebacks": kinds["traceback"],
        "hangs": kinds["hang"],
        "crashes": kinds["crash"],
        "casesByKind": dict(sorted(kinds.items())),
        "classes": {sig: {"cases": len(names), "examples": names[:5]}
                    for sig, names in sorted(classes.items(), key=lambda kv: -len(kv[1]))},
        "oracleFailures": oracle_failed,
    }


def print_summary(report: dict[str, Any], limit: int = 60) -> None:
    print(f"cases {report['cases']} (compared {report['compared']}, oracle failed {report['oracleFailed']}); "
          f"with differences {report['casesWithDifferences']}; internal-error documents "
          f"{report['internalErrorDocuments']} (in {report['casesWithInternalErrors']} cases); tracebacks "
          f"{report['tracebacks']}; hangs {report['hangs']}; crashes {report['crashes']}")
    for sig, info in list(report["classes"].items())[:limit]:
        print(f"  {info['cases']:4d}  {sig[:150]}  e.g. {info['examples'][0]}")
    if len(report["classes"]) > limit:
        print(f"  ... {len(report['classes']) - limit} more classes in report.json")


# ------------------------------------------------------------------------------------------------------------
# Minimising


class Checker:
    """Whether candidate files still show one class of difference: the oracle (only the APIs, variants and
    branches that class needs) and pi-tools over a batch of candidates at once."""

    def __init__(self, work: Path, sig: str, where: str, oracle: str, jobs: int, timeout: float) -> None:
        self.work, self.sig, self.oracle, self.jobs, self.timeout = work, sig, oracle, jobs, timeout
        self.count = 0
        self.keys: set[str] | None = None
        self.extra = ["--no-branches"] if not where.startswith("branch") else []
        self.branches = where.startswith("branch")
        if where.startswith(("payloads/", "payloadsReasoning/")):
            variant, key = where.split("/", 1)
            key = key.split("/", 1)[0]
            self.keys = {f"{variant}/{key}"}
            api = key.replace("@", "=", 1) if "@" in key else key
            self.extra += ["--apis", api]
            if variant == "payloads":
                self.extra.append("--no-reasoning")
        elif where not in ("session",):
            self.extra += ["--apis", "anthropic-messages", "--no-reasoning"]

    def check(self, candidates: list[bytes]) -> list[bool]:
        batch = self.work / f"batch{self.count}"
        self.count += 1
        cases, outs = batch / "cases", batch / "oracle"
        cases.mkdir(parents=True)
        names = []
        for index, data in enumerate(candidates):
            name = f"m{index:04d}"
            (cases / f"{name}.jsonl").write_bytes(data)
            names.append(name)
        failed = run_oracle(cases, outs, names, self.oracle, self.extra, timeout=300)
        ok = [n for n in names if n not in failed]
        results = compare_cases(cases, outs, ok, self.jobs, self.timeout, self.keys, self.branches)
        verdict = [any(signature(d) == self.sig for d in results.get(n, [])) for n in names]
        shutil.rmtree(batch, ignore_errors=True)
        return verdict


def ddmin_lines(data: bytes, check: Checker, budget: float) -> bytes:
    """Delta debugging over lines: the smallest set of lines (in order) that still shows the difference."""
    session = Session.from_bytes(data)
    lines = session.lines
    granularity = 2
    deadline = time.monotonic() + budget
    while len(lines) >= 2 and time.monotonic() < deadline:
        size = max(1, len(lines) // granularity)
        chunks = [lines[i : i + size] for i in range(0, len(lines), size)]
        complements = [sum((c for j, c in enumerate(chunks) if j != i), []) for i in range(len(chunks))]
        candidates = [c for c in complements if c]
        verdict = check.check([Session(c, session.final_newline).to_bytes() for c in candidates])
        passing = [c for c, v in zip(candidates, verdict, strict=True) if v]
        if passing:
            lines = min(passing, key=len)
            granularity = max(granularity - 1, 2)
        elif size == 1:
            break
        else:
            granularity = min(len(lines), granularity * 2)
    return Session(lines, session.final_newline).to_bytes()


def _edits(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Simplifications of a JSON value: drop a member or item, shorten a long string."""
    found: list[tuple[tuple[Any, ...], str]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [(path, value)]
    while stack and len(found) < 400:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key, member in node.items():
                found.append(((*where, key), "drop"))
                stack.append(((*where, key), member))
        elif isinstance(node, list):
            for index, member in enumerate(node):
                found.append(((*where, index), "drop"))
                stack.append(((*where, index), member))
        elif isinstance(node, str) and len(node) > 12:
            found.append((where, "shorten"))
    return found


def _apply(value: Any, edit: tuple[tuple[Any, ...], str]) -> Any:
    from damage import dump

    copy = parse_damaged_line(dump(value).encode("utf-8"))
    path, what = edit
    node = copy
    for key in path[:-1]:
        node = node[key]
    if what == "drop":
        del node[path[-1]]
    else:
        text = node[path[-1]]
        node[path[-1]] = text[: max(4, len(text) // 4)]
    return copy


def shrink_json(data: bytes, check: Checker, budget: float) -> bytes:
    """Drop JSON members and items and shorten strings, one line at a time, while the difference persists."""
    from damage import Raw, encode

    session = Session.from_bytes(data)
    deadline = time.monotonic() + budget
    for index in range(len(session.lines)):
        while time.monotonic() < deadline:
            try:
                value = parse_damaged_line(session.lines[index])
            except ValueError:
                break
            if not isinstance(value, (dict, list)):
                break
            edits = [e for e in _edits(value) if not isinstance(_at(value, e[0]), Raw) or e[1] == "drop"]
            if not edits:
                break
            candidates = []
            for edit in edits[:60]:
                lines = list(session.lines)
                lines[index] = encode(_apply(value, edit))
                candidates.append(lines)
            verdict = check.check([Session(c, session.final_newline).to_bytes() for c in candidates])
            passing = [c for c, v in zip(candidates, verdict, strict=True) if v]
            if not passing:
                break
            session.lines = min(passing, key=lambda c: len(c[index]))
    return session.to_bytes()


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def minimise_case(data: bytes, sig: str, where: str, work: Path, oracle: str, jobs: int, timeout: float,
                  budget: float) -> tuple[bytes, int]:
    """The case shrunk while the class `sig` of difference persists (`where`: the part it was seen in, which
    tells the oracle what to build); and how many batches that took."""
    check = Checker(work, sig, where, oracle, jobs, timeout)
    if not check.check([data])[0]:
        return data, check.count  # not reproducible alone (should not happen: every case stands alone)
    smaller = ddmin_lines(data, check, budget * 0.5)
    smaller = shrink_json(smaller, check, budget * 0.5)
    return smaller, check.count


# ------------------------------------------------------------------------------------------------------------
# Main


def recheck(out: Path, failing: bool, jobs: int, timeout: float) -> None:
    """Compare an earlier run's sessions again with pi-tools as it is now (the oracle's documents are kept)."""
    manifest = json.loads((out / "manifest.json").read_text())
    previous = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        previous[record["case"]] = record["differences"]
    names = [m["case"] for m in manifest if m["case"] in previous and (previous[m["case"]] or not failing)]
    results = compare_cases(out / "cases", out / "oracle", names, jobs, timeout)
    if failing:
        results = {**{n: d for n, d in previous.items()}, **results}
    report = summarise(results, {})
    (out / "recheck.json").write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n")
    print(f"rechecked {len(names)} of {len(previous)} cases")
    print_summary(report)


def write_goldens(folder: Path, oracle: str) -> None:
    """Pi's documents for folder/cases/*.jsonl as folder/expected/*.json (compact: the test suite keeps them)."""
    from support import differential

    with tempfile.TemporaryDirectory(prefix="fuzz-goldens-") as scratch:
        names = [p.stem for p in sorted((folder / "cases").glob("*.jsonl"))]
        failed = run_oracle(folder / "cases", Path(scratch), names, oracle)
        if failed:
            raise SystemExit(f"the oracle could not run on {failed}")
        (folder / "expected").mkdir(exist_ok=True)
        for name in names:
            document = differential.run_with_big_stack(
                lambda name=name: differential.loads(Path(scratch, f"{name}.json").read_bytes()))
            text = differential.run_with_big_stack(
                lambda document=document: _compact(document))
            (folder / "expected" / f"{name}.json").write_text(text + "\n", encoding="ascii")
    print(f"{len(names)} expected documents in {folder / 'expected'}")


def _compact(document: Any) -> str:
    from support import differential

    with differential.deep_json():
        return json.dumps(document, ensure_ascii=True, separators=(",", ":"))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        cases, oracle_out, names_file, results, timeout, keys, branches = sys.argv[2:9]
        worker_main(cases, oracle_out, names_file, results, float(timeout), None if keys == "-" else keys,
                    branches == "1")
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--cases", type=Path, help="compare these sessions instead of generating")
    parser.add_argument("--recheck", type=Path, metavar="OUT",
                        help="compare the sessions of an earlier run again (its oracle documents), e.g. after a fix")
    parser.add_argument("--failing", action="store_true", help="with --recheck: only the cases that had problems")
    parser.add_argument("--goldens", type=Path, metavar="DIR",
                        help="only write Pi's documents for DIR/cases/*.jsonl to DIR/expected (fixtures/fuzz)")
    parser.add_argument("--pi", choices=("0.85", "1.6"),
                        help="the Pi version to reproduce (default PI_TOOLS_PI, else 0.85); 1.6 takes "
                             "PI_TOOLS_ORACLE16 or /tmp/oracle16/oracle as its oracle unless --oracle names one")
    parser.add_argument("--oracle", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60, help="seconds pi-tools may take per session")
    parser.add_argument("--minimise", action="store_true", help="shrink one case per class of difference")
    parser.add_argument("--minimise-budget", type=float, default=120, help="seconds per minimised case")
    parser.add_argument("--minimise-max", type=int, default=40, help="at most this many classes")
    args = parser.parse_args()
    if args.pi is not None:
        os.environ["PI_TOOLS_PI"] = args.pi  # (the workers inherit it)
    if args.oracle is None:
        args.oracle = (os.environ.get("PI_TOOLS_ORACLE16", "/tmp/oracle16/oracle")
                       if os.environ["PI_TOOLS_PI"] == "1.6" else DEFAULT_ORACLE)
    if args.goldens:
        write_goldens(args.goldens, args.oracle)
        return
    if args.recheck:
        recheck(args.recheck, args.failing, args.jobs, args.timeout)
        return

    if args.out is None:
        parser.error("--out is required")
    out: Path = args.out
    cases = out / "cases"
    started = time.monotonic()
    if args.cases:
        cases.mkdir(parents=True, exist_ok=True)
        for path in sorted(args.cases.glob("*.jsonl")):
            shutil.copyfile(path, cases / path.name)
        manifest = [{"case": p.stem, "source": str(p), "damage": []} for p in sorted(args.cases.glob("*.jsonl"))]
    else:
        manifest = generate(args.seed, args.count, cases)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=True) + "\n")
    names = [m["case"] for m in manifest]
    print(f"{len(names)} sessions in {cases} ({time.monotonic() - started:.1f} s)", flush=True)

    oracle_failed = run_oracle(cases, out / "oracle", names, args.oracle)
    print(f"oracle done ({time.monotonic() - started:.1f} s); could not run on {len(oracle_failed)}", flush=True)
    compared = [n for n in names if n not in oracle_failed]
    results = compare_cases(cases, out / "oracle", compared, args.jobs, args.timeout)
    print(f"pi-tools compared ({time.monotonic() - started:.1f} s)", flush=True)
    with open(out / "results.jsonl", "w", encoding="utf-8") as sink:
        by_case = {m["case"]: m for m in manifest}
        for name in compared:
            sink.write(json.dumps({**by_case[name], "differences": results.get(name, [])}, ensure_ascii=True) + "\n")
    report = summarise(results, oracle_failed)
    report["seed"], report["seconds"] = args.seed, round(time.monotonic() - started, 1)
    (out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n")
    print_summary(report)

    if args.minimise and report["classes"]:
        minimised = out / "minimised"
        minimised.mkdir(exist_ok=True)
        work = out / "work"
        for number, (sig, info) in enumerate(list(report["classes"].items())[: args.minimise_max]):
            if "|hang|" in sig or "|crash|" in sig:
                continue
            example = info["examples"][0]
            data = (cases / f"{example}.jsonl").read_bytes()
            t0 = time.monotonic()
            where = next(d["where"] for d in results[example] if signature(d) == sig)
            small, batches = minimise_case(data, sig, where, work, args.oracle, args.jobs, args.timeout,
                                           args.minimise_budget)
            name = f"c{number:03d}_{example}"
            (minimised / f"{name}.jsonl").write_bytes(small)
            (minimised / f"{name}.class").write_text(sig + "\n")
            print(f"minimised {example}: {len(data)} -> {len(small)} bytes in {time.monotonic() - t0:.0f} s "
                  f"({batches} batches)  {sig[:100]}", flush=True)
        final = run_oracle(minimised, minimised / "oracle", [p.stem for p in sorted(minimised.glob("*.jsonl"))],
                           args.oracle)
        if final:
            print(f"oracle failed on minimised cases: {final}")


if __name__ == "__main__":
    main()
