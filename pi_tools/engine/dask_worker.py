"""Preloaded into the workers of a LocalCluster this process starts (distributed's `preload`).

Ctrl-C on a terminal reaches the whole process group, the cluster's worker processes too, and each would print
a KeyboardInterrupt traceback while the main process is already cancelling the run and closing the cluster
(engine.cancel). Workers leave SIGINT to the main process, as the local pool's workers do.
"""

from __future__ import annotations

import signal
from typing import Any


def dask_setup(worker: Any) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to change from here
        pass
