"""Pi 1.6's JSON-schema strict mode as the Anthropic builder applies it (pi-ai constrained-sampling.ts).

Two rules were added to the 0.85 conversion (providers.constrained_sampling, whose helpers are reused): a node
without `type`, `anyOf` or `enum` cannot be strict, and a provider may refuse keywords its strict mode rejects;
Anthropic refuses numeric bounds, `maxItems`, `uniqueItems`, `minItems` other than 0 or 1, the contains and
property-count bounds, and any `format` outside its list. A tool that only prefers strict sampling is then sent
non-strict; one that requires it fails the request with the first reason met.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pi_tools.js.json_stringify import js_own_keys, js_stringify
from pi_tools.js.values import UNDEFINED, js_to_string
from pi_tools.providers.constrained_sampling import (
    _UNSUPPORTED_STRICT_KEYS,
    UnsupportedStrictSchemaError,
    _allows_null,
    _check_object_fields,
    _is_structured,
)
from pi_tools.providers.errors import PayloadError

_REFUSED_KEYWORDS = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxItems", "uniqueItems",
    "minContains", "maxContains", "minProperties", "maxProperties",
})  # fmt: skip
_STRING_FORMATS = frozenset({
    "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid",
})  # fmt: skip


def refused_keyword(key: str, value: Any) -> bool:
    """Whether Anthropic's strict mode rejects this keyword with this value."""
    if key in _REFUSED_KEYWORDS:
        return True
    if key == "minItems":
        return not (type(value) in (int, float) and value in (0, 1))
    if key == "format":
        return not isinstance(value, str) or value not in _STRING_FORMATS
    return False


def _make_node_strict(schema: Any) -> None:
    if not isinstance(schema, dict):
        raise UnsupportedStrictSchemaError("boolean schemas are unsupported")
    for key in _UNSUPPORTED_STRICT_KEYS:
        if key in schema:
            raise UnsupportedStrictSchemaError(f"{key} schemas are unsupported")
    for key in js_own_keys(schema):
        if refused_keyword(key, schema[key]):
            raise UnsupportedStrictSchemaError(f"{key}: {js_stringify(schema[key])} is unsupported")
    if "type" not in schema and "anyOf" not in schema and "enum" not in schema:
        raise UnsupportedStrictSchemaError("schemas without a type are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchemaError("anyOf must contain at least one schema")
        for variant in variants:
            if _is_structured(variant):
                raise UnsupportedStrictSchemaError("object and array unions are unsupported")
            _make_node_strict(variant)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise UnsupportedStrictSchemaError("tuple schemas are unsupported")
        _make_node_strict(schema["items"])
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise UnsupportedStrictSchemaError("properties require type object")
    if not is_object:
        return
    _check_object_fields(schema)
    properties: dict[str, Any] = schema.get("properties") or {}
    names = js_own_keys(properties)
    required = set(schema.get("required") or ())
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchemaError("required contains an unknown property")
    for key in names:
        prop = properties[key]
        _make_node_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = names
    schema["additionalProperties"] = False


def make_strict_schema16(schema: Any) -> dict[str, Any]:
    """A strict copy of a tool's parameter schema, or UnsupportedStrictSchemaError."""
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise UnsupportedStrictSchemaError("root schema must have type object")
    _make_node_strict(cloned)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchemaError("root schema must have type object")
    return cloned


def resolve_strict16(tool: Mapping[str, Any], supports_strict_mode: bool) -> bool | None:
    """True when a `json_schema`-constrained tool is sent strict; None otherwise; Pi's error when a tool requires
    strict sampling it cannot have."""
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    requires = config.get("strict") == "require"
    name = js_to_string(tool.get("name", UNDEFINED))
    if supports_strict_mode:
        try:
            make_strict_schema16(tool.get("parameters"))
            return True
        except UnsupportedStrictSchemaError as error:
            if not requires:
                return None
            raise PayloadError(f'Tool "{name}" requires JSON-schema constrained sampling, but {error}.') from None
    if requires:
        raise PayloadError(
            f'Tool "{name}" requires JSON-schema constrained sampling, but strict tools are unsupported.')
    return None


def strict_parameters16(tool: Mapping[str, Any], strict: bool | None) -> Any:
    """The schema sent: the strict copy where strict sampling was resolved, else the tool's own."""
    return make_strict_schema16(tool.get("parameters")) if strict is True else tool.get("parameters")
