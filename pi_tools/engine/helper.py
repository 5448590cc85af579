"""A helper process that indexes half of a large session and builds part of its payload, so that `payload` uses
two cores.

Reading a large session means decoding every line's head, and building its payload means parsing, rewriting and
encoding every message of its context; in CPython each runs on one core. `session.bulk.line_heads` indexes any
run of whole lines, and `providers.split` shows when a conversation can be built in parts with exactly the same
result; this module has the helper do some of both.

The helper is forked when the command starts (by pi_tools.engine.early): before any thread exists (forking a
threaded process is unsafe) and before the session is read, so it shares nothing large with the main process
and the two processes' memory adds up to what they each hold. It reads the second half of the first large file
itself, in chunks, and indexes it; the main process takes those heads only for the very bytes it read itself
(same size, same CRC-32 of each chunk). Then the two share out the parts of the payload as they go: the main
process takes them from the front, the helper from the back (SharedClaims), reading again the text it has
verified or receiving it with the task. Tasks and results travel as pickles over two pipes. The helper never
writes to stdout, ends when its task pipe closes, and any failure comes back as None: the main process then
does that work itself.
"""

from __future__ import annotations

import fcntl
import gc
import mmap
import os
import pickle
import signal
import struct
import sys
import threading
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # this module is imported before the fork, on every payload's way in: nothing it can spare
    from typing import IO, Any

SPLIT_BYTES_VARIABLE = "PI_TOOLS_SPLIT_BYTES"
DEFAULT_SPLIT_BYTES = 8 << 20
"""Payloads of sessions (and contexts) smaller than this are built whole and in one process; larger ones in parts
(see pipeline.stages.part_bytes), with a helper where there are two cores."""

SHARE = 0.4
"""For a file whose text the helper has not verified: the parts past this share of the message text are sent to
it with their text, for it to take from the back (the main process takes parts from the front)."""

_CHUNK = 4 << 20
"""The helper reads its half of a file in chunks of this size (its memory holds one at a time)."""


_warned: list[str] = []


