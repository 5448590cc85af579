"""Files written so that a crash never leaves half of one: a temporary file beside the target, fsync'ed, then
renamed over it (`write_atomic`) or linked to a name that must not exist yet (`write_new`).

The writers of new sessions (the rewrites, the importers) share these; a reader sees the old file or the whole
new one, never a torn one, and `write_new` never replaces a file someone else made meanwhile.
"""

from __future__ import annotations

import os
import tempfile


def fsync_directory(directory: str) -> None:
    """Make a rename or link in `directory` durable (where the platform allows opening a directory)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def temp_beside(path: str, data: bytes, mode: int | None) -> str:
    """`data` in a new fsync'ed hidden temporary file in `path`'s directory; its name."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temp, mode)
    except BaseException:
        unlink_quietly(temp)
        raise
    return temp


def unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_atomic(path: str, data: bytes, mode: int | None = None) -> None:
    """Write via a temporary file in the same directory, fsync, then rename over `path`."""
    temp = temp_beside(path, data, mode)
    try:
        os.replace(temp, path)
    except BaseException:
        unlink_quietly(temp)
        raise
    fsync_directory(os.path.dirname(os.path.abspath(path)))


def write_new(path: str, data: bytes, mode: int | None = None) -> None:
    """Like write_atomic, but never replaces an existing `path` (FileExistsError: a hard link cannot
    overwrite)."""
    temp = temp_beside(path, data, mode)
    try:
        os.link(temp, path)
    finally:
        unlink_quietly(temp)
    fsync_directory(os.path.dirname(os.path.abspath(path)))
