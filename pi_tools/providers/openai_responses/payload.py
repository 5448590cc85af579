"""The OpenAI Responses request body pi-ai's ``openai-responses`` adapter hands to ``onPayload``.

Pi replays its own earlier turns to the Responses API statelessly (``store: false``): stored reasoning items are
sent back verbatim from ``thinkingSignature``, assistant text keeps the item id and phase recorded in
``textSignature``, and tool calls carry ``call_id|item_id`` pairs that must satisfy OpenAI's pairing rules. Every
one of those rules changes the bytes sent, so they are ported one for one; the module also hosts the pieces of
pi-ai's constrained-sampling tool handling and V8's ``JSON.parse`` error texts that this payload depends on, and
the ``azure-openai-responses`` variant, which shares the item conversion.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.hashing import short_hash, utf16_code_units
from pi_tools.providers.jsonjs import js_length, js_number_str, js_stringify, sanitize_surrogates
from pi_tools.providers.options import build_base_options, clamp_thinking_level, resolve_cache_retention
from pi_tools.providers.transform_messages import transform_messages

TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""Providers whose tool-call ids keep the ``call_id|item_id`` shape when replayed to this API."""

MIN_OUTPUT_TOKENS = 16
"""OpenAI rejects ``max_output_tokens`` below 16, so pi-ai raises smaller values to it."""

PROMPT_CACHE_KEY_MAX_CHARS = 64
MAX_ITEM_ID_LENGTH = 64

# --- JavaScript value formatting -------------------------------------------------------------------------------


def js_template_value(value: Any) -> str:
    """What a JS template literal (``String(value)``) prints for a JSON value; ``None`` is JSON's null.

    Pi interpolates stored values (mime types, provider names, ids) into strings without checking their type, so
    malformed sessions produce e.g. ``data:null;base64,...`` rather than an error.
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_str(value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join(_join_piece(item) for item in value)
    return str(value)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: unlike Python, empty objects and arrays are truthy."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


def block_type(block: Any) -> Any:
    """``block.type`` in JS: primitives have no properties (undefined), null blocks are a TypeError."""
    if isinstance(block, dict):
        return block.get("type")
    if block is None:
        raise PayloadError("Cannot read properties of null (reading 'type')")
    return None


def content_array(message: Mapping[str, Any], expression: str) -> list[Any]:
    """``message.content`` where pi-ai calls an array method on it; V8's TypeError when it is not an array.

    ``expression`` is the source text V8 quotes, e.g. ``content.filter``.
    """
    content = message.get("content")
    if isinstance(content, list):
        return content
    raise PayloadError(f"{expression} is not a function")


def require_string(value: Any, name: str, method: str) -> str:
    """``value`` where pi-ai calls ``name.method(...)`` on it; V8's TypeError text when it is not a string."""
    if isinstance(value, str):
        return value
    if value is None:
        raise PayloadError(f"Cannot read properties of undefined (reading '{method}')")
    raise PayloadError(f"{name}.{method} is not a function")


def string_field(record: Mapping[str, Any], key: str, method: str = "replace") -> str:
    """``record[key]`` where pi-ai calls a string method on it; V8's TypeError text when it is not a string."""
    value = record.get(key) if isinstance(record, dict) else None
    if isinstance(value, str):
        return value
    if value is None:
        missing = "null" if isinstance(record, dict) and key in record else "undefined"
        raise PayloadError(f"Cannot read properties of {missing} (reading '{method}')")
    raise PayloadError(f"{key}.{method} is not a function")


# --- JSON.parse with V8's error texts --------------------------------------------------------------------------

_WHITESPACE = frozenset((0x20, 0x09, 0x0A, 0x0D))
_DIGITS = frozenset(range(0x30, 0x3A))
_HEX_DIGITS = frozenset([*range(0x30, 0x3A), *range(0x41, 0x47), *range(0x61, 0x67)])
_SIMPLE_ESCAPES = frozenset(ord(c) for c in '"\\/bfnrt')
_SPECIAL_SOURCES = frozenset(("[object Object]", "undefined", "Infinity", "NaN"))
_CONTEXT_CHARS = 10
_TOKEN_OF = {ord('"'): "string", ord("-"): "number", **{d: "number" for d in _DIGITS}}


class _V8JsonError(Exception):
    """Internal: carries the position where V8 gives up and the message it reports."""


