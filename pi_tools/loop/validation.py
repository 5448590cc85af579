"""Tool-argument validation with pi-ai's repairs and error text.

Models often send ``"5"`` for a number or ``null`` for an omitted option. Pi repairs those before checking
the schema, and when the arguments still do not fit it answers the call with an error result whose text the
model reads; that text is reproduced here so that a continued session looks the same in Pi and pi-tools.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError


class ArgumentsError(Exception):
    """The arguments do not satisfy the tool's schema; the message is Pi's ``Validation failed ...`` text."""


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [item for item in kind if isinstance(item, str)]
    return []


def _matches(value: Any, kind: str) -> bool:
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False


def _number(text: str) -> float | int | None:
    try:
        parsed = float(text.strip())
    except ValueError:
        return None
    if not math.isfinite(parsed):
        return None
    return int(parsed) if parsed.is_integer() else parsed


def _coerce_primitive(value: Any, kind: str) -> Any:
    if kind in ("number", "integer"):
        if value is None:
            return 0
        if isinstance(value, bool):
            return 1 if value else 0
        if isinstance(value, str) and value.strip():
            parsed = _number(value)
            if parsed is not None and (kind == "number" or float(parsed).is_integer()):
                return parsed
        return value
    if kind == "boolean":
        if value is None:
            return False
        if value == "true":
            return True
        if value == "false":
            return False
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            return value == 1
        return value
    if kind == "string":
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            from pi_tools.js.json_stringify import js_number_str

            return js_number_str(value)
        return value
    if kind == "null" and (value == "" or value is False or (value == 0 and not isinstance(value, bool))):
        return None
    return value


def _valid(value: Any, schema: dict[str, Any]) -> bool:
    try:
        return bool(Draft7Validator(schema).is_valid(value))
    except Exception:  # noqa: BLE001 - an unusable sub-schema simply does not match
        return False


def coerce(value: Any, schema: Any) -> Any:
    """pi-ai's coercion pass (numbers from numeric strings, booleans from "true"/"false", null to defaults)."""
    if not isinstance(schema, dict):
        return value
    for nested in schema.get("allOf") or []:
        value = coerce(value, nested)
    for union in ("anyOf", "oneOf"):
        branches = schema.get(union)
        if isinstance(branches, list):
            if not any(_valid(value, branch) for branch in branches if isinstance(branch, dict)):
                for branch in branches:
                    candidate = coerce(copy.deepcopy(value), branch)
                    if isinstance(branch, dict) and _valid(candidate, branch):
                        value = candidate
                        break
    kinds = _types(schema)
    union_member = len(kinds) > 1 and any(_matches(value, kind) for kind in kinds)
    if kinds and not union_member:
        for kind in kinds:
            candidate = _coerce_primitive(value, kind)
            if not (candidate is value or (type(candidate) is type(value) and candidate == value)):
                value = candidate
                break
    if "object" in kinds and isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, sub in properties.items():
            if key in value:
                value[key] = coerce(value[key], sub)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in list(value):
                if key not in properties:
                    value[key] = coerce(value[key], extra)
    if "array" in kinds and isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, list):
            for index, sub in enumerate(items[: len(value)]):
                value[index] = coerce(value[index], sub)
        elif isinstance(items, dict):
            for index in range(len(value)):
                value[index] = coerce(value[index], items)
    return value


def _drop_optional_nulls(value: Any, schema: Any) -> None:
    """Optional properties sent as ``null`` are treated as omitted when their schema rejects ``null``."""
    stack: list[tuple[Any, Any]] = [(value, schema)]
    while stack:
        node, node_schema = stack.pop()
        if not isinstance(node_schema, dict):
            continue
        if isinstance(node, list):
            items = node_schema.get("items")
            if isinstance(items, list):
                stack.extend(zip(node, items, strict=False))
            elif isinstance(items, dict):
                stack.extend((item, items) for item in node)
            continue
        properties = node_schema.get("properties")
        if not isinstance(node, dict) or not isinstance(properties, dict):
            continue
        required = set(node_schema.get("required") or [])
        for key, sub in properties.items():
            if key not in node:
                continue
            if (node[key] is None and key not in required and isinstance(sub, dict)
                    and not isinstance(sub.get("$ref"), str) and not _valid(None, sub)):
                del node[key]
            else:
                stack.append((node[key], sub))


def _path(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path)


def _message(error: ValidationError) -> str:
    validator = error.validator
    if validator == "type":
        expected: Any = error.validator_value
        return f"must be {expected}" if isinstance(expected, str) else f"must be either {' or '.join(expected)}"
    if validator == "additionalProperties":
        return "must not have additional properties"
    if validator == "enum":
        return "must be equal to one of the allowed values"
    if validator == "const":
        return "must be equal to constant"
    if validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        comparison = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[validator]
        return f"must be {comparison} {error.validator_value}"
    if validator == "minItems":
        return f"must not have fewer than {error.validator_value} items"
    if validator == "maxItems":
        return f"must not have more than {error.validator_value} items"
    if validator == "minLength":
        return f"must not have fewer than {error.validator_value} characters"
    if validator == "maxLength":
        return f"must not have more than {error.validator_value} characters"
    if validator == "pattern":
        return f'must match pattern "{error.validator_value}"'
    if validator == "anyOf":
        return "must match a schema in anyOf"
    if validator == "oneOf":
        return "must match exactly one schema in oneOf"
    return "an unknown validation error occurred"


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def validate_arguments(tool_name: str, schema: dict[str, Any], arguments: Any) -> Any:
    """The repaired arguments, or :class:`ArgumentsError` with Pi's text listing every problem."""
    args = copy.deepcopy(arguments)
    _drop_optional_nulls(args, schema)
    args = coerce(args, schema)
    validator = Draft7Validator(schema)
    errors = sorted(validator.iter_errors(args), key=lambda e: (list(e.absolute_path), e.validator != "required"))
    if not errors:
        return args
    lines: list[str] = []
    seen_required: set[str] = set()
    for error in errors:
        base = _path(error)
        if error.validator == "required":
            if base in seen_required:
                continue
            seen_required.add(base)
            instance = error.instance if isinstance(error.instance, dict) else {}
            missing = [name for name in error.validator_value if name not in instance]
            first = missing[0] if missing else ""
            lines.append(f"  - {base + '.' + first if base else first}: "
                         f"must have required properties {', '.join(missing)}")
            continue
        lines.append(f"  - {base or 'root'}: {_message(error)}")
    received = json.dumps(_plain(arguments), indent=2, ensure_ascii=False)
    raise ArgumentsError(f'Validation failed for tool "{tool_name}":\n' + "\n".join(lines)
                         + f"\n\nReceived arguments:\n{received}")
