"""The Dask engine through map_ordered: a real scheduler and two worker processes (the `dask` commands) on
127.0.0.1, an embedded LocalCluster, S3 inputs served by moto, a worker killed mid-run, and the failures a user
must see as one clear line (no scheduler, a task that raised, the extra not installed)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
pytest.importorskip("moto.server")

from pi_tools.engine import Engine, EngineError, EngineUnavailable, map_ordered  # noqa: E402
from pi_tools.sources.files import expand, size_of  # noqa: E402

from support.daskservices import (  # noqa: E402 - after the skips: without the extra, nothing to import
    ROOT,
    DaskCluster,
    MotoS3,
    audit_task,
    build_corpus,
    failing_task,
    free_port,
    slow_audit_task,
    start_cluster,
    worker_pid,
)

BUCKET = "pitools-corpus"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def s3(corpus: Path) -> Iterator[MotoS3]:
    server = MotoS3()
    try:
        server.upload(corpus, BUCKET, "sessions")
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def cluster(s3: MotoS3, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    started = start_cluster(2, tmp_path_factory.mktemp("dask"), env=s3.env)
    try:
        yield started
    finally:
        started.stop()


def names(corpus: Path) -> list[str]:
    return [name for name, error in expand([str(corpus)]) if error is None]


def on_dask(task: Any, items: list[str], cluster: DaskCluster) -> list[Any]:
    engine = Engine(kind="dask", scheduler=cluster.address)
    return list(map_ordered(task, items, engine, weights=[size_of(name) for name in items]))


def as_url(results: list[Any], corpus: Path, url: str) -> list[Any]:
    """The local results with every mention of the corpus folder written as the URL prefix."""
    return json.loads(json.dumps(results).replace(str(corpus) + "/", url))


def test_a_scheduler_and_two_workers_give_the_local_results_in_input_order(corpus: Path,
                                                                           cluster: DaskCluster) -> None:
    items = names(corpus)
    assert len(items) == 35
    local = [audit_task(name) for name in items]
    assert sum(len(findings) for _, findings, _ in local) > 0  # the fixtures are damaged: findings to compare
    assert on_dask(audit_task, items, cluster) == local


def test_the_work_is_spread_over_both_workers(cluster: DaskCluster) -> None:
    pids = on_dask(worker_pid, [f"item{number}" for number in range(40)], cluster)
    assert set(pids) == {process.pid for process in cluster.workers}


def test_a_worker_killed_mid_run_does_not_change_the_output(corpus: Path, tmp_path: Path) -> None:
    items = names(corpus)
    local = [audit_task(name) for name in items]
    doomed = start_cluster(2, tmp_path / "dask")
    try:
        by_pid = doomed.worker_addresses()
        results = map_ordered(slow_audit_task, items, Engine(kind="dask", scheduler=doomed.address),
                              weights=[size_of(name) for name in items])
        got = [next(results) for _ in range(3)]
        with doomed.client() as watcher:
            processing = watcher.processing()
        victim = next(process for process in doomed.workers if processing.get(by_pid[process.pid]))
        doomed.kill_worker(victim)  # SIGKILL, with tasks of this run on it
        got.extend(results)
        with doomed.client() as watcher:
            assert list(watcher.nthreads()) == [by_pid[p.pid] for p in doomed.workers if p is not victim]
    finally:
        doomed.stop()
    assert got == local


def test_no_scheduler_at_the_address_is_one_clear_error_at_once() -> None:
    port = free_port()
    started = time.monotonic()
    with pytest.raises(EngineError) as caught:
        list(map_ordered(audit_task, ["x.jsonl"], Engine(kind="dask", scheduler=f"tcp://127.0.0.1:{port}")))
    assert str(caught.value) == f"--scheduler tcp://127.0.0.1:{port}: no Dask scheduler there ([Errno 111] Connection refused)"
    assert time.monotonic() - started < 30  # a hang guard, not a speed target


def test_an_address_that_is_not_one_is_named() -> None:
    with pytest.raises(EngineError) as caught:
        list(map_ordered(audit_task, ["x.jsonl"], Engine(kind="dask", scheduler="nonsense")))
    assert str(caught.value) == "--scheduler nonsense: not a scheduler address (missing port number in address 'nonsense')"


def test_an_exception_in_a_task_names_the_item(corpus: Path, cluster: DaskCluster) -> None:
    items = names(corpus)
    planted = next(name for name in items if name.endswith("gen005_errors.jsonl"))
    with pytest.raises(EngineError) as caught:
        on_dask(failing_task, items, cluster)
    assert str(caught.value) == f"{planted}: ValueError: planted failure"


def scheduler_state(cluster: DaskCluster) -> tuple[int, int]:
    """(tasks the scheduler holds, clients connected other than the one asking)."""
    with cluster.client() as watcher:
        return watcher.run_on_scheduler(
            lambda dask_scheduler: (len(dask_scheduler.tasks),
                                    len([c for c in dask_scheduler.clients if c != "fire-and-forget"]) - 1))


def wait_until_idle(cluster: DaskCluster) -> tuple[int, int]:
    deadline = time.monotonic() + 30
    state = scheduler_state(cluster)
    while state != (0, 0) and time.monotonic() < deadline:
        time.sleep(0.2)
        state = scheduler_state(cluster)
    return state


def test_stopping_early_cancels_the_rest_and_disconnects(corpus: Path, cluster: DaskCluster) -> None:
    results = map_ordered(slow_audit_task, names(corpus), Engine(kind="dask", scheduler=cluster.address))
    next(results)
    assert scheduler_state(cluster)[0] > 0
    results.close()  # what a consumer that stops, or an exception in it, does to the generator
    assert wait_until_idle(cluster) == (0, 0)


def test_ctrl_c_cancels_the_futures_and_closes_the_client(corpus: Path, cluster: DaskCluster) -> None:
    script = textwrap.dedent(f"""
        import sys
        from support.daskservices import slow_audit_task
        from pi_tools.engine import Engine, map_ordered
        from pi_tools.sources.files import expand
        items = [name for name, _ in expand([{str(corpus)!r}])]
        for number, _ in enumerate(map_ordered(slow_audit_task, items, Engine(kind="dask", scheduler={cluster.address!r}))):
            if number == 0:
                print("started", flush=True)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, cwd=ROOT)
    assert process.stdout is not None
    assert process.stdout.readline() == b"started\n"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode != 0 and b"KeyboardInterrupt" in stderr
    assert wait_until_idle(cluster) == (0, 0)


