"""Provider layer: the API table (`table`) and one folder per API behind one contract (`contract`, reached
through `registry`), pi-ai's model catalog, shared option rules and message normalisation.

The names below are imported on first use: importing the catalog (and the registry behind it) cost every
`pi_tools.providers.*` import about 30 ms before its work began, the table's `--api` check included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.providers.catalog import Model, all_models, calculate_cost, find_model, get_model
    from pi_tools.providers.errors import PayloadError, UnknownModelError
    from pi_tools.providers.registry import build_payload, build_wire, stream_decoder

__all__ = [
    "Model",
    "PayloadError",
    "UnknownModelError",
    "all_models",
    "build_payload",
    "build_wire",
    "calculate_cost",
    "find_model",
    "get_model",
    "stream_decoder",
]

_HOMES = {"Model": "catalog", "all_models": "catalog", "calculate_cost": "catalog", "find_model": "catalog",
          "get_model": "catalog", "PayloadError": "errors", "UnknownModelError": "errors",
          "build_payload": "registry", "build_wire": "registry", "stream_decoder": "registry"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
