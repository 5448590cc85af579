"""`pi-tools import` for one source file: the engine's task (detect, convert, write), its failure a report.

The task runs where the engine puts it (this process, a pool, a Dask worker) and writes its own files there;
it returns the report, whose `error` says why a file could not be imported: one file's failure never stops
the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tools.importers.records import ImportFailed
from pi_tools.importers.report import ImportReport


@dataclass(frozen=True)
class ImportOptions:
    """What every file of one `pi-tools import` shares."""

    out: str
    pi: str
    kind: str | None = None
    force: bool = False
    dry_run: bool = False


def import_one(item: tuple[str, ImportOptions]) -> ImportReport:
    """Import the file `item[0]`: its report (with `written`, or `error` when nothing could be written)."""
    from pi_tools.importers.kinds import detect_kind, source_module
    from pi_tools.importers.writer import ImportWriteError, session_folder, write_sessions
    from pi_tools.pi import resolve

    path, options = item
    report = ImportReport(path, options.kind or "unknown")
    try:
        kind = options.kind or detect_kind(path)
        report.kind = kind
        builders = source_module(kind).convert(path, pi=resolve(options.pi), report=report)
        if options.dry_run:
            import os

            report.written = [os.path.join(options.out, session_folder(builder.cwd), builder.file_name())
                              for builder in builders]
            return report
        for done in write_sessions(builders, options.out, force=options.force):
            (report.written if done.wrote else report.unchanged).append(done.path)
    except (ImportFailed, ImportWriteError) as exc:
        report.fail(str(exc))
    except (RecursionError, MemoryError) as exc:  # a pathological source: said for this file, the others go on
        report.fail(f"cannot be imported: {type(exc).__name__}")
    except Exception as exc:  # a source this importer does not understand yet: one file's error, not a crash
        report.fail(f"cannot be imported: the {report.kind} importer failed on it ({type(exc).__name__}: {exc}); "
                    "please report it with the file's shape")
    return report