def children() -> set[int]:
    """This process's descendants, less multiprocessing's resource tracker (it lives as long as we do)."""
    import psutil

    found = set()
    for child in psutil.Process().children(recursive=True):
        try:
            if child.is_running() and "resource_tracker" not in " ".join(child.cmdline()):
                found.add(child.pid)
        except psutil.Error:
            continue
    return found


def test_without_an_address_a_local_cluster_runs_and_is_closed(corpus: Path) -> None:
    items = names(corpus)
    before = children()
    assert list(map_ordered(audit_task, items, Engine(kind="dask", jobs=2))) == [audit_task(name) for name in items]
    deadline = time.monotonic() + 30
    while children() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert children() - before == set()


def test_s3_prefix_lists_like_the_folder(corpus: Path, s3: MotoS3, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in s3.env.items():
        monkeypatch.setenv(key, value)
    url = f"s3://{BUCKET}/sessions/"
    listed = expand([url])
    assert listed == [(url + name[len(str(corpus)) + 1:], None) for name in names(corpus)]
    assert [size_of(name) for name, _ in listed] == [os.path.getsize(name) for name in names(corpus)]


def test_s3_inputs_read_by_the_workers_give_the_folder_results(corpus: Path, s3: MotoS3, cluster: DaskCluster,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in s3.env.items():
        monkeypatch.setenv(key, value)
    url = f"s3://{BUCKET}/sessions/"
    items = [name for name, _ in expand([url])] + [url + "missing.jsonl"]
    got = on_dask(audit_task, items, cluster)
    local = [audit_task(name) for name in names(corpus)]
    assert json.loads(json.dumps(got[:-1])) == as_url(local, corpus, url)
    assert got[-1] == (url + "missing.jsonl", [], f"{url}missing.jsonl: no such file")
    assert s3.env["AWS_SECRET_ACCESS_KEY"] not in json.dumps(got)


def test_without_the_extra_dask_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(EngineUnavailable) as caught:
        list(map_ordered(audit_task, ["x.jsonl"], Engine(kind="dask")))
    assert str(caught.value) == "--engine dask needs the dask extra: pip install 'pi-tools[dask]'"


# Through the CLI: the stages' own tasks, on the same cluster and on S3, byte for byte as --engine local.

MODEL = "anthropic/claude-sonnet-4-5"


def pi_tools(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "pi_tools", *args], capture_output=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=timeout, stdin=subprocess.DEVNULL)


def stage_args(stage: str, corpus: Path) -> list[str]:
    if stage == "payload":  # payload takes files, not folders
        return ["payload", "--api", "anthropic-messages", "--model", MODEL, *names(corpus)]
    return [stage, "--format", "json", str(corpus)]


@pytest.mark.parametrize("stage", ["audit", "usage", "payload"])
def test_cli_on_the_cluster_writes_what_local_writes(stage: str, corpus: Path, cluster: DaskCluster) -> None:
    local = pi_tools(*stage_args(stage, corpus), "--engine", "local")
    dask = pi_tools(*stage_args(stage, corpus), "--engine", "dask", "--scheduler", cluster.address)
    assert local.stdout.count(b"\n") >= (1 if stage == "usage" else 30)
    assert (dask.returncode, dask.stdout, dask.stderr) == (local.returncode, local.stdout, local.stderr)


def test_cli_without_a_scheduler_starts_a_local_cluster(corpus: Path) -> None:
    local = pi_tools("audit", "--format", "json", str(corpus))
    dask = pi_tools("audit", "--format", "json", "--engine", "dask", str(corpus))
    assert local.returncode == 1 and local.stdout.count(b"\n") > 30
    assert (dask.returncode, dask.stdout, dask.stderr) == (local.returncode, local.stdout, local.stderr)


def test_cli_with_no_scheduler_there_exits_2_at_once(corpus: Path) -> None:
    port = free_port()
    done = pi_tools("audit", "--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{port}", str(corpus), timeout=60)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (f"pi-tools: --scheduler tcp://127.0.0.1:{port}: no Dask scheduler there "
                                    "([Errno 111] Connection refused)\n")


@pytest.fixture(scope="module")
def big_corpus(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus plus 16 sessions of 1 MB: enough work (under load, seconds) to be in the middle of it."""
    from support.daskservices import add_big_sessions

    folder = tmp_path_factory.mktemp("big") / "sessions"
    shutil.copytree(corpus, folder)
    big = folder / "--home-user-big--"
    add_big_sessions(big, 2, 1)
    for copy in range(14):
        shutil.copy(big / f"big{copy % 2:02d}.jsonl", big / f"copy{copy:02d}.jsonl")
    return folder


@pytest.fixture(scope="module")
def long_corpus(big_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 MB of sessions (hard links to the big ones): a run that is surely still going when it is interrupted,
    however fast the machine (the 16 MB of big_corpus take well under a second on two idle cores)."""
    folder = tmp_path_factory.mktemp("long") / "sessions"
    folder.mkdir(parents=True)
    source = big_corpus / "--home-user-big--" / "big00.jsonl"
    for copy in range(300):
        os.link(source, folder / f"long{copy:03d}.jsonl")
    return folder


def test_cli_output_survives_a_worker_killed_mid_run(big_corpus: Path, long_corpus: Path, tmp_path: Path) -> None:
    # The damaged sessions give findings to compare; the 300 MB behind them keep the run going while a worker
    # dies (16 MB alone ended on an idle CI machine before any task was seen done).
    args = ["-m", "pi_tools", "audit", "--format", "json", str(big_corpus), str(long_corpus)]
    local = pi_tools(*args[2:])
    doomed = start_cluster(2, tmp_path / "dask")
    try:
        by_pid = doomed.worker_addresses()
        run = subprocess.Popen([sys.executable, *args, "--engine", "dask", "--scheduler", doomed.address],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, stdin=subprocess.DEVNULL)
        victim = None
        deadline = time.monotonic() + 120
        with doomed.client() as watcher:
            while victim is None and run.poll() is None and time.monotonic() < deadline:
                processing = watcher.processing()
                done_tasks = watcher.run_on_scheduler(
                    lambda dask_scheduler: sum(1 for task in dask_scheduler.tasks.values() if task.state == "memory"))
                if done_tasks >= 2:
                    victim = next((p for p in doomed.workers if processing.get(by_pid[p.pid])), None)
                time.sleep(0.05)
        assert victim is not None and run.poll() is None, "the run ended before a worker could be killed in it"
        doomed.kill_worker(victim)
        stdout, stderr = run.communicate(timeout=300)
    finally:
        doomed.stop()
    assert (run.returncode, stdout, stderr) == (local.returncode, local.stdout, local.stderr)


@pytest.mark.parametrize("engine", [["--engine", "local"], ["--engine", "dask", "--scheduler", "CLUSTER"]])
@pytest.mark.parametrize("stage", ["audit", "usage"])
def test_cli_over_s3_writes_what_the_folder_gives(stage: str, engine: list[str], corpus: Path, s3: MotoS3,
                                                  cluster: DaskCluster) -> None:
    url = f"s3://{BUCKET}/sessions/"
    engine = [cluster.address if arg == "CLUSTER" else arg for arg in engine]
    local = pi_tools(stage, "--format", "json", str(corpus))
    remote = pi_tools(stage, "--format", "json", url, *engine, env=s3.env)
    named = local.stdout.replace(str(corpus).encode() + b"/", url.encode())
    assert (remote.returncode, remote.stdout, remote.stderr) == (local.returncode, named, local.stderr)
    assert s3.env["AWS_SECRET_ACCESS_KEY"].encode() not in remote.stdout + remote.stderr


def test_cli_payload_of_s3_files_matches_local_files(corpus: Path, s3: MotoS3, cluster: DaskCluster) -> None:
    url = f"s3://{BUCKET}/sessions/"
    files = names(corpus)[:8]
    local = pi_tools("payload", "--api", "anthropic-messages", "--model", MODEL, *files)
    remote = pi_tools("payload", "--api", "anthropic-messages", "--model", MODEL,
                      *[url + name[len(str(corpus)) + 1:] for name in files],
                      "--engine", "dask", "--scheduler", cluster.address, env=s3.env)
    named = local.stdout.replace(str(corpus).encode() + b"/", url.encode())
    assert local.stdout.count(b"\n") == 8
    assert (remote.returncode, remote.stdout) == (local.returncode, named)


@pytest.fixture
def without_the_extra(tmp_path: Path) -> dict[str, str]:
    """An environment in which `import distributed` and `import fsspec` fail, as without pi-tools[dask]."""
    for module in ("distributed", "fsspec", "dask"):
        (tmp_path / f"{module}.py").write_text("raise ImportError('not installed (test)')\n")
    return {"PYTHONPATH": str(tmp_path)}


@pytest.mark.parametrize(("args", "message"), [
    (["audit", "--engine", "dask", "fixtures/conformance/cases"], "--engine dask needs the dask extra"),
    (["audit", "s3://bucket/sessions/"], "reading s3:// URLs needs the dask extra"),
    (["usage", "s3://bucket/sessions/"], "reading s3:// URLs needs the dask extra"),
])
def test_cli_without_the_extra_says_how_to_install_it(args: list[str], message: str,
                                                     without_the_extra: dict[str, str]) -> None:
    done = pi_tools(*args, env=without_the_extra)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == f"pi-tools: {message}: pip install 'pi-tools[dask]'\n"


def test_help_and_local_runs_import_no_dask_or_fsspec() -> None:
    for args in (["--help"], ["audit", "--format", "json", "fixtures/conformance/cases"]):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "pi_tools", *args], capture_output=True,
                              cwd=ROOT, stdin=subprocess.DEVNULL, timeout=120)
        imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.decode().splitlines()
                    if line.startswith("import time:")}
        assert "pi_tools" in imported
        assert imported & {"dask", "distributed", "fsspec", "s3fs", "botocore", "aiobotocore"} == set()


