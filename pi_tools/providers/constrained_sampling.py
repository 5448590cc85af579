"""Tool-level constrained sampling, shared by every API adapter (pi-ai ``constrained-sampling.ts``).

A tool may ask for JSON-schema strict mode or for a grammar (OpenAI custom tools). Whether a request carries
``strict``, which schema it sends, and whether it fails outright all follow from one set of rules, so every
adapter calls these functions and passes only what differs per API: whether the host accepts strict tools or
grammar tools. Errors that fail the whole request are ``PayloadError`` with Pi's text.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from pi_tools.js.json_stringify import js_own_keys
from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.errors import PayloadError

_UNSUPPORTED_STRICT_KEYS = (
    "$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties", "dependentSchemas", "dependencies",
    "unevaluatedProperties", "propertyNames", "contains", "prefixItems", "not", "if", "then", "else",
)  # fmt: skip


class UnsupportedStrictSchemaError(Exception):
    """The schema uses a construct strict mode cannot express; pi-ai then sends the tool non-strict."""


# --- JSON-schema strict mode -----------------------------------------------------------------------------------


def _is_structured(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return "object" in kinds or "array" in kinds or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if ("const" in schema and schema["const"] is None) or (
        isinstance(schema.get("enum"), list) and None in schema["enum"]
    ):
        return True
    variants = schema.get("anyOf")
    return isinstance(variants, list) and any(_allows_null(variant) for variant in variants)


def _check_object_fields(schema: dict[str, Any]) -> None:
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise UnsupportedStrictSchemaError("schema-valued or true additionalProperties is unsupported")
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise UnsupportedStrictSchemaError("object properties must be a schema map")
    if "required" in schema and (
        not isinstance(schema["required"], list) or any(not isinstance(key, str) for key in schema["required"])
    ):
        raise UnsupportedStrictSchemaError("object required must be a string array")


def _make_node_strict(schema: Any, typed_only: bool = False) -> None:
    """Rewrite one node in place: every property required, optional ones made nullable, no extra properties.
    `typed_only` (Pi 1.6): a node without `type`, `anyOf` or `enum` is unsupported too.

    Schemas nest only as deep as their authors wrote them, so recursion is bounded by the tool definition.
    """
    if not isinstance(schema, dict):
        raise UnsupportedStrictSchemaError("boolean schemas are unsupported")
    for key in _UNSUPPORTED_STRICT_KEYS:
        if key in schema:
            raise UnsupportedStrictSchemaError(f"{key} schemas are unsupported")
    if typed_only and "type" not in schema and "anyOf" not in schema and "enum" not in schema:
        raise UnsupportedStrictSchemaError("schemas without a type are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchemaError("anyOf must contain at least one schema")
        for variant in variants:
            if _is_structured(variant):
                raise UnsupportedStrictSchemaError("object and array unions are unsupported")
            _make_node_strict(variant, typed_only)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise UnsupportedStrictSchemaError("tuple schemas are unsupported")
        _make_node_strict(schema["items"], typed_only)
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise UnsupportedStrictSchemaError("properties require type object")
    if not is_object:
        return
    _check_object_fields(schema)
    properties: dict[str, Any] = schema.get("properties") or {}
    # Object.keys order: integer-like names first, so ``required`` lists them the way JS does.
    names = js_own_keys(properties)
    required = set(schema.get("required") or ())
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchemaError("required contains an unknown property")
    for key in names:
        prop = properties[key]
        _make_node_strict(prop, typed_only)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = names
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: Any, typed_only: bool = False) -> dict[str, Any]:
    """A strict-mode copy of a tool's parameter schema (the tool keeps its own); `typed_only`: Pi 1.6's rule that
    every node has a type."""
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise UnsupportedStrictSchemaError("root schema must have type object")
    _make_node_strict(cloned, typed_only)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchemaError("root schema must have type object")
    return cloned


def json_schema_tool_parameters(tool: Mapping[str, Any], strict: bool | None, typed_only: bool = False) -> Any:
    """The schema to send: strict-converted only when strict sampling was resolved for this tool (`typed_only`:
    Pi 1.6's rule that every node has a type)."""
    return make_strict_json_schema(tool.get("parameters"), typed_only) if strict is True else tool.get("parameters")


def _tool_name(tool: Mapping[str, Any]) -> str:
    return js_to_string(tool.get("name", UNDEFINED))


def resolve_json_schema_strict(tool: Mapping[str, Any], supports_strict_mode: bool,
                               typed_only: bool = False) -> bool | None:
    """True when a ``json_schema``-constrained tool can be sent strict; None leaves the API's default.

    A tool that *requires* strict sampling fails the whole request when it cannot have it. `typed_only`: Pi 1.6's
    rule that every schema node has a type (`make_strict_json_schema`).
    """
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    requires = config.get("strict") == "require"
    if supports_strict_mode:
        try:
            make_strict_json_schema(tool.get("parameters"), typed_only)
            return True
        except UnsupportedStrictSchemaError as error:
            if not requires:
                return None
            raise PayloadError(
                f'Tool "{_tool_name(tool)}" requires JSON-schema constrained sampling, but {error}.'
            ) from None
    if requires:
        raise PayloadError(
            f'Tool "{_tool_name(tool)}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None


# --- grammar tools ---------------------------------------------------------------------------------------------


def _reading_error(value: Any, key: str) -> str:
    """V8's TypeError for ``value.key`` on null or undefined."""
    return f"Cannot read properties of {'undefined' if value is UNDEFINED else 'null'} (reading '{key}')"


def _js_member(value: Any, key: str) -> Any:
    """``value[key]`` for a JSON value that is not null: only objects have named properties."""
    return value.get(key, UNDEFINED) if isinstance(value, dict) else UNDEFINED


def _grammar_input_property(tool: Mapping[str, Any]) -> str:
    """The single required string argument a grammar tool's free-form input is carried in."""
    schema = tool.get("parameters", UNDEFINED)
    if schema is None or schema is UNDEFINED:
        raise ValueError(_reading_error(schema, "type"))
    if _js_member(schema, "type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = schema.get("required")
    if not isinstance(required, list) or len(required) != 1 or not isinstance(required[0], str):
        raise ValueError("grammar constrained sampling requires exactly one required string property")
    name = required[0]
    definition = _js_member(schema.get("properties"), name)
    if not js_truthy(definition):
        raise ValueError(f"grammar constrained sampling requires a properties entry for {name}")
    if _js_member(definition, "type") != "string":
        raise ValueError(f"grammar constrained sampling property {name} must have type string")
    return name


def resolve_grammar(tool: Mapping[str, Any], supports_grammar_tools: bool) -> dict[str, str] | None:
    """``{format, definition, inputProperty}`` for a grammar tool the host runs as an OpenAI custom tool."""
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "grammar" or not supports_grammar_tools:
        return None
    variants = config.get("variants", UNDEFINED)
    if variants is None or variants is UNDEFINED:
        raise PayloadError(_reading_error(variants, "openai_lark"))
    lark = _js_member(variants, "openai_lark")
    regex = _js_member(variants, "openai_regex")
    has_lark = isinstance(lark, str) and not js_is_blank(lark)
    has_regex = isinstance(regex, str) and not js_is_blank(regex)
    if not has_lark and not has_regex:
        raise PayloadError(
            f'Tool "{_tool_name(tool)}" cannot use grammar constrained sampling: '
            "no supported grammar variant was provided."
        )
    try:
        input_property = _grammar_input_property(tool)
    except ValueError as error:
        raise PayloadError(f'Tool "{_tool_name(tool)}" cannot use grammar constrained sampling: {error}.') from None
    return {
        "format": "lark" if has_lark else "regex",
        "definition": lark if has_lark else regex,
        "inputProperty": input_property,
    }


def grammar_input_properties(tools: Iterable[Mapping[str, Any]] | None, supports_grammar_tools: bool) -> dict[Any, str]:
    """Tool name → the argument a grammar tool's raw input maps to (later tools of the same name win)."""
    properties: dict[Any, str] = {}
    for tool in tools or ():
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar:
            properties[tool.get("name")] = grammar["inputProperty"]
    return properties


def grammar_tool_input(tool_name: Any, arguments: Any, input_property: str) -> str:
    """The raw input replayed for a grammar tool call: its one string argument, or Pi's error.

    ``arguments`` is ``UNDEFINED`` when the stored call has none (JS then fails reading the property).
    """
    if arguments is None or arguments is UNDEFINED:
        raise PayloadError(_reading_error(arguments, input_property))
    value = _js_member(arguments, input_property)
    if not isinstance(value, str):
        raise PayloadError(
            f'Grammar tool call "{js_to_string(tool_name)}" requires argument "{input_property}" to be a string.'
        )
    return value