def split_threshold() -> int | None:
    """The session size from which payloads are built in parts; None when PI_TOOLS_SPLIT_BYTES is "off" (or
    not a size, which is said once on stderr: the payloads are the same either way, only slower)."""
    value = os.environ.get(SPLIT_BYTES_VARIABLE, "").strip()
    if not value:
        return DEFAULT_SPLIT_BYTES
    if value.lower() == "off":
        return None
    try:
        threshold = int(value)
    except ValueError:
        threshold = -1
    if threshold < 0:
        if not _warned:
            _warned.append(value)
            sys.stderr.write(f"pi-tools: {SPLIT_BYTES_VARIABLE}={value!r} is neither a size in bytes nor 'off'; "
                             "payloads are built whole\n")
        return None
    return threshold


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _widen(fd: int) -> None:
    """A 1 MiB pipe buffer instead of 64 KiB: fewer switches between the processes while megabytes go through."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (AttributeError, OSError):
        pass


class TailIndex:
    """The helper's index of the second half of a file, from `start` (a line start) to `size`.

    `chunks` holds (offset, length, CRC-32) of each chunk read: to compare with the main process's bytes, and to
    check the text read again later. `heads` are the session.bulk.LineHeads of those lines. (A plain class: the
    dataclasses module would cost the fork several milliseconds.)"""

    def __init__(self, start: int, size: int, chunks: list[tuple[int, int, int]], heads: Any) -> None:
        self.start = start
        self.size = size
        self.chunks = chunks
        self.heads = heads


class SharedClaims:
    """stages.Claims shared by the two processes: the next part from the front, the last part not yet taken from
    the back, and the first part the helper may take, in shared memory.

    The lock is a POSIX record lock on a nameless temporary file: the kernel releases it if its holder dies, so
    a helper killed mid-claim never leaves the main process waiting (its parts are then missing, and the
    payload is built whole)."""

    def __init__(self) -> None:
        self._memory = mmap.mmap(-1, 24)  # anonymous and shared with the processes forked after this
        self._lock = os.open(os.environ.get("TMPDIR") or "/tmp", os.O_TMPFILE | os.O_RDWR, 0o600)

    def _locked(self, change: Callable[[int, int, int], tuple[tuple[int, int], int | None]]) -> int | None:
        fcntl.lockf(self._lock, fcntl.LOCK_EX)
        try:
            front, back, floor = struct.unpack("qqq", self._memory[:24])
            (front, back), taken = change(front, back, floor)
            self._memory[:16] = struct.pack("qq", front, back)
            return taken
        finally:
            fcntl.lockf(self._lock, fcntl.LOCK_UN)

    def reset(self, count: int, floor: int) -> None:
        """Parts 0..count-1 to hand out; the helper may take those from `floor` on."""
        fcntl.lockf(self._lock, fcntl.LOCK_EX)
        try:
            self._memory[:24] = struct.pack("qqq", 0, count - 1, floor)
        finally:
            fcntl.lockf(self._lock, fcntl.LOCK_UN)

    def front(self) -> int | None:
        return self._locked(lambda front, back, floor: ((front + 1, back), front) if front <= back
                            else ((front, back), None))

    def back(self) -> int | None:
        return self._locked(lambda front, back, floor: ((front, back - 1), back) if back >= max(front, floor)
                            else ((front, back), None))


class PayloadWorker:
    """The main process's handle on the helper."""

    def __init__(self, pid: int, tasks: IO[bytes], results: IO[bytes], indexed: str | None,
                 claims: SharedClaims, api: str | None = None) -> None:
        self._pid = pid
        self._api = api
        """The API hint the helper was started with (see _warm_up)."""
        self._claims = claims
        self._tasks: IO[bytes] | None = tasks
        self._results = results
        self._indexing = indexed
        """The file whose second half the helper is indexing, until its answer is read."""
        self._verified: tuple[str, int, int] | None = None
        """(file, start, size): text the helper read and this process found identical to its own."""
        self._expected: tuple[str, int, int, threading.Thread, list[Any]] | None = None
        from pi_tools.engine import cancel

        self._cancel_key = cancel.register(self.kill)
        """Ctrl-C ends the helper at once (engine.cancel), whatever it is doing."""

    @classmethod
    def start(cls, files: list[str], api: str | None = None) -> PayloadWorker | None:
        """Fork the helper when it can pay off: two usable cores and a named file at least the threshold (the
        first such file has its second half indexed by the helper at once). `api`, when known, is the API whose
        modules the helper imports while it waits for its first task (see _warm_up)."""
        threshold = split_threshold()
        if threshold is None or not hasattr(os, "fork") or _usable_cpus() < 2:
            return None
        large = None
        for name in files:
            try:
                if os.stat(name).st_size >= max(threshold, 1):
                    large = name
                    break
            except OSError:
                continue
        if large is None:
            return None
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        for fd in (task_write, result_write):
            _widen(fd)
        try:
            claims = SharedClaims()
        except (OSError, AttributeError):  # no O_TMPFILE here, or no writable temporary directory
            for fd in (task_read, task_write, result_read, result_write):
                os.close(fd)
            return None
        sys.stdout.flush()  # nothing buffered may be written twice
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(task_write)
            os.close(result_read)
            _serve(task_read, result_write, large, claims, api)  # never returns
        os.close(task_read)
        os.close(result_write)
        return cls(pid, os.fdopen(task_write, "wb"), os.fdopen(result_read, "rb"), large, claims, api)

    # --- the index of a file's second half (session.bulk.LineHeadsElsewhere) ---------------------------------

    def expect(self, source: str, data: bytes, start: int) -> bool:
        """Whether the helper is indexing `source` from `start` on; if so, this process's CRC-32 of those bytes
        starts on a thread (zlib releases the interpreter lock) while the first half is indexed here."""
        if self._indexing is None or source != self._indexing:
            return False
        crc: list[list[tuple[int, int, int]]] = []
        thread = threading.Thread(target=lambda: crc.append(chunk_crcs(data, start)), name="pi-tools-crc",
                                  daemon=True)
        thread.start()
        self._expected = (source, len(data), start, thread, crc)
        return True

    def line_heads(self) -> Any:
        """The helper's heads of the expected bytes, if it read exactly those bytes.

        Before waiting for them, this process loads what its first part will need (_warm_up: the role registry,
        the API's payload module), as the helper did: it needs them next in any case, and the helper is often
        still indexing (the two processes then both work until the heads come)."""
        expected, self._expected = self._expected, None
        if expected is not None and self._indexing is not None:
            _warm_up(self._api)
        tail = self._receive_index()
        if expected is None or tail is None:
            return None
        source, size, start, thread, crc = expected
        thread.join()
        if (tail.size, tail.start) != (size, start) or crc != [tail.chunks]:
            return None  # the file changed between the two reads
        self._verified = (source, start, size)
        return tail.heads

    def _receive_index(self) -> TailIndex | None:
        """The helper's first answer, always its index (read once, whether wanted or not)."""
        if self._indexing is None:
            return None
        self._indexing = None
        return self._receive()  # type: ignore[no-any-return]

    # --- parts of payloads (stages.PartsBuilder) ----------------------------------------------------------------

    def build_parts(self, api: str, model: Any, options: dict[str, Any], context: dict[str, Any],
                    planned_parts: list[Any], source: str, scan: Any = None,
                    pi: str | None = None) -> tuple[Any, Callable[[], Any]]:
        """Send one task (a stages.PartsBuilder): the helper takes parts from the back, this process from the
        front of the returned claims; the function waits for the helper's parts, None if it failed.

        The helper may take the parts whose text it has verified (sent without it) or, for other files, those past
        SHARE of the text (sent with it). The task goes out before this process starts on its own parts: a
        thread writing it meanwhile would wait for the interpreter lock at every chunk. `scan` (picklable) and the
        Pi version's name `pi` (see stages.build_claimed_parts) go with the task.
        """
        from pi_tools.pipeline.stages import LocalClaims

        self._receive_index()
        tasks = self._tasks
        if tasks is None:
            return LocalClaims(len(planned_parts)), lambda: None
        verified = self._verified
        floor = None
        if verified is not None and verified[0] == source:
            floor = next((index for index, part in enumerate(planned_parts) if verified[1] <= part.text_span()[0]),
                         None)
        if floor is not None:
            sent = [part.without_text() for part in planned_parts[floor:]]
        else:
            floor = _first_part_past(planned_parts, SHARE)
            sent = planned_parts[floor:]
        self._claims.reset(len(planned_parts), floor)
        try:
            pickle.dump((api, model, options, context, floor, sent, scan, pi), tasks, protocol=5)
            tasks.flush()
        except (OSError, ValueError, pickle.PicklingError):
            self.close()
            return LocalClaims(len(planned_parts)), lambda: None
        return self._claims, self._receive

    def _receive(self) -> Any:
        try:
            return pickle.load(self._results)
        except (EOFError, OSError, pickle.UnpicklingError):
            self.close()  # the helper is gone or unusable: no more tasks go to it
            return None

    def kill(self) -> None:
        """End the helper now (Ctrl-C: nothing it builds is wanted any more)."""
        try:
            os.kill(self._pid, signal.SIGKILL)
        except OSError:
            pass
        self.close()

    def close(self) -> None:
        """Let the helper end (its task pipe closes) and collect it."""
        from pi_tools.engine import cancel

        cancel.forget(self._cancel_key)
        if self._tasks is None:
            return
        for pipe in (self._tasks, self._results):  # a helper blocked writing an answer nobody reads ends too
            try:
                pipe.close()
            except OSError:
                pass
        self._tasks = None
        self._indexing = None
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:
            pass


