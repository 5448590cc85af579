"""Reading Pi sessions: tolerant parsing with diagnostics, migrations, the entry tree and context building."""

from pi_tools.session.context import ContextError, SessionContext, build_session_context
from pi_tools.session.load import load_session, tree_from_raw
from pi_tools.session.reader import SessionReadError, parse_session_bytes, read_session_file
from pi_tools.session.tree import SessionTree

__all__ = [
    "ContextError", "SessionContext", "SessionReadError", "SessionTree", "build_session_context",
    "load_session", "parse_session_bytes", "read_session_file", "tree_from_raw",
]
