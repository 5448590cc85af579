"""How deeply nested a session's values may be before Python's own recursion stops a stage.

Pi reads any depth (V8's JSON.parse does not recurse), and damaged sessions hold values nested a thousand levels
and more. Python's default limit (1,000 frames) made comparing, printing, pickling or walking such a value fail
in whichever stage met it first. Every process that runs stages (the CLI, the local pool's workers, Dask workers)
raises the limit once, here. Not further than this: the places that answer as V8 does past its own depth
(JSON.stringify past 4,140 levels, Array.prototype.join past 3,278: js.json_stringify, js.values) take their
explicit-stack path when Python's recursion gives up, which must happen before V8's limits. A value deeper than
about 3,000 levels is handled where it is met (an explicit stack, a description of its kind) or fails as an
error for its file.
"""

from __future__ import annotations

import sys

RECURSION_LIMIT = 3_000
"""Below V8_JOIN_DEPTH (3,278), the lowest depth at which pi-tools answers as V8 fails."""


def allow_deep_values() -> None:
    """Raise this process's recursion limit to RECURSION_LIMIT (never lower it)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