# --- the helper's side -------------------------------------------------------------------------------------------


def index_second_half(read_into: Callable[[memoryview, int], int], size: int,
                      chunk_size: int = _CHUNK) -> TailIndex | None:
    """Read a file of `size` bytes from its first line start past the middle, in chunks of `chunk_size` from
    there (`read_into(buffer, offset)` fills a buffer and says how much), and index those lines; None if they
    are not clean lines. One buffer serves every chunk, and only a line cut by a chunk's end is copied."""
    from pi_tools.session.bulk import LineHeads, line_heads, second_half_search_start

    buffer = bytearray(max(chunk_size, 1 << 16))
    view = memoryview(buffer)
    middle = second_half_search_start(size)
    found = buffer.find(b"}\n{", 0, read_into(view, middle))  # a line longer than the buffer: no index here
    if found < 0:
        return None
    start = middle + found + 2
    heads = LineHeads([], [], [], [], [], False)
    chunks: list[tuple[int, int, int]] = []
    position, carried = start, b""

    def index(data: bytes | bytearray, begin: int, end: int, offset: int, ends_file: bool) -> bool:
        run = line_heads(data, begin, end, False, offset=offset, ends_file=ends_file)
        if run is not None:
            heads.extend(run)
        return run is not None

    while position < size:
        length = read_into(view[:min(chunk_size, size - position)], position)
        if length <= 0:
            return None  # the file shrank
        chunks.append((position, length, zlib.crc32(view[:length])))
        offset, position = position, position + length
        at_end = position >= size
        begin = 0
        if carried:  # the line the last chunk ended in
            newline = buffer.find(b"\n", 0, length)
            if newline < 0 and not at_end:
                carried += view[:length]
                continue
            begin = length if newline < 0 else newline + 1
            line = carried + view[:begin]
            if not index(line, 0, len(line), offset - len(carried), at_end and begin == length):
                return None
            carried = b""
        cut = length if at_end else buffer.rfind(b"\n", begin, length) + 1
        if cut > begin:
            if not index(buffer, begin, cut, offset, at_end):
                return None
        else:
            cut = begin
        carried = bytes(view[cut:length])
    return TailIndex(start, size, chunks, heads)


