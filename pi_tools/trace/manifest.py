"""The incremental run's memory (`--manifest FILE`): per session file, its size and mtime when it was last
traced, the options it was traced with, and the ids of the spans already delivered.

An unchanged file is not read again; a grown one is traced whole but only its new spans leave (ids are derived
from entry ids, so the old spans have the ids recorded). A tool call still waiting for its result is not
recorded, so that it is sent again once finished (a back end that keeps the first copy of an id keeps the
unfinished one). The session's own span is sent once: its end is that of the first run. Another `--content`, `--branches`, `--since` or Pi version
traces a file afresh. The manifest is written only after the spans were delivered, atomically, so a failed send is
retried whole by the next run.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from pi_tools.trace.mapping import TraceOptions

FORMAT = 1


class ManifestError(Exception):
    """A manifest that cannot be read or written (the message names the file)."""


def _stat(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


def _settings(options: TraceOptions, pi: str) -> str:
    settings = f"{options.content}/{options.branches}/{options.cost}/{pi}"
    return settings if options.since is None else f"{settings}/since {options.since}"


class Manifest:
    """The manifest file's contents, per absolute session path."""

    def __init__(self, path: str, files: dict[str, Any]) -> None:
        self.path = path
        self.files = files

    @classmethod
    def load(cls, path: str) -> Manifest:
        """The manifest at `path` (empty when there is none yet)."""
        try:
            with open(path, "rb") as handle:
                data = orjson.loads(handle.read())
        except FileNotFoundError:
            return cls(path, {})
        except OSError as exc:
            raise ManifestError(f"--manifest {path}: cannot read: {exc.strerror or exc}") from None
        except orjson.JSONDecodeError as exc:
            raise ManifestError(f"--manifest {path}: not a trace manifest (line {exc.lineno}: {exc.msg})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            raise ManifestError(f"--manifest {path}: not a trace manifest (no \"format\": {FORMAT} and \"files\")")
        return cls(path, data["files"])

    def _record(self, path: str, options: TraceOptions, pi: str) -> dict[str, Any] | None:
        record = self.files.get(os.path.abspath(path))
        if not isinstance(record, dict) or record.get("settings") != _settings(options, pi):
            return None
        return record

    def unchanged(self, path: str, options: TraceOptions, pi: str) -> bool:
        """Whether the file is as it was when last traced with these settings."""
        record = self._record(path, options, pi)
        stat = _stat(path)
        return record is not None and stat is not None and [record.get("size"), record.get("mtimeNs")] == list(stat)

    def sent(self, path: str, options: TraceOptions, pi: str) -> frozenset[str]:
        """The ids of the file's spans delivered before (none when the settings changed)."""
        record = self._record(path, options, pi)
        spans = record.get("spans") if record is not None else None
        return frozenset(span for span in spans if isinstance(span, str)) if isinstance(spans, list) else frozenset()

    def record(self, path: str, options: TraceOptions, pi: str, span_ids: tuple[str, ...]) -> None:
        """Remember a file traced now (its spans delivered)."""
        stat = _stat(path)
        if stat is None:
            return
        self.files[os.path.abspath(path)] = {"size": stat[0], "mtimeNs": stat[1],
                                             "settings": _settings(options, pi), "spans": list(span_ids)}

    def save(self) -> None:
        """Write the manifest atomically."""
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(temporary, "wb") as handle:
                handle.write(orjson.dumps({"format": FORMAT, "files": self.files}, option=orjson.OPT_SORT_KEYS))
            os.replace(temporary, self.path)
        except OSError as exc:
            raise ManifestError(f"--manifest {self.path}: cannot write: {exc.strerror or exc}") from None
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
