"""The errors of work that cannot run as asked, defined below everything that raises them.

Reading an `s3://` or `file://` source needs the same optional extra as the Dask engine (fsspec comes with it),
so a missing extra is one error whether a source or the engine found it; `pi_tools.engine` re-exports both.
"""

from __future__ import annotations


class EngineError(Exception):
    """The work could not be run as asked (no scheduler at that address, a cluster that failed); the message
    says what and is shown to the user as is."""


class EngineUnavailable(EngineError):
    """The engine asked for needs an optional extra that is not installed; the message says how to install it."""
