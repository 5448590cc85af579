"""How search results are written: `hit` documents for tools, a table for people."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from pi_tools.corpus.search import FileHits
from pi_tools.output.texttable import align_columns
from pi_tools.pipe.documents import dumps_document, error_document

FORMATS = ("table", "json")


def json_pieces(results: Iterable[FileHits]) -> Iterator[bytes]:
    """One `hit` document per line, in input order (an `error` document where an input could not be read)."""
    for result in results:
        if result.error is not None:
            yield dumps_document(error_document(result.source, result.error))
        for hit in result.hits:
            yield dumps_document(hit)


class TableWriter:
    """Hits grouped by file under the file's name (line, entry, role, branch, text), then a summary."""

    def __init__(self) -> None:
        self.files = 0
        self.files_with_hits = 0
        self.hits = 0
        self.abandoned = 0
        self.unreadable = 0

    def pieces(self, results: Iterable[FileHits]) -> Iterator[str]:
        for result in results:
            self.files += 1
            if result.error is not None:
                self.unreadable += 1
                yield f"{result.error}\n"
            if not result.hits:
                continue
            self.files_with_hits += 1
            self.hits += len(result.hits)
            rows = []
            for hit in result.hits:
                abandoned = hit["branch"] == "abandoned"
                self.abandoned += abandoned
                rows.append((str(hit["line"]), str(hit["entryId"] if hit["entryId"] is not None else "-"),
                             hit["role"] or "-", "abandoned" if abandoned else "active", hit["text"]))
            yield result.source + "\n"
            yield "".join("  " + line + "\n" for line in align_columns(rows, right={0}))
        yield self.summary() + "\n"

    def summary(self) -> str:
        text = (f"{self.hits} hit(s) ({self.hits - self.abandoned} on active paths, {self.abandoned} on abandoned "
                f"branches) in {self.files_with_hits} of {self.files} file(s)")
        return text + (f"; {self.unreadable} unreadable" if self.unreadable else "")


@dataclass
class Written:
    """What write_results wrote: the exit status follows from it (grep's: hits 0, none 1, unreadable 2)."""

    hits: int = 0
    errors: int = 0


def write_results(results: Iterable[FileHits], output_format: str, out: IO[bytes],
                  on_error: Callable[[str], None]) -> Written:
    """Write results as they come (input order), telling `on_error` about each input that could not be read."""
    written = Written()

    def counted() -> Iterator[FileHits]:
        for result in results:
            if result.error is not None:
                written.errors += 1
                on_error(result.error)
            written.hits += len(result.hits)
            yield result

    if output_format == "json":
        for piece in json_pieces(counted()):
            out.write(piece)
    else:
        for text in TableWriter().pieces(counted()):
            out.write(text.encode("utf-8", "backslashreplace"))
    out.flush()
    return written
