"""How batch work runs: in this process, on this machine's cores, or on a Dask cluster.

Stages hand the engine a task (a module-level function, so that it can travel to another process) and the
small items it runs on (paths or URLs and options, never file contents: workers read the files themselves).
The engine decides where each call runs and gives the results back in input order, whatever order they
finished in, because CI output must not depend on scheduling. This is the only package that starts processes,
pools or threads for batch work; the stages and the CLI only say what to run.
"""

from __future__ import annotations

from pi_tools.engine.options import ENGINE_KINDS, Engine, EngineError, EngineUnavailable
from pi_tools.engine.run import map_ordered

__all__ = ["ENGINE_KINDS", "Engine", "EngineError", "EngineUnavailable", "map_ordered"]