class _V8JsonScanner:
    """Walks a JSON text the way V8's parser does, only to find where and how it reports the first error.

    Values are produced elsewhere (orjson / the stdlib); this only needs to agree with V8 on rejection and on the
    message, whose wording depends on the token class and position (in UTF-16 code units).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.units = list(utf16_code_units(text))
        self.pos = 0

    # error reporting ---------------------------------------------------------------------------------------

    def _location(self, pos: int) -> str:
        line = 1
        last_break = 0
        index = 0
        units = self.units
        while index < pos:
            unit = units[index]
            if unit == 0x0D and index < pos - 1 and units[index + 1] == 0x0A:
                index += 1
                unit = 0x0A
            if unit in (0x0A, 0x0D):
                line += 1
                last_break = index + 1
            index += 1
        return f"at position {pos} (line {line} column {1 + index - last_break})"

    def _explicit(self, message: str, pos: int, where: str = "in JSON") -> _V8JsonError:
        return _V8JsonError(f"{message} {where} {self._location(pos)}")

    def _snippet(self, start: int, end: int) -> str:
        return b"".join(unit.to_bytes(2, "little") for unit in self.units[start:end]).decode(
            "utf-16-le", "surrogatepass"
        )

    def _unexpected(self, pos: int) -> _V8JsonError:
        units = self.units
        if pos >= len(units):
            return _V8JsonError("Unexpected end of JSON input")
        token = _TOKEN_OF.get(units[pos])
        if token == "number":
            return self._explicit("Unexpected number", pos)
        if token == "string":
            return self._explicit("Unexpected string", pos)
        if self.text in _SPECIAL_SOURCES:
            return _V8JsonError(f'"{self.text}" is not valid JSON')
        char = self._snippet(pos, pos + 1)
        length = len(units)
        if length <= _CONTEXT_CHARS * 2:
            return _V8JsonError(f"Unexpected token '{char}', \"{self.text}\" is not valid JSON")
        if pos < _CONTEXT_CHARS:
            context = self._snippet(0, pos + _CONTEXT_CHARS)
            return _V8JsonError(f"Unexpected token '{char}', \"{context}\"... is not valid JSON")
        if pos < length - _CONTEXT_CHARS:
            context = self._snippet(pos - _CONTEXT_CHARS, pos + _CONTEXT_CHARS)
            return _V8JsonError(f"Unexpected token '{char}', ...\"{context}\"... is not valid JSON")
        context = self._snippet(pos - _CONTEXT_CHARS, length)
        return _V8JsonError(f"Unexpected token '{char}', ...\"{context}\" is not valid JSON")

    # scanning ----------------------------------------------------------------------------------------------

    def _peek(self) -> int:
        """Skip whitespace; the next code unit, or -1 at the end."""
        units = self.units
        while self.pos < len(units) and units[self.pos] in _WHITESPACE:
            self.pos += 1
        return units[self.pos] if self.pos < len(units) else -1

    def _expect(self, unit: int, message: str) -> None:
        if self._peek() != unit:
            raise self._explicit(message, self.pos)
        self.pos += 1

    def _string(self) -> None:
        units = self.units
        end = len(units)
        self.pos += 1
        while True:
            if self.pos >= end:
                raise self._explicit("Unterminated string", end)
            unit = units[self.pos]
            if unit == 0x22:
                self.pos += 1
                return
            if unit == 0x5C:
                self.pos += 1
                escape = units[self.pos] if self.pos < end else -1
                if escape in _SIMPLE_ESCAPES:
                    self.pos += 1
                elif escape == 0x75:
                    for offset in range(1, 5):
                        at = self.pos + offset
                        if at >= end or units[at] not in _HEX_DIGITS:
                            raise self._explicit("Bad Unicode escape", min(at, end))
                    self.pos += 5
                elif escape == -1:
                    raise _V8JsonError("Unexpected end of JSON input")
                elif escape > 0xFF:
                    raise self._unexpected(self.pos)
                else:
                    raise self._explicit("Bad escaped character", self.pos)
            elif unit < 0x20:
                raise self._explicit("Bad control character in string literal", self.pos)
            else:
                self.pos += 1

    def _digits(self) -> None:
        units = self.units
        while self.pos < len(units) and units[self.pos] in _DIGITS:
            self.pos += 1

    def _at_digit(self) -> bool:
        return self.pos < len(self.units) and self.units[self.pos] in _DIGITS

    def _number(self) -> None:
        units = self.units
        if units[self.pos] == 0x2D:
            self.pos += 1
            if not self._at_digit():
                raise self._explicit("No number after minus sign", self.pos)
        if units[self.pos] == 0x30:
            self.pos += 1
            if self._at_digit():
                raise self._unexpected(self.pos)
        else:
            self._digits()
        if self.pos < len(units) and units[self.pos] == 0x2E:
            self.pos += 1
            if not self._at_digit():
                raise self._explicit("Unterminated fractional number", self.pos)
            self._digits()
        if self.pos < len(units) and units[self.pos] in (0x45, 0x65):
            self.pos += 1
            if self.pos < len(units) and units[self.pos] in (0x2B, 0x2D):
                self.pos += 1
            if not self._at_digit():
                raise self._explicit("Exponent part is missing a number", self.pos)
            self._digits()

    def _literal(self, word: str) -> None:
        units = self.units
        self.pos += 1
        for char in word[1:]:
            if self.pos >= len(units):
                raise _V8JsonError("Unexpected end of JSON input")
            if units[self.pos] != ord(char):
                raise self._unexpected(self.pos)
            self.pos += 1

    def _property_key(self, message: str) -> None:
        if self._peek() != 0x22:
            raise self._explicit(message, self.pos)
        self._string()
        self._expect(0x3A, "Expected ':' after property name")

    def scan(self) -> None:
        """Raise ``_V8JsonError`` exactly where V8 would; return quietly for text V8 accepts."""
        stack: list[int] = []  # 0x7B for an open object, 0x5B for an open array
        literals = {0x74: "true", 0x66: "false", 0x6E: "null"}
        while True:
            unit = self._peek()
            if unit == 0x22:
                self._string()
            elif unit == 0x2D or unit in _DIGITS:
                self._number()
            elif unit == 0x7B:
                self.pos += 1
                if self._peek() == 0x7D:
                    self.pos += 1
                else:
                    stack.append(0x7B)
                    self._property_key("Expected property name or '}'")
                    continue
            elif unit == 0x5B:
                self.pos += 1
                if self._peek() == 0x5D:
                    self.pos += 1
                else:
                    stack.append(0x5B)
                    continue
            elif unit in literals:
                self._literal(literals[unit])
            else:
                raise self._unexpected(self.pos)
            if self._close_containers(stack):
                return

    def _close_containers(self, stack: list[int]) -> bool:
        """After a value: close what ends here; True when the whole text is done, False when a value follows."""
        while stack:
            unit = self._peek()
            if unit == 0x2C:
                self.pos += 1
                if stack[-1] == 0x7B:
                    self._property_key("Expected double-quoted property name")
                return False
            if stack[-1] == 0x7B:
                self._expect(0x7D, "Expected ',' or '}' after property value")
            else:
                self._expect(0x5D, "Expected ',' or ']' after array element")
            stack.pop()
        if self._peek() != -1:
            raise self._explicit("Unexpected non-whitespace character", self.pos, "after JSON")
        return True


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _js_int(text: str) -> int | float:
    """Integers beyond 2**53 become doubles in JS, so keep them as floats to print them the same way."""
    value = int(text)
    return value if -(2**53) <= value <= 2**53 else float(text)


def js_json_parse(text: Any) -> Any:
    """``JSON.parse(text)``: the value, or ``PayloadError`` with V8's message for text it rejects.

    The argument is converted to a string first, as JS does, so a non-string signature fails the way it does in Pi.
    """
    source = text if isinstance(text, str) else js_template_value(text)
    try:
        return orjson.loads(source)
    except orjson.JSONDecodeError:
        pass  # lone surrogates, huge numbers and every real error take the careful path
    try:
        scanner = _V8JsonScanner(source)
        scanner.scan()
    except _V8JsonError as error:
        raise PayloadError(str(error)) from None
    except IndexError:
        raise PayloadError("Unexpected end of JSON input") from None
    try:
        return json.loads(source, parse_int=_js_int, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:
        raise PayloadError(f"{error}") from None


# --- constrained sampling (pi-ai constrained-sampling.ts) --------------------------------------------------------

_UNSUPPORTED_STRICT_KEYS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class UnsupportedStrictSchemaError(Exception):
    """A tool schema outside the subset OpenAI-style strict mode accepts; pi-ai then falls back to non-strict."""


def _is_structured(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    types = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return "object" in types or "array" in types or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    enum = schema.get("enum")
    if isinstance(enum, list) and any(item is None for item in enum):
        return True
    any_of = schema.get("anyOf")
    return isinstance(any_of, list) and any(_allows_null(variant) for variant in any_of)


def _make_node_strict(schema: Any) -> None:
    """Rewrite one schema node in place into strict form (all properties required, nullable when optional)."""
    if not isinstance(schema, dict):
        raise UnsupportedStrictSchemaError("boolean schemas are unsupported")
    for key in _UNSUPPORTED_STRICT_KEYS:
        if key in schema:
            raise UnsupportedStrictSchemaError(f"{key} schemas are unsupported")
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
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise UnsupportedStrictSchemaError("schema-valued or true additionalProperties is unsupported")
    if "properties" in schema and not isinstance(schema["properties"], dict):
        raise UnsupportedStrictSchemaError("object properties must be a schema map")
    required_list = schema.get("required")
    if "required" in schema and (
        not isinstance(required_list, list) or any(not isinstance(key, str) for key in required_list)
    ):
        raise UnsupportedStrictSchemaError("object required must be a string array")
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(required_list or ())
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchemaError("required contains an unknown property")
    for key, prop in list(properties.items()):
        _make_node_strict(prop)
        if key not in required and not _allows_null(prop):
            properties[key] = {"anyOf": [prop, {"type": "null"}]}
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def make_strict_json_schema(schema: Any) -> dict[str, Any]:
    """A strict-mode copy of a tool's parameter schema; ``UnsupportedStrictSchemaError`` when impossible."""
    cloned = copy.deepcopy(schema)
    if not isinstance(cloned, dict):
        raise UnsupportedStrictSchemaError("root schema must have type object")
    _make_node_strict(cloned)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchemaError("root schema must have type object")
    return cloned


