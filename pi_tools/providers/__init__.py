"""Provider layer: pi-ai's model catalog, shared option rules, message normalisation and per-API adapters.

Only light modules are re-exported here; API subpackages are loaded on demand through ``registry``.
"""

from pi_tools.providers.catalog import Model, all_models, calculate_cost, find_model, get_model
from pi_tools.providers.errors import PayloadError, UnknownModelError
from pi_tools.providers.registry import API_MODULES, build_payload, build_wire, stream_decoder

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
