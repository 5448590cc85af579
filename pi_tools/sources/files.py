"""The inputs of a batch: local files and folders and, with the dask extra, fsspec URLs (s3://, gs://, file://).

A URL prefix is listed like a folder (every *.jsonl below it, in the order a sorted walk of a folder gives:
a level's files before its sub-folders), and its files are named by the URL given plus their path below it,
so a corpus copied from a folder to a bucket gives the same documents under the new names. Workers read the
files themselves (read_bytes runs where the task runs); only names and sizes pass through the client.
fsspec, s3fs and the rest are imported on the first URL only: local runs never load them. S3 endpoint and
credentials come from the usual places (AWS_ENDPOINT_URL, AWS_* variables, ~/.aws, fsspec's config) and are
never put in a message.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from typing import Any

from pi_tools.sources.errors import EngineUnavailable

INSTALL_HINT = "reading {scheme}:// URLs needs the dask extra: pip install 'pi-tools[dask]'"

_sizes: dict[str, int] = {}
"""Sizes learnt while listing a prefix, so that size_of does not ask the store again for each file."""


def is_url(name: str | os.PathLike[str]) -> bool:
    """True for `scheme://...` names (fsspec URLs); plain paths and `file://` URLs of this machine included.

    Library callers pass pathlib paths too: those are always local files."""
    return isinstance(name, str) and "://" in name


def _scheme(url: str) -> str:
    return url.split("://", 1)[0]


def _filesystem(url: str) -> tuple[Any, str]:
    """(fsspec filesystem, path inside it) for a URL; EngineUnavailable when the extra (or the scheme's own
    package, e.g. gcsfs for gs://) is missing."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT.format(scheme=_scheme(url))) from None
    try:
        return url_to_fs(url)  # type: ignore[no-any-return]
    except ImportError as exc:
        raise EngineUnavailable(f"{_scheme(url)}:// URLs: {str(exc).splitlines()[0]}") from None
    except ValueError as exc:  # an unknown protocol
        raise EngineUnavailable(f"{url}: {str(exc).splitlines()[0]}") from None


def _walk_key(relative: str) -> tuple[tuple[int, str], ...]:
    """Sort key giving os.walk's order with sorted names: a folder's files, then its sub-folders in turn."""
    parts = relative.split("/")
    return tuple((1, part) for part in parts[:-1]) + ((0, parts[-1]),)


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text or type(exc).__name__


def expand_url(url: str) -> list[tuple[str, str | None]]:
    """A URL's inputs: a prefix becomes its *.jsonl files (recursively, walk order); anything else is one file."""
    fs, root = _filesystem(url)
    root = root.rstrip("/")
    try:
        fs.invalidate_cache(root)
        is_dir = url.endswith("/") or fs.isdir(root)
        if not is_dir:
            return [(url, None)]
        found = fs.find(root, detail=True)
    except FileNotFoundError:
        return [(url, f"{url}: no such file or prefix")]
    except Exception as exc:  # noqa: BLE001 - a store's errors are many; each is reported as one line
        return [(url, f"{url}: cannot list: {_reason(exc)}")]
    prefix = url if url.endswith("/") else url + "/"
    names: list[tuple[tuple[tuple[int, str], ...], str]] = []
    for path, info in found.items():
        if info.get("type") == "directory" or not path.endswith(".jsonl"):
            continue
        if not path.startswith(root + "/"):
            continue
        relative = path[len(root) + 1:]
        name = prefix + relative
        size = info.get("size")
        if isinstance(size, int):
            _sizes[name] = size
        names.append((_walk_key(relative), name))
    if not names:
        return [(url, f"{url}: no session files (*.jsonl) under this prefix")]
    names.sort()
    return [(name, None) for _, name in names]


def expand(paths: list[str]) -> list[tuple[str, str | None]]:
    """(name, error) per input, in order: folders and URL prefixes become their *.jsonl files (recursively,
    sorted)."""

    out: list[tuple[str, str | None]] = []
    for path in paths:
        if is_url(path):
            out.extend(expand_url(path))
        elif os.path.isdir(path):
            found = list(find_session_files(path))
            if not found:
                out.append((path, f"{path}: no session files (*.jsonl) under this directory"))
            out.extend((name, None) for name in found)
        else:
            out.append((path, None))
    return out


def size_of(name: str) -> int:
    """The input's size in bytes (0 when unknown): the weight the engine spreads work by."""
    if is_url(name):
        known = _sizes.get(name)
        if known is not None:
            return known
        try:
            fs, path = _filesystem(name)
            return int(fs.size(path) or 0)
        except EngineUnavailable:
            raise
        except Exception:  # noqa: BLE001 - unknown size: the read will report what is wrong
            return 0
    try:
        return os.path.getsize(name)
    except OSError:
        return 0


def read_bytes(name: str) -> bytes:
    """The whole input, read where the task runs.

    A URL's failures are OSErrors shaped like the local ones (errno, strerror, the name as filename), so that
    callers word them alike: FileNotFoundError, IsADirectoryError for a prefix, OSError(EIO) for whatever else
    the store answered.
    """
    if not is_url(name):
        with open(name, "rb") as handle:
            return handle.read()
    fs, path = _filesystem(name)
    try:
        with fs.open(path, "rb") as handle:
            data: bytes = handle.read()
    except FileNotFoundError:
        if _is_dir(fs, path):
            raise _prefix_error(name) from None
        raise FileNotFoundError(errno.ENOENT, "no such file", name) from None
    except IsADirectoryError:
        raise _prefix_error(name) from None
    except Exception as exc:  # noqa: BLE001 - botocore, aiohttp and friends raise their own types
        raise OSError(errno.EIO, _reason(exc), name) from None
    # Some stores (s3fs) open a prefix as an empty file; an empty read is worth one more question.
    if not data and _is_dir(fs, path):
        raise _prefix_error(name)
    return data


def _prefix_error(name: str) -> IsADirectoryError:
    return IsADirectoryError(errno.EISDIR, "is a prefix (a folder), not a session file", name)


def _is_dir(fs: Any, path: str) -> bool:
    try:
        return bool(fs.isdir(path))
    except Exception:  # noqa: BLE001
        return False


def find_session_files(root: str) -> Iterator[str]:
    """Every *.jsonl file under a directory (sorted, symlinked directories not followed)."""
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(".jsonl"):
                yield os.path.join(directory, name)
