#!/usr/bin/env bash
# Usage: bench_compare.sh OLD_PI_TOOLS NEW_PI_TOOLS
#   e.g. bench_compare.sh ../old-checkout/.venv/bin/pi-tools .venv/bin/pi-tools
#
# Times each command interleaved (old, new, new, old, ... alternating who goes first each round), stdout to
# /dev/null, and prints per command: min wall time old / new, ratio new/old, peak RSS (max over rounds), exit
# codes seen, and the spread (max-min)/min of each side's times.
# Env knobs: ROUNDS (default 5), HELP_ROUNDS (default 20), INDEX_ROUNDS (default 10).
# CPU s = user+sys of the process and its children (min over rounds): steadier than wall time on a busy host.
# Runs one process at a time (pi-tools itself may use one worker per core on the big file).
# About 2 minutes on the 2-core machine.
set -eu
OLD="$(readlink -f "${1:?usage: bench_compare.sh OLD_PI_TOOLS NEW_PI_TOOLS}")"
NEW="$(readlink -f "${2:?usage: bench_compare.sh OLD_PI_TOOLS NEW_PI_TOOLS}")"
export LC_ALL=C TZ=UTC
unset PI_CODING_AGENT_DIR PI_CACHE_RETENTION PI_TOOLS_SPLIT_BYTES SOURCE_DATE_EPOCH
export PI_TOOLS_SHARED="${PI_TOOLS_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}"
cd /tmp
exec python3 - "$OLD" "$NEW" <<'PY'
import os, subprocess, sys, tempfile, shutil, time, glob

old, new = sys.argv[1], sys.argv[2]
BIG = os.path.join(os.environ.get("PI_TOOLS_BENCH_CACHE", "/tmp/pi-tools-bench"), "big-100mb-seed7.jsonl")
RW_DIR = os.environ["PI_TOOLS_SHARED"] + "/realworld"
ROUNDS = int(os.environ.get("ROUNDS", 5))
HELP_ROUNDS = int(os.environ.get("HELP_ROUNDS", 20))
INDEX_ROUNDS = int(os.environ.get("INDEX_ROUNDS", 10))
if not os.path.exists(BIG):
    sys.exit(f"missing {BIG}")

CASES = [  # (label, args after the executable, rounds); "{OUT}" becomes a fresh temp dir per run
    ("payload anthropic-messages", ["payload", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5", BIG], ROUNDS),
    ("payload openai-responses", ["payload", "--api", "openai-responses", "--model", "openai/gpt-5.1", BIG], ROUNDS),
    ("convert", ["convert", BIG], ROUNDS),
    ("audit --format json", ["audit", "--format", "json", BIG], ROUNDS),
    ("usage --format json", ["usage", "--format", "json", BIG], ROUNDS),
    ("preflight --format json", ["preflight", "--model", "anthropic/claude-sonnet-4-5", "--format", "json", BIG], ROUNDS),
    ("--help (start-up)", ["--help"], HELP_ROUNDS),
    ("index realworld (fresh)", ["index", RW_DIR, "-o", "{OUT}"], INDEX_ROUNDS),
]

def run(exe, args):
    tmp = None
    if any("{OUT}" in a for a in args):
        tmp = tempfile.mkdtemp(prefix="pi-bench-idx-")
        args = [a.replace("{OUT}", os.path.join(tmp, "idx")) for a in args]
    try:
        with open(os.devnull, "wb") as devnull:
            t0 = time.perf_counter()
            p = subprocess.Popen([exe, *args], stdout=devnull, stderr=devnull, stdin=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t0
        return dt, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

# warm-up (page cache, .pyc): one untimed --help each
for exe in (old, new):
    run(exe, ["--help"])

print(f"old: {old}\nnew: {new}\nrounds: {ROUNDS} (help {HELP_ROUNDS}, index {INDEX_ROUNDS}); host load {os.getloadavg()[0]:.2f}\n", flush=True)
hdr = (f"{'command':26} {'old s':>7} {'new s':>7} {'new/old':>7}  {'old cpu':>7} {'new cpu':>7} {'new/old':>7}"
       f"  {'old MiB':>7} {'new MiB':>7}  rc o/n  wall spread o/n")
print(hdr); print("-" * len(hdr), flush=True)
t_start = time.perf_counter()
for label, args, rounds in CASES:
    # sides indexed 0 (old) and 1 (new), so OLD == NEW (a noise run) still keeps two separate series
    exes = (old, new)
    res, cpu, mem, rcs = ([], []), ([], []), [0.0, 0.0], (set(), set())
    for r in range(rounds):
        for side in ((0, 1) if r % 2 == 0 else (1, 0)):
            dt, mib, rc, c = run(exes[side], args)
            res[side].append(dt); cpu[side].append(c); mem[side] = max(mem[side], mib); rcs[side].add(rc)
    mo, mn = min(res[0]), min(res[1])
    spread = lambda xs: (max(xs) - min(xs)) / min(xs) * 100
    rc = f"{','.join(map(str, sorted(rcs[0])))}/{','.join(map(str, sorted(rcs[1])))}"
    co, cn = min(cpu[0]), min(cpu[1])
    print(f"{label:26} {mo:7.3f} {mn:7.3f} {mn/mo:7.3f}  {co:7.3f} {cn:7.3f} {cn/co:7.3f}"
          f"  {mem[0]:7.0f} {mem[1]:7.0f}  {rc:6}  {spread(res[0]):3.0f}%/{spread(res[1]):.0f}%", flush=True)
print(f"\ntotal bench time {time.perf_counter() - t_start:.0f} s; host load {os.getloadavg()[0]:.2f}")
PY
