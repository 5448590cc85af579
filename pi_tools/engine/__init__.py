"""How batch work runs: in this process, on this machine's cores, or on a Dask cluster.

Stages hand the engine a task (a module-level function, so that it can travel to another process) and the
small items it runs on (paths or URLs and options, never file contents: workers read the files themselves).
The engine decides where each call runs and gives the results back in input order, whatever order they
finished in, because CI output must not depend on scheduling. This is the only package that starts processes,
pools or threads for batch work; the stages and the CLI only say what to run.

What lives here: `run` (map_ordered: in this process, a local pool, or Dask), `options` (what the caller asks
for), `progress` (the bar on a terminal), `cancel` (Ctrl-C), `inputs` (what a batch reads), and the start of a
single large `payload`: `early` (what the entry point starts before the imports), `helper` (the forked helper
process that builds half of a large payload) and `readahead` (the first file read while modules import).

The names below are loaded on first use: the entry point imports `pi_tools.engine.early` before anything else,
and that must not pay for the rest of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.engine.options import ENGINE_KINDS, Engine, EngineError, EngineUnavailable
    from pi_tools.engine.run import map_ordered

__all__ = ["ENGINE_KINDS", "Engine", "EngineError", "EngineUnavailable", "map_ordered"]


def __getattr__(name: str) -> Any:
    if name == "map_ordered":
        from pi_tools.engine.run import map_ordered

        return map_ordered
    if name in __all__:
        from pi_tools.engine import options

        return getattr(options, name)
    raise AttributeError(f"module 'pi_tools.engine' has no attribute {name!r}")
