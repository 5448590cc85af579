"""Imported sessions placed where Pi looks for them: `OUT/--<cwd>--/<timestamp>_<id>.jsonl`.

Pi keeps a project's sessions in one folder named after its working directory (getDefaultSessionDir: the cwd
without its leading separator, every `/`, `\\` and `:` as `-`, between `--` and `--`), and names each file after
its start time and id; with OUT = `~/.pi/agent/sessions`, `pi --resume` in that directory lists them.

Each file is written atomically and never over another: the ids are derived from the source, so importing the
same source again gives the same name and bytes (then nothing is written); a file of that name with other bytes
(the source grew, or Pi appended to the imported session since) is refused without `force`, because it may hold
the user's own later work.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pi_tools.importers.builder import SessionBuilder
from pi_tools.output.atomic import write_atomic, write_new

_SEPARATORS = re.compile(r"[/\\:]")


class ImportWriteError(Exception):
    """A session cannot be written (the message names the file)."""


def session_folder(cwd: str) -> str:
    """Pi's folder name for a working directory (`/home/u/p` → `--home-u-p--`)."""
    return "--" + _SEPARATORS.sub("-", re.sub(r"^[/\\]", "", cwd)) + "--"


@dataclass(frozen=True)
class Written:
    """One session file: where, and whether this run wrote it (False: an identical one was there)."""

    path: str
    wrote: bool


def write_sessions(builders: list[SessionBuilder], out: str, *, force: bool = False) -> list[Written]:
    """Write `builders` under `out` in order (a sidechain's parent before it, so its header can name the
    parent's file); the paths written, or ImportWriteError for the first that cannot be."""
    paths: dict[int, str] = {}
    written: list[Written] = []
    for builder in builders:
        if builder.parent is not None:
            parent = paths.get(id(builder.parent))
            if parent is not None:
                builder.parent_session = parent
        folder = os.path.join(out, session_folder(builder.cwd))
        path = os.path.abspath(os.path.join(folder, builder.file_name()))
        paths[id(builder)] = path
        written.append(_write(path, builder.data(), force=force))
    return written


def _write(path: str, data: bytes, *, force: bool) -> Written:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            with open(path, "rb") as handle:
                if handle.read() == data:
                    return Written(path, False)
            if not force:
                raise ImportWriteError(f"{path}: already exists with other content (imported from an older "
                                       "copy of the source, or resumed in Pi since); pass --force to replace it")
            write_atomic(path, data)
            return Written(path, True)
        write_new(path, data)
    except FileExistsError:
        raise ImportWriteError(f"{path}: appeared while importing; nothing written") from None
    except OSError as exc:
        raise ImportWriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return Written(path, True)
