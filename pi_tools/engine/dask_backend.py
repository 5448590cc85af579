"""Dask: the same tasks on a cluster (a scheduler's address) or on an embedded LocalCluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from pi_tools.engine.options import Engine, EngineUnavailable

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = "--engine dask needs the dask extra: pip install 'pi-tools[dask]'"


def map_ordered_dask(task: Callable[[T], R], items: Sequence[T], engine: Engine, *,
                     weights: Sequence[int] | None = None) -> Iterator[R]:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT) from None
    raise EngineUnavailable("--engine dask: not built yet")  # replaced by the Dask backend