def json_schema_tool_parameters(tool: Mapping[str, Any], strict: bool | None) -> Any:
    """The schema to send: strict-converted only when strict sampling was actually resolved."""
    return make_strict_json_schema(tool.get("parameters")) if strict is True else tool.get("parameters")


def resolve_json_schema_strict(tool: Mapping[str, Any], supports_strict_mode: bool) -> bool | None:
    """True when a ``json_schema``-constrained tool can be sent strict; ``None`` to use the API default.

    A tool that *requires* strict sampling fails the whole request when it cannot get it.
    """
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "json_schema":
        return None
    name = js_template_value(tool.get("name"))
    if supports_strict_mode:
        try:
            make_strict_json_schema(tool.get("parameters"))
            return True
        except UnsupportedStrictSchemaError as error:
            if config.get("strict") != "require":
                return None
            raise PayloadError(
                f'Tool "{name}" requires JSON-schema constrained sampling, but {error}.'
            ) from None
    if config.get("strict") == "require":
        raise PayloadError(
            f'Tool "{name}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return None


def _grammar_input_property(tool: Mapping[str, Any]) -> str:
    schema = tool.get("parameters")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError("grammar constrained sampling requires an object parameter schema")
    required = schema.get("required")
    if not isinstance(required, list) or len(required) != 1 or not isinstance(required[0], str):
        raise ValueError("grammar constrained sampling requires exactly one required string property")
    prop = required[0]
    properties = schema.get("properties")
    definition = properties.get(prop) if isinstance(properties, dict) else None
    if not definition:
        raise ValueError(f"grammar constrained sampling requires a properties entry for {prop}")
    if not isinstance(definition, dict) or definition.get("type") != "string":
        raise ValueError(f"grammar constrained sampling property {prop} must have type string")
    return prop


def resolve_grammar(tool: Mapping[str, Any], supports_grammar_tools: bool) -> dict[str, str] | None:
    """``{format, definition, inputProperty}`` for a grammar-constrained tool the API can run as a custom tool."""
    config = tool.get("constrainedSampling")
    if not isinstance(config, dict) or config.get("type") != "grammar" or not supports_grammar_tools:
        return None
    variants = config.get("variants") or {}
    lark = variants.get("openai_lark")
    regex = variants.get("openai_regex")
    has_lark = isinstance(lark, str) and lark.strip() != ""
    has_regex = isinstance(regex, str) and regex.strip() != ""
    name = js_template_value(tool.get("name"))
    if not has_lark and not has_regex:
        raise PayloadError(
            f'Tool "{name}" cannot use grammar constrained sampling: no supported grammar variant was provided.'
        )
    try:
        prop = _grammar_input_property(tool)
    except ValueError as error:
        raise PayloadError(f'Tool "{name}" cannot use grammar constrained sampling: {error}.') from None
    return {
        "format": "lark" if has_lark else "regex",
        "definition": str(lark if has_lark else regex),
        "inputProperty": prop,
    }


def grammar_input_properties(tools: Any, supports_grammar_tools: bool) -> dict[str, str]:
    """Tool name → the single string argument a grammar tool's free-form input maps to."""
    properties: dict[str, str] = {}
    for tool in tools or ():
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar:
            properties[tool.get("name")] = grammar["inputProperty"]
    return properties


def _grammar_tool_input(name: Any, arguments: Any, prop: str) -> str:
    value = arguments.get(prop) if isinstance(arguments, dict) else None
    if not isinstance(value, str):
        raise PayloadError(
            f'Grammar tool call "{js_template_value(name)}" requires argument "{prop}" to be a string.'
        )
    return value


# --- compat and ids --------------------------------------------------------------------------------------------


def resolved_compat(model: Model) -> dict[str, Any]:
    """The model's Responses compat flags with pi-ai's defaults filled in."""
    compat = model.get("compat") or {}
    base_url = model.get("baseUrl") or ""
    detected = (
        "openrouter" if model.get("provider") == "openrouter" or "openrouter.ai" in base_url else "openai"
    )

    def flag(name: str, default: Any) -> Any:
        value = compat.get(name)
        return default if value is None else value

    return {
        "supportsDeveloperRole": flag("supportsDeveloperRole", True),
        "sessionAffinityFormat": flag("sessionAffinityFormat", detected),
        "supportsLongCacheRetention": flag("supportsLongCacheRetention", True),
        "supportsStrictMode": flag("supportsStrictMode", False),
        "supportsOpenAIGrammarTools": flag("supportsOpenAIGrammarTools", False),
        "supportsAdditionalTools": flag("supportsAdditionalTools", False),
        "supportsToolSearch": flag("supportsToolSearch", False),
        "supportsExplicitPromptCacheMode": flag("supportsExplicitPromptCacheMode", False),
        "supportsMaxOutputTokens": flag("supportsMaxOutputTokens", True),
    }


_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_TRAILING_UNDERSCORES = re.compile(r"_+$")


def _underscore_per_code_unit(match: re.Match[str]) -> str:
    # JS regexes without the u flag see an astral character as two code units, so it becomes "__".
    return "__" if ord(match.group(0)) > 0xFFFF else "_"


def _id_part(part: str) -> str:
    sanitized = _ID_UNSAFE.sub(_underscore_per_code_unit, part)[:MAX_ITEM_ID_LENGTH]
    return _TRAILING_UNDERSCORES.sub("", sanitized)


def _foreign_item_id(item_id: str) -> str:
    return f"fc_{short_hash(item_id)}"[:MAX_ITEM_ID_LENGTH]


def make_tool_call_id_normalizer(
    allowed_providers: frozenset[str] = TOOL_CALL_PROVIDERS,
) -> Callable[[str, Model, Mapping[str, Any]], str]:
    """The Responses-family id normaliser for a set of providers that use ``call_id|item_id`` ids."""

    def normalize(tool_call_id: str, model: Model, source: Mapping[str, Any]) -> str:
        if model.get("provider") not in allowed_providers:
            return _id_part(require_string(tool_call_id, "part", "replace"))
        if "|" not in require_string(tool_call_id, "id", "includes"):
            return _id_part(tool_call_id)
        pieces = tool_call_id.split("|")
        call_id = _id_part(pieces[0])
        foreign = source.get("provider") != model.get("provider") or source.get("api") != model.get("api")
        item_id = _foreign_item_id(pieces[1]) if foreign else _id_part(pieces[1])
        if not item_id.startswith("fc_"):
            item_id = _id_part(f"fc_{item_id}")
        return f"{call_id}|{item_id}"

    return normalize


normalize_tool_call_id = make_tool_call_id_normalizer()
"""Cross-model tool-call id rewrite for ``openai-responses`` (``transform_messages`` calls it)."""


# --- tools -----------------------------------------------------------------------------------------------------


def _hashable(value: Any) -> bool:
    return not isinstance(value, dict | list)


def split_deferred_tools(context: Mapping[str, Any], enabled: bool) -> tuple[list[Any], dict[str, Any]]:
    """(tools sent up front, tools loaded later by a tool result's ``addedToolNames``); names deduplicated."""
    unique: dict[Any, Any] = {}
    for tool in context.get("tools") or ():
        name = tool.get("name")
        unique[name if _hashable(name) else js_template_value(name)] = tool
    if not enabled:
        return list(unique.values()), {}
    deferred_names: set[Any] = set()
    used_names: set[Any] = set()
    for message in context.get("messages") or ():
        role = message.get("role")
        if role == "assistant":
            for block in message.get("content") or ():
                if block_type(block) == "toolCall" and _hashable(block.get("name")):
                    used_names.add(block.get("name"))
        elif role == "toolResult":
            for name in message.get("addedToolNames") or ():
                if _hashable(name) and name not in used_names:
                    deferred_names.add(name)
    immediate: list[Any] = []
    deferred: dict[str, Any] = {}
    for name, tool in unique.items():
        if name in deferred_names:
            deferred[name] = tool
        else:
            immediate.append(tool)
    return immediate, deferred


def _put(target: dict[str, Any], source: Mapping[str, Any], key: str) -> None:
    """Copy a key only when present: a missing JS property is ``undefined`` and vanishes from the JSON."""
    if key in source:
        target[key] = source[key]


def convert_tools(
    tools: list[Any],
    *,
    supports_strict_mode: bool = True,
    supports_grammar_tools: bool = False,
    strict: bool | None = None,
    defer_loading: bool = False,
) -> list[dict[str, Any]]:
    """Responses tool definitions: custom grammar tools where supported, else functions (``strict`` if allowed)."""
    default_strict = False if strict is None else strict
    result: list[dict[str, Any]] = []
    for tool in tools:
        grammar = resolve_grammar(tool, supports_grammar_tools)
        if grammar:
            custom: dict[str, Any] = {"type": "custom"}
            _put(custom, tool, "name")
            _put(custom, tool, "description")
            custom["format"] = {
                "type": "grammar",
                "syntax": grammar["format"],
                "definition": grammar["definition"],
            }
            if defer_loading:
                custom["defer_loading"] = True
            result.append(custom)
            continue
        resolved = resolve_json_schema_strict(tool, supports_strict_mode)
        tool_strict = default_strict if resolved is None else resolved
        function: dict[str, Any] = {"type": "function"}
        _put(function, tool, "name")
        _put(function, tool, "description")
        if tool_strict is True:
            function["parameters"] = make_strict_json_schema(tool.get("parameters"))
        else:
            _put(function, tool, "parameters")
        if defer_loading:
            function["defer_loading"] = True
        if supports_strict_mode:
            function["strict"] = tool_strict
        result.append(function)
    return result


# --- messages --------------------------------------------------------------------------------------------------


def _parse_text_signature(signature: Any) -> tuple[Any, str | None] | None:
    """(item id, phase) recorded for an assistant text block; legacy signatures are the bare id."""
    if not js_truthy(signature):
        return None
    if not isinstance(signature, str):
        raise PayloadError("signature.startsWith is not a function")
    if signature.startswith("{"):
        try:
            parsed = js_json_parse(signature)
        except PayloadError:
            parsed = None
        if isinstance(parsed, dict):
            version = parsed.get("v")
            if type(version) in (int, float) and version == 1 and isinstance(parsed.get("id"), str):
                phase = parsed.get("phase")
                return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def js_field_text(record: Mapping[str, Any], key: str) -> str:
    """``${record.key}`` in JS: a missing property prints as ``undefined``, a null one as ``null``."""
    return js_template_value(record[key]) if isinstance(record, dict) and key in record else "undefined"


def image_data_url(block: Mapping[str, Any]) -> str:
    """The data URL every OpenAI-style API takes for an inline image."""
    return f"data:{js_field_text(block, 'mimeType')};base64,{js_field_text(block, 'data')}"


def _input_image(block: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": image_data_url(block)}


def _join_piece(value: Any) -> str:
    """``Array.prototype.join`` prints null and undefined elements as empty strings."""
    return "" if value is None else js_template_value(value)


def _tool_result_output(model: Model, content: list[Any]) -> str | list[dict[str, Any]]:
    text = "\n".join(_join_piece(block.get("text")) for block in content if block_type(block) == "text")
    images = [block for block in content if block_type(block) == "image"]
    if not images or "image" not in (model.get("input") or ()):
        if text:
            return sanitize_surrogates(text)
        return "(see attached image)" if images else "(no tool output)"
    output: list[dict[str, Any]] = []
    if text:
        output.append({"type": "input_text", "text": sanitize_surrogates(text)})
    output.extend(_input_image(image) for image in images)
    return output


class _ResponsesInputBuilder:
    """Turns transformed messages into Responses input items, tracking the state pi-ai threads through the loop."""

    def __init__(
        self,
        model: Model,
        grammar_properties: Mapping[str, str],
        deferred_tools: Mapping[str, Any],
        deferred_mode: str | None,
        tool_options: Mapping[str, bool],
    ) -> None:
        self.model = model
        self.grammar_properties = grammar_properties
        self.deferred_tools = deferred_tools
        self.deferred_mode = deferred_mode
        self.tool_options = tool_options
        self.loaded_tool_names: set[str] = set()
        self.items: list[Any] = []

    def user(self, message: Mapping[str, Any]) -> bool:
        content = message.get("content")
        if isinstance(content, str):
            self.items.append(
                {"role": "user", "content": [{"type": "input_text", "text": sanitize_surrogates(content)}]}
            )
            return True
        parts = [
            {"type": "input_text", "text": sanitize_surrogates(string_field(block, "text"))}
            if block_type(block) == "text"
            else _input_image(block)
            for block in content_array(message, "msg.content.map")
        ]
        if not parts:
            return False
        self.items.append({"role": "user", "content": parts})
        return True

    def assistant(self, message: Mapping[str, Any], message_index: int) -> bool:
        model = self.model
        same_provider_api = message.get("provider") == model.get("provider") and message.get(
            "api"
        ) == model.get("api")
        same_model = same_provider_api and message.get("model") == model.get("id")
        different_model = same_provider_api and not same_model
        output: list[Any] = []
        text_index = 0
        for block in message.get("content") or ():
            kind = block_type(block)
            if kind == "thinking":
                signature = block.get("thinkingSignature")
                if js_truthy(signature):
                    output.append(js_json_parse(signature))
            elif kind == "text":
                output.append(self._text_item(block, message_index, text_index))
                text_index += 1
            elif kind == "toolCall":
                output.append(self._tool_call_item(block, same_model, different_model))
        self.items.extend(output)
        return bool(output)

    def _text_item(self, block: Mapping[str, Any], message_index: int, text_index: int) -> dict[str, Any]:
        parsed = _parse_text_signature(block.get("textSignature"))
        item_id = parsed[0] if parsed else None
        if not item_id:
            item_id = f"msg_pi_{message_index}" if text_index == 0 else f"msg_pi_{message_index}_{text_index}"
        elif js_length(item_id) > MAX_ITEM_ID_LENGTH:
            item_id = f"msg_{short_hash(item_id)}"
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": sanitize_surrogates(string_field(block, "text")),
                    "annotations": [],
                }
            ],
            "status": "completed",
            "id": item_id,
        }
        if parsed and parsed[1] is not None:
            item["phase"] = parsed[1]
        return item

    def _tool_call_item(
        self, block: Mapping[str, Any], same_model: bool, different_model: bool
    ) -> dict[str, Any]:
        pieces = string_field(block, "id", "split").split("|")
        call_id = pieces[0]
        item_id: str | None = pieces[1] if len(pieces) > 1 else None
        name = block.get("name")
        input_property = self.grammar_properties.get(name) if isinstance(name, str) else None
        deferred = isinstance(name, str) and name in self.deferred_tools
        starts_fc = item_id is not None and item_id.startswith("fc_")
        if (different_model and starts_fc) or (input_property is None and not starts_fc):
            item_id = None
        item: dict[str, Any] = {"type": "custom_tool_call" if input_property is not None else "function_call"}
        if item_id is not None:
            item["id"] = item_id
        item["call_id"] = call_id
        _put(item, block, "name")
        if input_property is not None:
            item["input"] = sanitize_surrogates(
                _grammar_tool_input(name, block.get("arguments"), input_property)
            )
        elif "arguments" in block:
            item["arguments"] = js_stringify(block["arguments"])
        if (same_model or deferred) and "namespace" in block:
            item["namespace"] = block["namespace"]
        return item

    def tool_result(self, message: Mapping[str, Any]) -> None:
        call_id = string_field(message, "toolCallId", "split").split("|")[0]
        output = _tool_result_output(self.model, content_array(message, "content.filter"))
        kind = (
            "custom_tool_call_output"
            if isinstance(message.get("toolName"), str) and message["toolName"] in self.grammar_properties
            else "function_call_output"
        )
        self.items.append({"type": kind, "call_id": call_id, "output": output})
        newly_loaded: list[Any] = []
        for name in message.get("addedToolNames") or ():
            tool = self.deferred_tools.get(name) if isinstance(name, str) else None
            if tool is None or name in self.loaded_tool_names:
                continue
            self.loaded_tool_names.add(name)
            newly_loaded.append(tool)
        if not newly_loaded:
            return
        if self.deferred_mode == "additional-tools":
            self.items.append(
                {"type": "additional_tools", "role": "developer", "tools": self._tools(newly_loaded, False)}
            )
        elif self.deferred_mode == "tool-search":
            names = [js_template_value(tool.get("name")) for tool in newly_loaded]
            seed = js_template_value(message.get("toolCallId")) + ":" + ",".join(names)
            search_id = f"pi_tool_load_{short_hash(seed)}"
            self.items.append(
                {
                    "type": "tool_search_call",
                    "call_id": search_id,
                    "execution": "client",
                    "status": "completed",
                    "arguments": {"query": " ".join(names), "limit": len(names)},
                }
            )
            self.items.append(
                {
                    "type": "tool_search_output",
                    "call_id": search_id,
                    "execution": "client",
                    "status": "completed",
                    "tools": self._tools(newly_loaded, True),
                }
            )

    def _tools(self, tools: list[Any], defer_loading: bool) -> list[dict[str, Any]]:
        return convert_tools(
            tools,
            supports_strict_mode=self.tool_options["supportsStrictMode"],
            supports_grammar_tools=self.tool_options["supportsOpenAIGrammarTools"],
            defer_loading=defer_loading,
        )


