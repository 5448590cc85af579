"""Preloaded into the workers of a LocalCluster this process starts (distributed's `preload`).

Ctrl-C on a terminal reaches the whole process group, the cluster's worker processes too, and each would print
a KeyboardInterrupt traceback while the main process is already cancelling the run and closing the cluster
(engine.cancel). Workers leave SIGINT to the main process, as the local pool's workers do.

The workers write to the command's stderr, which carries only what the run reports: a worker's own log lines
(a heartbeat that meets the scheduler already closing at the end of a run, seen under load) are not for the
user. What goes wrong with a task comes back to the client, which reports it (dask_backend).

A forked worker also inherits the streams as they were at the fork: on a terminal, with the progress bar
drawn, sys.stderr is the bar's proxy, whose lock the bar's thread (not copied into the worker) may have held at
that moment. The worker writes to the real streams instead.
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Any


def dask_setup(worker: Any) -> None:
    from pi_tools.engine.depth import allow_deep_values

    allow_deep_values()  # as every process that runs stages (engine.depth)
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to change from here
        pass
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)
