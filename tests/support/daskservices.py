"""Services the Dask and S3 tests start on 127.0.0.1 and stop again: a real `dask scheduler` with `dask worker`
processes (the CLI commands users run), a moto S3 server, and the generated corpus they work on."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.oracle_path import GEN_CORPUS

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]

# A few fixtures beside the generated sessions: real damaged sessions and hand-made bad ones.
FIXTURES = [
    "fixtures/realworld/castai__kimchi-dev__session.jsonl",
    "fixtures/realworld/lamurian__paradocs__session.jsonl",
    "fixtures/conformance/cases/c002_branching.jsonl",
    "fixtures/conformance/cases/c004_crossprovider.jsonl",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def dask_command(*args: str) -> list[str]:
    """The `dask` command of this environment (beside the interpreter), else `python -m dask`."""
    script = Path(sys.executable).parent / "dask"
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "dask", *args]


def build_corpus(root: Path, seed: int = 14, count: int = 30) -> Path:
    """root/sessions/: `count` generated sessions in one project folder, the fixtures in another, one at the
    top (so the walk order of files before sub-folders is exercised). Returns root/sessions."""
    sessions = root / "sessions"
    generated = sessions / "--home-user-gen--"
    generated.mkdir(parents=True)
    subprocess.run([sys.executable, str(GEN_CORPUS), "--seed", str(seed), "--count", str(count),
                    "--out", str(generated)], check=True, stdout=subprocess.DEVNULL)
    fixtures = sessions / "--home-user-fixtures--"
    fixtures.mkdir()
    for name in FIXTURES:
        shutil.copy(ROOT / name, fixtures / Path(name).name)
    shutil.copy(ROOT / FIXTURES[2], sessions / "top.jsonl")
    (sessions / "notes.txt").write_text("not a session\n")
    return sessions


def add_big_sessions(folder: Path, count: int, megabytes: int, seed: int = 40) -> None:
    """Sessions of about `megabytes` each, so that a run lasts long enough to kill a worker in its middle."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        subprocess.run([sys.executable, str(GEN_CORPUS), "--big", "--seed", str(seed + number), "--target-mb",
                        str(megabytes), "--out", str(folder / f"big{number:02d}.jsonl")],
                       check=True, stdout=subprocess.DEVNULL)


@dataclass
class DaskCluster:
    """A scheduler and its workers, each a `dask` command in a process of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    log_dir: Path | None = None

    def client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout=30, set_as_default=False)

    def worker_addresses(self) -> dict[int, str]:
        """Worker process id -> its address at the scheduler."""
        with self.client() as client:
            pids = client.run(os.getpid)
        return {int(pid): address for address, pid in pids.items()}

    def kill_worker(self, process: subprocess.Popen[bytes]) -> None:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.workers, self.scheduler]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def start_cluster(workers: int, log_dir: Path, env: dict[str, str] | None = None) -> DaskCluster:
    """A scheduler on a free loopback port and `workers` single-threaded workers, ready (all joined) on return.

    Workers run in the repository with tests/ on their path, so they import both pi_tools and the tasks defined
    in the test modules; `env` is added to their environment (the S3 endpoint and its test credentials).
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT)])}
    scheduler = subprocess.Popen(
        dask_command("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"),
        cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=open(log_dir / "scheduler.log", "wb"))
    cluster = DaskCluster(address, scheduler, log_dir=log_dir)
    try:
        for number in range(workers):
            cluster.workers.append(subprocess.Popen(
                dask_command("worker", address, "--nworkers", "1", "--nthreads", "1", "--no-nanny",
                             "--no-dashboard", "--host", "127.0.0.1", "--name", f"w{number}",
                             "--death-timeout", "60", "--local-directory", str(log_dir / f"w{number}")),
                cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL,
                stderr=open(log_dir / f"worker{number}.log", "wb")))
        deadline = time.monotonic() + 120
        while True:
            try:
                with cluster.client() as client:
                    if workers:
                        client.wait_for_workers(workers, timeout=max(1, deadline - time.monotonic()))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    except BaseException:
        cluster.stop()
        raise
    return cluster


class MotoS3:
    """moto's S3 server on a free loopback port, and the environment that points boto/s3fs at it."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self.server.start()
        self.env = {
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{self.port}",
            "AWS_ACCESS_KEY_ID": "pitools-test-key-id",
            "AWS_SECRET_ACCESS_KEY": "pitools-test-secret-do-not-print",
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.env["AWS_ENDPOINT_URL"],
                            aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"],
                            region_name=self.env["AWS_DEFAULT_REGION"])

    def upload(self, folder: Path, bucket: str, prefix: str) -> None:
        """Every file below `folder` to s3://bucket/prefix/<path below folder>."""
        s3 = self.client()
        s3.create_bucket(Bucket=bucket)
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                s3.put_object(Bucket=bucket, Key=f"{prefix}/{path.relative_to(folder).as_posix()}",
                              Body=path.read_bytes())

    def stop(self) -> None:
        self.server.stop()


# Tasks the tests run on the workers (module-level, so that they travel by name: workers import this module).

def audit_task(name: str) -> tuple[str, list[Any], str | None]:
    """Audit one input read through the engine's inputs (a path or a URL), as the stages' tasks do."""
    from pi_tools.audit.checks import audit_bytes
    from pi_tools.session.reader import SessionReadError, read_session_bytes

    try:
        data = read_session_bytes(name)
    except SessionReadError as exc:
        return name, [], str(exc)
    return name, audit_bytes(data, name), None


def slow_audit_task(name: str) -> tuple[str, list[Any], str | None]:
    """audit_task taking at least a third of a second, so that a run of 35 lasts long enough to interrupt."""
    time.sleep(0.35)
    return audit_task(name)


def failing_task(name: str) -> tuple[str, list[Any], str | None]:
    if name.endswith("gen005_errors.jsonl"):
        raise ValueError("planted failure")
    return audit_task(name)


def worker_pid(_: object) -> int:
    time.sleep(0.05)
    return os.getpid()