def convert_messages(
    model: Model,
    context: Mapping[str, Any],
    *,
    allowed_providers: frozenset[str] = TOOL_CALL_PROVIDERS,
    include_system_prompt: bool = True,
    grammar_properties: Mapping[str, str] | None = None,
    deferred_tools: Mapping[str, Any] | None = None,
    deferred_mode: str | None = None,
    tool_options: Mapping[str, bool] | None = None,
) -> list[Any]:
    """The ``input`` array: system/developer prompt, then one or more items per transformed message."""
    messages = transform_messages(
        context.get("messages") or [], model, make_tool_call_id_normalizer(allowed_providers)
    )
    builder = _ResponsesInputBuilder(
        model,
        grammar_properties or {},
        deferred_tools or {},
        deferred_mode,
        tool_options or {"supportsStrictMode": True, "supportsOpenAIGrammarTools": False},
    )
    system_prompt = context.get("systemPrompt")
    if include_system_prompt and system_prompt:
        developer = (
            model.get("reasoning") and (model.get("compat") or {}).get("supportsDeveloperRole") is not False
        )
        builder.items.append(
            {"role": "developer" if developer else "system", "content": sanitize_surrogates(system_prompt)}
        )
    message_index = 0
    for message in messages:
        role = message.get("role")
        if role == "user":
            if not builder.user(message):
                continue
        elif role == "assistant":
            if not builder.assistant(message, message_index):
                continue
        elif role == "toolResult":
            builder.tool_result(message)
        message_index += 1
    return builder.items