def test_cli_ctrl_c_on_a_terminal_cancels_quietly(long_corpus: Path) -> None:
    """Ctrl-C reaches the whole process group (the LocalCluster's workers too): one line, exit 130, nothing left."""
    import psutil

    run = subprocess.Popen([sys.executable, "-m", "pi_tools", "audit", "--format", "json", "--engine", "dask",
                            str(long_corpus)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                           stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    workers: list[Any] = []
    def connected(process: Any) -> bool:
        try:
            return any(c.status == psutil.CONN_ESTABLISHED for c in process.net_connections(kind="tcp"))
        except psutil.Error:
            return False

    # A Ctrl-C while the cluster starts is not seen (engine.dask_backend._hold_interrupts): wait until both
    # workers are connected to its scheduler, and so at work.
    while not (len(workers) == 2 and all(connected(w) for w in workers)) and run.poll() is None \
            and time.monotonic() < deadline:
        # The workers are forked (spawned once polars is loaded): every descendant but multiprocessing's helper.
        workers = [child for child in psutil.Process(run.pid).children(recursive=True)
                   if "resource_tracker" not in " ".join(child.cmdline())]
        time.sleep(0.1)

    def cpu_seconds() -> float:
        try:
            return sum(sum(worker.cpu_times()[:2]) for worker in workers)
        except psutil.Error:
            return 0.0

    # Connected is not yet at work (on a loaded machine the client may still be connecting, with Ctrl-C held):
    # wait until the workers have spent a second of CPU since, which only the run's tasks give them.
    connected_at = cpu_seconds()
    while cpu_seconds() < connected_at + 1 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert run.poll() is None, "the run ended before it could be interrupted"
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert (run.returncode, stderr) == (130, b"pi-tools: interrupted: pending work cancelled\n")
    deadline = time.monotonic() + 30
    while any(worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE for worker in workers) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE for worker in workers)


def test_cli_on_a_scheduler_without_workers_gives_up(tmp_path: Path) -> None:
    alone = start_cluster(0, tmp_path / "dask")
    try:
        done = pi_tools("audit", "--engine", "dask", "--scheduler", alone.address, "fixtures/conformance/cases",
                        env={"PI_TOOLS_DASK_NO_WORKERS_TIMEOUT": "2"}, timeout=120)
    finally:
        alone.stop()
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == f"pi-tools: --scheduler {alone.address}: the scheduler has no workers (waited 2 s)\n"


def test_cli_index_on_the_cluster_writes_the_local_tables(corpus: Path, cluster: DaskCluster, tmp_path: Path) -> None:
    import polars as pl

    local = pi_tools("index", str(corpus), "-o", str(tmp_path / "local"))
    dask = pi_tools("index", str(corpus), "-o", str(tmp_path / "dask"), "--engine", "dask",
                    "--scheduler", cluster.address)
    assert (dask.returncode, local.returncode) == (0, 0)
    assert dask.stderr.replace(b"/dask:", b"/local:") == local.stderr
    for table in ("sessions", "entries", "messages", "tool_calls", "usage"):
        ours = pl.read_parquet(tmp_path / "dask" / table / "*.parquet")
        theirs = pl.read_parquet(tmp_path / "local" / table / "*.parquet")
        assert theirs.height > 0 and ours.equals(theirs), table


def test_trace_sends_from_the_cluster_what_local_workers_send(corpus: Path, cluster: DaskCluster) -> None:
    """A local pool's workers send the sessions they traced themselves; on Dask the spans come back to this process
    and leave from here: the receiver gets the same spans either way."""
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    import http.server
    import threading

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: list[bytes] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    def spans() -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        for body in received:
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    found.update((span.span_id, span.SerializeToString(deterministic=True)) for span in scope.spans)
        return found

    server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        local = pi_tools("trace", str(corpus), "--endpoint", url, "--engine", "local", "--jobs", "2")
        from_workers = spans()
        received.clear()
        dask = pi_tools("trace", str(corpus), "--endpoint", url, "--engine", "dask", "--scheduler", cluster.address)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert (dask.returncode, dask.stderr) == (local.returncode, local.stderr)
    assert b"spans to the receiver" in local.stderr and len(from_workers) > 500  # (top.jsonl repeats a fixture)
    assert spans() == from_workers
