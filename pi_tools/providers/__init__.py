"""Provider layer: pi-ai's model catalog, shared option rules, message normalisation and per-API adapters.

The names below are re-exported lazily (on first use): importing a light submodule such as ``table``, which the
CLI reads to list and check ``--api`` while it parses the command line, must not load the catalog and the
registry first. API subpackages are loaded on demand through ``registry``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_tools.providers.catalog import Model, all_models, calculate_cost, find_model, get_model
    from pi_tools.providers.errors import PayloadError, UnknownModelError
    from pi_tools.providers.registry import API_MODULES, build_payload, build_wire, stream_decoder

_HOMES = {
    "API_MODULES": "registry", "build_payload": "registry", "build_wire": "registry", "stream_decoder": "registry",
    "Model": "catalog", "all_models": "catalog", "calculate_cost": "catalog", "find_model": "catalog",
    "get_model": "catalog", "PayloadError": "errors", "UnknownModelError": "errors",
}

__all__ = [
    "API_MODULES",
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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