# --- params ----------------------------------------------------------------------------------------------------


def client_api_key(model: Model, options: Mapping[str, Any]) -> str:
    """The key the OpenAI client is built with; a caller-supplied Authorization header makes it optional."""
    api_key = options.get("apiKey")
    if api_key:
        return str(api_key)
    for name, value in (options.get("headers") or {}).items():
        if name.lower() in ("authorization", "cf-aig-authorization") and value is not None and value.strip():
            return "unused"
    raise PayloadError(f"No API key for provider: {js_template_value(model.get('provider'))}")


def clamp_prompt_cache_key(key: str) -> str:
    """OpenAI caps ``prompt_cache_key`` at 64 characters (code points, as ``Array.from`` counts them)."""
    return key[:PROMPT_CACHE_KEY_MAX_CHARS] if len(key) > PROMPT_CACHE_KEY_MAX_CHARS else key


def reasoning_effort(model: Model, options: Mapping[str, Any]) -> str | None:
    """The requested thinking level clamped to the model, or ``None`` when reasoning is off."""
    level = options.get("reasoning")
    if not level:
        return None
    clamped = clamp_thinking_level(model, level)
    return None if clamped == "off" else clamped


def _apply_reasoning(
    params: dict[str, Any], model: Model, effort: str | None, *, skip_off_effort: bool
) -> None:
    """Reasoning models get the mapped effort plus encrypted reasoning for replay, or their "off" effort."""
    if not model.get("reasoning"):
        return
    level_map = model.get("thinkingLevelMap") or {}
    if effort:
        mapped = level_map.get(effort)
        params["reasoning"] = {"effort": effort if mapped is None else mapped, "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    elif not skip_off_effort and not ("off" in level_map and level_map["off"] is None):
        off_effort = level_map.get("off")
        params["reasoning"] = {"effort": "none" if off_effort is None else off_effort}


PayloadBuilder = Callable[[Model, dict[str, Any], dict[str, Any]], dict[str, Any]]


def malformed_input_guard(build: PayloadBuilder) -> PayloadBuilder:
    """Report Python type errors on malformed stored data as ``PayloadError``.

    Where a message has the wrong shape (a number where text belongs, say), Pi's JavaScript throws a TypeError and
    the request fails; this keeps that outcome (a failed request, not a crash), though not V8's exact wording.
    """

    @functools.wraps(build)
    def guarded(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        try:
            return build(model, context, options)
        except (TypeError, AttributeError) as error:
            raise PayloadError(f"TypeError: {error}") from error

    return guarded


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object ``streamSimple`` passes to ``onPayload`` for an ``openai-responses`` model."""
    client_api_key(model, options)
    base = build_base_options(model, context, options)
    effort = reasoning_effort(model, options)
    compat = resolved_compat(model)
    retention = resolve_cache_retention(base)
    grammar_properties = grammar_input_properties(context.get("tools"), compat["supportsOpenAIGrammarTools"])

    deferred_mode = (
        "additional-tools"
        if compat["supportsAdditionalTools"]
        else "tool-search"
        if compat["supportsToolSearch"]
        else None
    )
    immediate, deferred = split_deferred_tools(context, deferred_mode is not None)
    tool_options = {
        "supportsStrictMode": bool(compat["supportsStrictMode"]),
        "supportsOpenAIGrammarTools": bool(compat["supportsOpenAIGrammarTools"]),
    }
    items = convert_messages(
        model,
        context,
        grammar_properties=grammar_properties,
        deferred_tools=deferred,
        deferred_mode=deferred_mode,
        tool_options=tool_options,
    )

    params: dict[str, Any] = {"model": model.get("id"), "input": items, "stream": True}
    session_id = base.get("sessionId")
    if retention != "none" and session_id is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(session_id)
    explicit_mode = compat["supportsExplicitPromptCacheMode"]
    if retention == "long" and compat["supportsLongCacheRetention"] and not explicit_mode:
        params["prompt_cache_retention"] = "24h"
    if explicit_mode:
        if retention == "none":
            params["prompt_cache_options"] = {"mode": "explicit"}
        elif retention == "long" and compat["supportsLongCacheRetention"]:
            params["prompt_cache_options"] = {"ttl": "30m"}
    params["store"] = False
    max_tokens = base.get("maxTokens")
    if max_tokens and compat["supportsMaxOutputTokens"]:
        params["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if "temperature" in base:
        params["temperature"] = base["temperature"]
    if immediate:
        params["tools"] = convert_tools(
            immediate,
            supports_strict_mode=tool_options["supportsStrictMode"],
            supports_grammar_tools=tool_options["supportsOpenAIGrammarTools"],
        )
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=model.get("provider") == "github-copilot")
    if model.get("reasoning") and model.get("provider") == "xai":
        params["include"] = ["reasoning.encrypted_content"]
    params.update(base.get("samplingParams") or {})
    return params


# --- azure-openai-responses ------------------------------------------------------------------------------------

AZURE_TOOL_CALL_PROVIDERS = TOOL_CALL_PROVIDERS | {"azure-openai-responses"}
AZURE_DEFAULT_API_VERSION = "v1"
_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")
_AZURE_DEFAULT_PATHS = frozenset(("", "/", "/openai", "/openai/v1/responses"))


def provider_env(name: str, options: Mapping[str, Any]) -> str | None:
    """An env value from the options' ``env`` overrides, else the process environment (empty means unset)."""
    return ((options.get("env") or {}).get(name) or os.environ.get(name)) or None


def azure_deployment_name(model: Model, options: Mapping[str, Any]) -> str:
    """``AZURE_OPENAI_DEPLOYMENT_NAME_MAP`` (``id=deployment,...``) renames the model; else the model id."""
    deployments: dict[str, str] = {}
    for entry in (provider_env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", options) or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        model_id, _, deployment = entry.partition("=")
        deployment = deployment.split("=", 1)[0]
        if model_id and deployment:
            deployments[model_id.strip()] = deployment.strip()
    return deployments.get(str(model.get("id"))) or str(model.get("id"))


def _normalize_azure_base_url(base_url: str) -> str:
    trimmed = base_url.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise PayloadError(f"Invalid Azure OpenAI base URL: {base_url}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in _AZURE_DEFAULT_PATHS:
        parts = parts._replace(path="/openai/v1", query="")
    return urlunsplit(parts).rstrip("/")


def azure_endpoint(model: Model, options: Mapping[str, Any]) -> tuple[str, str]:
    """(base URL, api-version): explicit base URL, else the resource name's default endpoint, else the model's."""
    api_version = provider_env("AZURE_OPENAI_API_VERSION", options) or AZURE_DEFAULT_API_VERSION
    base_url = (provider_env("AZURE_OPENAI_BASE_URL", options) or "").strip() or None
    resource = provider_env("AZURE_OPENAI_RESOURCE_NAME", options)
    if not base_url and resource:
        base_url = f"https://{resource}.openai.azure.com/openai/v1"
    if not base_url and model.get("baseUrl"):
        base_url = str(model["baseUrl"])
    if not base_url:
        raise PayloadError(
            "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
            "or pass azureBaseUrl, azureResourceName, or model.baseUrl."
        )
    return _normalize_azure_base_url(base_url), api_version


def require_api_key(model: Model, options: Mapping[str, Any]) -> str:
    api_key = options.get("apiKey")
    if not api_key:
        raise PayloadError(f"No API key for provider: {js_template_value(model.get('provider'))}")
    return str(api_key)


@malformed_input_guard
def build_azure_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object for ``azure-openai-responses``: the deployment as model, no retention fields, all tools.

    pi-ai resolves the endpoint before building the params, so a missing base URL fails the request here too.
    """
    require_api_key(model, options)
    base = build_base_options(model, context, options)
    effort = reasoning_effort(model, options)
    deployment = azure_deployment_name(model, base)
    azure_endpoint(model, base)
    compat = model.get("compat") or {}
    supports_grammar = compat.get("supportsOpenAIGrammarTools")
    supports_grammar = False if supports_grammar is None else bool(supports_grammar)
    supports_strict = compat.get("supportsStrictMode")
    supports_strict = True if supports_strict is None else bool(supports_strict)
    grammar_properties = grammar_input_properties(context.get("tools"), supports_grammar)
    items = convert_messages(
        model, context, allowed_providers=AZURE_TOOL_CALL_PROVIDERS, grammar_properties=grammar_properties
    )
    params: dict[str, Any] = {"model": deployment, "input": items, "stream": True}
    if base.get("sessionId") is not None:
        params["prompt_cache_key"] = clamp_prompt_cache_key(base["sessionId"])
    params["store"] = False
    if base.get("maxTokens"):
        params["max_output_tokens"] = max(base["maxTokens"], MIN_OUTPUT_TOKENS)
    if "temperature" in base:
        params["temperature"] = base["temperature"]
    tools = context.get("tools")
    if tools:
        params["tools"] = convert_tools(
            list(tools), supports_strict_mode=supports_strict, supports_grammar_tools=supports_grammar
        )
    if options.get("toolChoice") is not None:
        params["tool_choice"] = options["toolChoice"]
    _apply_reasoning(params, model, effort, skip_off_effort=False)
    params.update(base.get("samplingParams") or {})
    return params
