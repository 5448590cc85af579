"""sources.files on fsspec URLs (memory:// and file:// here; s3:// against moto in test_dask_engine.py): a
prefix lists like a folder, sizes and bytes come from the store, and failures are worded like local ones."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

fsspec = pytest.importorskip("fsspec")

from pi_tools.engine import EngineUnavailable  # noqa: E402
from pi_tools.session.reader import SessionReadError, read_session_bytes  # noqa: E402
from pi_tools.sources.files import expand, read_bytes, size_of  # noqa: E402

# Names chosen so that a plain sort of the paths and a sorted walk of the folders disagree.
TREE = {
    "b.jsonl": b'{"type":"session"}\n',
    "a/z.jsonl": b"1",
    "a/a/x.jsonl": b"22",
    "a.jsonl": b"333",
    "a/notes.txt": b"not a session",
    "c/d/e.jsonl": b"4444",
}


def local_tree(root: Path) -> Path:
    for name, data in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def memory_tree() -> str:
    url = f"memory://pitools-{uuid.uuid4().hex}/"
    store = fsspec.filesystem("memory")
    for name, data in TREE.items():
        store.pipe(url + name, data)
    return url


def test_a_prefix_lists_in_the_order_of_the_same_folder(tmp_path: Path) -> None:
    folder = local_tree(tmp_path)
    below = [name[len(str(folder)) + 1:] for name, _ in expand([str(folder)])]
    assert below == ["a.jsonl", "b.jsonl", "a/z.jsonl", "a/a/x.jsonl", "c/d/e.jsonl"]
    url = memory_tree()
    assert expand([url]) == [(url + name, None) for name in below]
    assert expand([url.rstrip("/")]) == [(url + name, None) for name in below]
    assert expand([f"file://{folder}/"]) == [(f"file://{folder}/{name}", None) for name in below]


def test_sizes_and_bytes_come_from_the_store() -> None:
    url = memory_tree()
    names = [name for name, _ in expand([url])]
    assert [size_of(name) for name in names] == [3, len(TREE["b.jsonl"]), 1, 2, 4]
    assert read_bytes(url + "c/d/e.jsonl") == b"4444"
    assert size_of(url + "missing.jsonl") == 0


def test_a_url_file_and_a_prefix_without_sessions() -> None:
    url = memory_tree()
    assert expand([url + "a/z.jsonl"]) == [(url + "a/z.jsonl", None)]
    assert expand([url + "empty/"]) == [(url + "empty/", f"{url}empty/: no session files (*.jsonl) under this prefix")]


def test_read_failures_are_worded_like_local_ones() -> None:
    url = memory_tree()
    with pytest.raises(SessionReadError) as missing:
        read_session_bytes(url + "missing.jsonl")
    assert str(missing.value) == f"{url}missing.jsonl: no such file"
    with pytest.raises(SessionReadError) as prefix:
        read_session_bytes(url + "a")
    assert str(prefix.value) == f"{url}a: cannot read: is a prefix (a folder), not a session file"


def test_unknown_schemes_and_missing_packages_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EngineUnavailable) as unknown:
        expand(["nosuchscheme://bucket/x/"])
    assert str(unknown.value) == "nosuchscheme://bucket/x/: Protocol not known: nosuchscheme"
    monkeypatch.setitem(sys.modules, "fsspec", None)
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    with pytest.raises(EngineUnavailable) as absent:
        expand(["s3://bucket/sessions/"])
    assert str(absent.value) == "reading s3:// URLs needs the dask extra: pip install 'pi-tools[dask]'"
