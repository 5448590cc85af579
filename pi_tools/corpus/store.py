"""The index folder on disk, written so that a reader never sees a half-written table.

    OUT/manifest.json                 what is indexed: per file its size, mtime, content hash and partition
    OUT/.gen-000007/<table>/*.parquet one generation of every table (partitions are never modified)
    OUT/<table> -> .gen-000007/<table>  what readers open (`OUT/tool_calls/*.parquet`)

A run builds a new generation beside the current one (unchanged partitions are hard links, so this costs no
copying), writes the manifest (to a temporary name, then renamed), and only then points each table's link at
the new generation, each with one atomic rename. A run killed at any moment leaves every table either as it
was or as it will be, never partly written; the next run finishes or discards what the killed one left (the
manifest says which generation is current). The folder is only ever written when it is empty or already an
index: anything else belongs to the user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any

import orjson

from pi_tools.corpus.schema import BASE, SCHEMA_VERSION, Shape
from pi_tools.output.atomic import write_atomic

MANIFEST = "manifest.json"
FORMAT = "pi-tools-index"
LOCK = ".lock"


class StoreError(Exception):
    """The output folder cannot be used as an index (not ours, or another run is writing it)."""


def generation_dir(generation: int) -> str:
    return f".gen-{generation:06d}"


def empty_manifest(shape: Shape = BASE) -> dict[str, Any]:
    """A manifest of no file; `pi` names the Pi version whose tables the index holds, when not the base ones."""
    pi = {"pi": shape.marker} if shape.marker is not None else {}
    return {"format": FORMAT, "schemaVersion": SCHEMA_VERSION, **pi, "generation": 0, "startedNs": 0, "files": {}}


class Store:
    """An index folder opened for one run (holding its lock until closed), holding the tables of `shape`."""

    def __init__(self, out: str, shape: Shape = BASE) -> None:
        self.out = out
        self.shape = shape
        self.tables = tuple(shape.tables)
        self.manifest = empty_manifest(shape)
        self.rebuilt = False
        """The index held other tables (another schema version, another Pi version's): this run replaces them
        even when no input needs reading."""
        self._lock: int | None = None

    # --- opening --------------------------------------------------------------------------------------------
    def open(self) -> None:
        out = self.out
        if os.path.exists(out) and not os.path.isdir(out):
            raise StoreError(f"{out}: exists and is not a folder")
        manifest_path = os.path.join(out, MANIFEST)
        if os.path.isdir(out) and not os.path.exists(manifest_path):
            stray = [name for name in os.listdir(out)
                     if name != LOCK and not name.startswith(".gen-") and not name.endswith(".tmp")]
            if stray:
                raise StoreError(f"{out}: the folder holds files and is not a pi-tools index (no {MANIFEST}); "
                                 "name a new or empty folder")
        os.makedirs(out, exist_ok=True)
        self._take_lock()
        if os.path.exists(manifest_path):
            self.manifest = self._read_manifest(manifest_path)
            generation = self.manifest["generation"]
            if generation and not os.path.isdir(os.path.join(out, generation_dir(generation))):
                # The tables' files are gone (removed by hand): index every file again.
                self.manifest = {**empty_manifest(self.shape), "generation": generation}
        self._settle()

    def _take_lock(self) -> None:
        import fcntl

        handle = os.open(os.path.join(self.out, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(handle)
            raise StoreError(f"{self.out}: another pi-tools index run is writing this folder") from None
        self._lock = handle

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _read_manifest(self, path: str) -> dict[str, Any]:
        try:
            with open(path, "rb") as handle:
                manifest = orjson.loads(handle.read())
        except (OSError, orjson.JSONDecodeError) as exc:
            raise StoreError(f"{path}: unreadable index manifest ({exc}); remove the folder to index afresh") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise StoreError(f"{path}: not a pi-tools index manifest")
        if manifest.get("schemaVersion") != SCHEMA_VERSION or manifest.get("pi") != self.shape.marker:
            # Written by another version of the tables, or for another Pi version (its rows read by other rules,
            # other tables): every file is indexed again (the old generation stays readable until the new one
            # replaces it, and the links of tables this run does not write go with it).
            manifest = {**empty_manifest(self.shape), "generation": int(manifest.get("generation") or 0)}
            self.rebuilt = True
        return manifest

    def _settle(self) -> None:
        """Finish what a killed run left: links to the manifest's generation, other generations removed."""
        generation = self.manifest["generation"]
        current = generation_dir(generation)
        if generation and os.path.isdir(os.path.join(self.out, current)):
            for table in self.tables:
                if os.path.isdir(os.path.join(self.out, current, table)):
                    self._point(table, current)
        for name in os.listdir(self.out):
            path = os.path.join(self.out, name)
            if name.startswith(".gen-") and name != current:
                shutil.rmtree(path, ignore_errors=True)
            elif name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(path)
        self._unlink_others(dangling_only=True)

    # --- writing a generation -------------------------------------------------------------------------------
    def begin(self) -> Generation:
        generation = Generation(self, self.manifest["generation"] + 1)
        os.makedirs(generation.path)
        for table in self.tables:
            os.makedirs(os.path.join(generation.path, table))
        return generation

    def commit(self, generation: Generation, manifest: dict[str, Any]) -> None:
        """Make `generation` the index: manifest first (atomically), then each table's link."""
        manifest = {**manifest, "generation": generation.number}
        write_atomic(os.path.join(self.out, MANIFEST), orjson.dumps(manifest))
        old = generation_dir(self.manifest["generation"])
        for table in self.tables:
            self._point(table, generation.name)
        self._unlink_others()
        self.manifest = manifest
        if old != generation.name:
            shutil.rmtree(os.path.join(self.out, old), ignore_errors=True)

    def discard(self, generation: Generation, manifest: dict[str, Any]) -> None:
        """Drop a generation that holds nothing new, keeping the manifest's new sizes, mtimes and hashes."""
        shutil.rmtree(generation.path, ignore_errors=True)
        manifest = {**manifest, "generation": self.manifest["generation"]}
        write_atomic(os.path.join(self.out, MANIFEST), orjson.dumps(manifest))
        self.manifest = manifest

    def _unlink_others(self, dangling_only: bool = False) -> None:
        """Remove the links of tables this index does not hold (it was written for another Pi version's tables
        and is being rebuilt), or with `dangling_only` those whose generation is gone: links into a generation
        only, never anything else in the folder."""
        for name in os.listdir(self.out):
            if name in self.tables:
                continue
            path = os.path.join(self.out, name)
            try:
                target = os.readlink(path)
            except OSError:
                continue
            parts = target.split(os.sep)
            if len(parts) == 2 and parts[0].startswith(".gen-") and parts[1] == name \
                    and not (dangling_only and os.path.isdir(os.path.join(self.out, parts[0]))):
                os.unlink(path)

    def _point(self, table: str, generation_name: str) -> None:
        link = os.path.join(self.out, table)
        target = os.path.join(generation_name, table)
        with contextlib.suppress(OSError):
            if os.readlink(link) == target:
                return
        temporary = link + ".link.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.symlink(target, temporary)
        os.replace(temporary, link)

    def current_part(self, table: str, part: str) -> str:
        return os.path.join(self.out, generation_dir(self.manifest["generation"]), table, f"{part}.parquet")


class Generation:
    """A generation being written (invisible to readers until the store commits it)."""

    def __init__(self, store: Store, number: int) -> None:
        self.store = store
        self.number = number
        self.name = generation_dir(number)
        self.path = os.path.join(store.out, self.name)

    def part_path(self, table: str, part: str) -> str:
        return os.path.join(self.path, table, f"{part}.parquet")

    def write(self, table: str, part: str, data: bytes) -> None:
        write_atomic(self.part_path(table, part), data)

    def keep(self, table: str, part: str) -> None:
        """Carry an unchanged partition over from the current generation (a hard link where possible)."""
        source = self.store.current_part(table, part)
        target = self.part_path(table, part)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)

    def parts(self, table: str) -> Iterator[str]:
        folder = os.path.join(self.path, table)
        return (name[:-len(".parquet")] for name in sorted(os.listdir(folder)) if name.endswith(".parquet"))
