"""One call from a path to a SessionTree: read, check the header, migrate in memory, index."""

from __future__ import annotations

from pi_tools.session.bulk import BulkSession, index_clean_session
from pi_tools.session.context import PI_085_RULES, ContextRules
from pi_tools.session.diagnostics import diagnostic
from pi_tools.session.migrations import MigrationError, migrate_to_current, session_version
from pi_tools.session.reader import (
    RawSession,
    SessionReadError,
    parse_session_bytes,
    paused_gc,
    read_session_bytes,
    read_session_file,
    validate_header,
)
from pi_tools.session.tree import PI_085_VOCABULARY, SessionTree, Vocabulary, build_tree


def tree_from_raw(raw: RawSession, vocabulary: Vocabulary = PI_085_VOCABULARY) -> SessionTree:
    """Migrate and index an already parsed file (raises SessionReadError where Pi would throw); entry types
    and roles outside `vocabulary` (the Pi version's) are diagnosed as unknown."""
    version = session_version(raw.file_entries) if raw.file_entries else None
    with paused_gc():
        try:
            migrated = migrate_to_current(raw.file_entries)
        except MigrationError as exc:
            raise SessionReadError(str(exc)) from None  # Pi's own words; the error document names the file
        if migrated:
            raw.diagnostics.append(diagnostic(
                "legacy-version",
                f"session format version {version} migrated to 3 in memory; Pi would rewrite the file on open",
                raw.line_numbers[0] if raw.line_numbers else None, "info"))
        tree = build_tree(raw.source, raw.file_entries, raw.line_numbers, raw.diagnostics, vocabulary)
    tree.migrated_from = version if migrated else None
    tree.data = raw.data
    return tree


def load_session(path: str, lazy: bool = False, rules: ContextRules = PI_085_RULES) -> SessionTree:
    """Load a session file the way `pi --session FILE` does, without ever writing to it.

    `lazy` keeps well-formed message entries as heads parsed on demand (SessionTree.materialize): the context
    stages use it so that entries outside the context are never fully built. Stages that inspect every entry
    (audit, tree, usage) load eagerly. `rules`: the Pi version's (its vocabulary decides the diagnostics).
    """
    return tree_from_raw(read_session_file(path, lazy), rules.vocabulary)


def context_source(data: bytes, source: str, check_all_lines: bool = True,
                   rules: ContextRules = PI_085_RULES) -> SessionTree | BulkSession:
    """What the context stages read a session through: a bulk index for a clean file, else a lazy tree.

    Both give the same contexts and diagnostics; the bulk index is several times faster on large files. A stage
    that reports no diagnostics passes `check_all_lines=False` (see index_clean_session). The bulk index plans
    by the version's `rules` (their kept_filter and planned_projection); a file whose context they say it cannot
    plan (rules.bulk_fits) is read line by line.
    """
    with paused_gc():
        bulk = index_clean_session(data, source, check_all_lines, rules=rules)
    if bulk is not None and rules.bulk_fits(bulk):
        return bulk
    return tree_from_raw(validate_header(parse_session_bytes(data, source, lazy=True), len(data)), rules.vocabulary)


def load_context_source(path: str, check_all_lines: bool = True,
                        rules: ContextRules = PI_085_RULES) -> SessionTree | BulkSession:
    """context_source for a file (SessionReadError for paths that cannot be session files)."""
    return context_source(read_session_bytes(path), path, check_all_lines, rules)
