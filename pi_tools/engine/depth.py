"""How deeply nested a session's values may be before Python's own recursion stops a stage.

Pi reads any depth (V8's JSON.parse does not recurse), and damaged sessions hold values nested a thousand levels
and more. Python's default limit (1,000 frames) made comparing, printing, pickling or walking such a value fail
in whichever stage met it first. Every process that runs stages (the CLI, the local pool's workers, Dask workers)
raises the limit once, here; the C stack of a default 8 MB thread holds well over this many levels of the
interpreter's recursive operations (measured: repr, ==, pickle and json over 30,000 levels). A value deeper still
fails as before, as an error for its file.
"""

from __future__ import annotations

import sys

RECURSION_LIMIT = 20_000


def allow_deep_values() -> None:
    """Raise this process's recursion limit to RECURSION_LIMIT (never lower it)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