def chunk_crcs(data: bytes, start: int, chunk_size: int = _CHUNK) -> list[tuple[int, int, int]]:
    """(offset, length, CRC-32) of `data` from `start` in chunks as index_second_half reads them."""
    view = memoryview(data)
    return [(offset, len(view[offset:offset + chunk_size]), zlib.crc32(view[offset:offset + chunk_size]))
            for offset in range(start, len(data), chunk_size)]


class _VerifiedText:
    """The file's bytes read again by the helper, each chunk checked against the CRC-32 it had when indexed.

    The two chunks read last are kept: the helper takes parts from the back, so consecutive parts share a chunk,
    and a part across a chunk boundary needs both; keeping only one read the earlier chunk again for the next
    part. A part across a boundary is joined from its own slices of the chunks, not from whole chunks."""

    def __init__(self, fd: int, chunks: list[tuple[int, int, int]]) -> None:
        self._fd = fd
        self._chunks = chunks
        self._kept: dict[int, bytes] = {}

    def _chunk(self, offset: int, length: int, crc: int) -> bytes:
        chunk = self._kept.get(offset)
        if chunk is None:
            chunk = os.pread(self._fd, length, offset)
            if len(chunk) != length or zlib.crc32(chunk) != crc:
                raise OSError("the session file changed while it was read")
            if len(self._kept) >= 2:
                del self._kept[next(iter(self._kept))]  # the older of the two
            self._kept[offset] = chunk
        return chunk

    def __call__(self, start: int, end: int) -> bytes:
        covering = [chunk for chunk in self._chunks if chunk[0] < end and chunk[0] + chunk[1] > start]
        if not covering or covering[0][0] > start or covering[-1][0] + covering[-1][1] < end:
            raise OSError("text outside what was indexed")
        if len(covering) == 1:
            first = covering[0][0]
            return self._chunk(*covering[0])[start - first:end - first]
        return b"".join(self._chunk(*chunk)[max(start - chunk[0], 0):end - chunk[0]] for chunk in covering)


def _first_part_past(planned_parts: list[Any], share: float) -> int:
    """Index of the first part past `share` of the message text (the last part at the latest)."""
    sizes = [part.text_size() for part in planned_parts]
    total, done = sum(sizes), 0
    for index, size in enumerate(sizes):
        if done >= share * total:
            return index
        done += size
    return len(sizes) - 1


def _warm_up(api: str | None) -> None:
    """What building a first part would load, loaded before its task comes: the role registry (the installed
    entry points) and what the API's adapter builds payloads with (registry.warm_up). The helper has indexed its
    half of the file before the main process has planned the context, so this costs it nothing, and its first
    part starts that much sooner."""
    try:
        from pi_tools.messages import default_registry
        from pi_tools.providers import registry, split  # noqa: F401 - imported for the parts to come

        default_registry()
        if api is not None:
            registry.warm_up(api)
    except Exception:  # noqa: BLE001 - building the part imports it again and reports what fails there
        pass


def _serve(task_fd: int, result_fd: int, large: str, claims: SharedClaims, api: str | None = None) -> None:
    """The helper's life: index the large file's second half, then build each task's parts until the task pipe
    closes, and end without any teardown."""
    status = 0
    try:
        gc.disable()  # as the main process (cli.app.main): no cycles to find, only live objects to rescan
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the helper quietly with the command
        with os.fdopen(task_fd, "rb") as tasks, os.fdopen(result_fd, "wb") as results:
            file_fd = os.open(large, os.O_RDONLY)
            try:
                index = index_second_half(lambda buffer, offset: os.preadv(file_fd, [buffer], offset),
                                          os.fstat(file_fd).st_size)
            except Exception:  # noqa: BLE001 - the main process indexes the whole file itself
                index = None
            pickle.dump(index, results, protocol=5)
            results.flush()
            text = _VerifiedText(file_fd, index.chunks if index is not None else [])
            del index
            from pi_tools.pipeline.stages import build_claimed_parts

            _warm_up(api)
            while True:
                try:
                    task = pickle.load(tasks)
                except EOFError:
                    break
                try:
                    api, model, options, context, floor, parts, scan, pi = task
                    for part in parts:
                        if part.text_is_detached():
                            part.fetch_text_with(text)
                    built = build_claimed_parts(api, model, options, context, [None] * floor + parts, claims.back,
                                                scan, pi)
                except Exception:  # noqa: BLE001 - the main process builds the payload whole and reports it
                    built = None
                del task
                pickle.dump(built, results, protocol=5)
                results.flush()
                del built
    except BaseException:  # noqa: BLE001 - whatever happens here, never run the parent's code in this process
        status = 1
    finally:
        os._exit(status)
