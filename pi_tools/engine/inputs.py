"""The inputs of a batch: local files and folders (and, with the dask extra, fsspec URLs such as s3://...)."""

from __future__ import annotations

import os


def is_url(name: str) -> bool:
    """True for `scheme://...` names (fsspec URLs); plain paths and `file://` URLs of this machine included."""
    return "://" in name


def expand(paths: list[str]) -> list[tuple[str, str | None]]:
    """(name, error) per input, in order: folders become their *.jsonl files (recursively, sorted)."""
    from pi_tools.session.listing import find_session_files  # only when listing: reads import this module

    out: list[tuple[str, str | None]] = []
    for path in paths:
        if os.path.isdir(path):
            found = list(find_session_files(path))
            if not found:
                out.append((path, f"{path}: no session files (*.jsonl) under this directory"))
            out.extend((name, None) for name in found)
        else:
            out.append((path, None))
    return out


def size_of(name: str) -> int:
    """The input's size in bytes (0 when unknown): the weight the engine spreads work by."""
    try:
        return os.path.getsize(name)
    except OSError:
        return 0


def read_bytes(name: str) -> bytes:
    """The whole input, read where the task runs."""
    with open(name, "rb") as handle:
        return handle.read()
