"""The HTTP request the AWS SDK (client-bedrock-runtime 3.1048.0) sends for a ConverseStream command input.

The SDK does not send the command object as-is: ``modelId`` moves into the URL, binary members become base64
strings and the smithy JSON codec writes structure members in the Converse schema's order, skipping null
members. Documents (tool inputs, schemas, additional request fields) pass through untouched. Reproducing that
lets a user see the exact body bytes Bedrock receives.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any
from urllib.parse import quote

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.bedrock_converse_stream.payload import configured_region
from pi_tools.providers.catalog import Model
from pi_tools.providers.provider_env import provider_env

SDK_VERSION = "3.1048.0"
USER_AGENT = (
    f"aws-sdk-js/{SDK_VERSION} ua/2.1 os/<platform>#<os-release> lang/js md/nodejs#<node-version> "
    f"api/bedrock-runtime#{SDK_VERSION} m/N,E"
)
REDACTED = "<redacted>"
VOLATILE = "<volatile>"
_STANDARD_ENDPOINT = re.compile(r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")
_ARN_REGION = re.compile(r"^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):")

# Converse schema: structure -> ordered (member, shape). A shape is another structure's name, "list:<shape>",
# "doc" (free-form JSON), "fields" (the small free-form reasoning settings), "blob" (bytes) or None (a scalar).
_Shape = str | None
_SCHEMA: dict[str, tuple[tuple[str, _Shape], ...]] = {
    "Request": (
        ("messages", "list:Message"),
        ("system", "list:SystemContentBlock"),
        ("inferenceConfig", "InferenceConfiguration"),
        ("toolConfig", "ToolConfiguration"),
        ("guardrailConfig", "doc"),
        ("additionalModelRequestFields", "fields"),
        ("promptVariables", "doc"),
        ("additionalModelResponseFieldPaths", "list:"),
        ("requestMetadata", "doc"),
        ("performanceConfig", "doc"),
        ("serviceTier", "doc"),
        ("outputConfig", "doc"),
    ),
    "Message": (("role", None), ("content", "list:ContentBlock")),
    "ContentBlock": (
        ("text", None),
        ("image", "ImageBlock"),
        ("document", "doc"),
        ("video", "doc"),
        ("audio", "doc"),
        ("toolUse", "ToolUseBlock"),
        ("toolResult", "ToolResultBlock"),
        ("guardContent", "doc"),
        ("cachePoint", "CachePointBlock"),
        ("reasoningContent", "ReasoningContentBlock"),
        ("citationsContent", "doc"),
        ("searchResult", "doc"),
    ),
    "ImageBlock": (("format", None), ("source", "ImageSource"), ("error", "doc")),
    "ImageSource": (("bytes", "blob"), ("s3Location", "doc")),
    "ToolUseBlock": (("toolUseId", None), ("name", None), ("input", "doc"), ("type", None)),
    "ToolResultBlock": (
        ("toolUseId", None),
        ("content", "list:ToolResultContentBlock"),
        ("status", None),
        ("type", None),
    ),
    "ToolResultContentBlock": (
        ("json", "doc"),
        ("text", None),
        ("image", "ImageBlock"),
        ("document", "doc"),
        ("video", "doc"),
        ("searchResult", "doc"),
    ),
    "CachePointBlock": (("type", None), ("ttl", None)),
    "ReasoningContentBlock": (("reasoningText", "ReasoningTextBlock"), ("redactedContent", "blob")),
    "ReasoningTextBlock": (("text", None), ("signature", None)),
    "SystemContentBlock": (("text", None), ("guardContent", "doc"), ("cachePoint", "CachePointBlock")),
    "InferenceConfiguration": (
        ("maxTokens", None),
        ("temperature", None),
        ("topP", None),
        ("stopSequences", "list:"),
    ),
    "ToolConfiguration": (("tools", "list:Tool"), ("toolChoice", "ToolChoice")),
    "Tool": (("toolSpec", "ToolSpecification"), ("systemTool", "doc"), ("cachePoint", "CachePointBlock")),
    "ToolSpecification": (
        ("name", None),
        ("inputSchema", "ToolInputSchema"),
        ("description", None),
        ("strict", None),
    ),
    "ToolInputSchema": (("json", "doc"),),
    "ToolChoice": (("auto", "doc"), ("any", "doc"), ("tool", "SpecificToolChoice")),
    "SpecificToolChoice": (("name", None),),
}


# shape -> {member: (schema position, member shape)}, for lookups by the keys a value actually has.
_MEMBERS: dict[str, dict[str, tuple[int, _Shape]]] = {
    shape: {member: (position, member_shape) for position, (member, member_shape) in enumerate(members)}
    for shape, members in _SCHEMA.items()
}


def _blob(value: Any) -> Any:
    """A payload ``{"$bytes": b64}`` marker becomes the plain base64 string the SDK writes."""
    if isinstance(value, dict) and len(value) == 1 and "$bytes" in value:
        return value["$bytes"]
    return value


def _number(value: Any) -> Any:
    """The codec writes non-finite numbers as strings ("NaN", "Infinity") instead of JSON's null."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    return value


def _fields(value: Any) -> Any:
    if isinstance(value, dict):
        return {name: _fields(item) for name, item in value.items()}
    if isinstance(value, list):
        return [_fields(item) for item in value]
    return _number(value)


def _serialize(shape: _Shape, value: Any) -> Any:
    """One value as the smithy JSON codec writes it (the Converse schema nests only a few levels).

    Members are looked up from the value's own keys (most blocks are one-member unions), then put in schema
    order; null members and members the schema does not know are left out, as the SDK does.
    """
    if shape == "doc" or value is None:
        return value
    if shape is None:
        return _number(value)
    if shape == "fields":
        return _fields(value)
    if shape == "blob":
        return _blob(value)
    if shape.startswith("list:"):
        if not isinstance(value, list):
            return value
        item_shape: _Shape = shape[5:] or None
        return [_serialize(item_shape, item) for item in value if item is not None]
    if not isinstance(value, dict):
        return value
    members = _MEMBERS[shape]
    present = [
        (members[name], name, item) for name, item in value.items() if name in members and item is not None
    ]
    if len(present) > 1:
        present.sort(key=lambda found: found[0][0])
    return {name: _serialize(spec[1], item) for spec, name, item in present}


def build_body(payload: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = _serialize("Request", payload)
    return body


def _region_and_endpoint(model: Model, options: dict[str, Any]) -> tuple[str, str | None]:
    """The signing region and, when pi-ai pins it, the explicit endpoint (the catalog ``baseUrl``)."""
    base_url = str(model.get("baseUrl") or "")
    host = re.sub(r"^[a-z]+://", "", base_url.lower()).split("/", 1)[0].split(":", 1)[0]
    standard = _STANDARD_ENDPOINT.match(host)
    endpoint_region = standard.group(1) if standard else None
    region = configured_region(options)
    ambient_profile = bool(provider_env("AWS_PROFILE", {}))
    explicit = endpoint_region is None or (not region and not ambient_profile)
    arn = _ARN_REGION.match(str(model.get("id", "")))
    if arn:
        resolved = arn.group(1)
    elif region:
        resolved = region
    elif endpoint_region and explicit:
        resolved = endpoint_region
    else:
        resolved = "us-east-1"
    return resolved, (base_url if explicit and base_url else None)


def build_url(model: Model, options: dict[str, Any]) -> str:
    region, endpoint = _region_and_endpoint(model, options)
    if endpoint is None:
        suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
        endpoint = f"https://bedrock-runtime.{region}.{suffix}"
    model_id = quote(str(model.get("id", "")), safe="-_.~")
    return f"{endpoint.rstrip('/')}/model/{model_id}/converse-stream"


def _bearer_token(options: dict[str, Any]) -> str | None:
    if provider_env("AWS_BEDROCK_SKIP_AUTH", options) == "1":
        return None
    return options.get("apiKey") or provider_env("AWS_BEARER_TOKEN_BEDROCK", options)


def _is_reserved(name: str) -> bool:
    """Headers SigV4 or the auth scheme own; pi-ai never lets caller headers replace them."""
    lower = name.lower()
    return lower.startswith("x-amz-") or lower in ("authorization", "host")


def build_headers(body: dict[str, Any], options: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {
        "content-type": "application/json",
        "x-amz-user-agent": f"aws-sdk-js/{SDK_VERSION}",
        "user-agent": USER_AGENT,
    }
    for name, value in (options.get("headers") or {}).items():
        if value is not None and not _is_reserved(name):
            headers[name.lower()] = str(value)
    headers["amz-sdk-invocation-id"] = VOLATILE
    headers["amz-sdk-request"] = "attempt=1; max=3"
    if _bearer_token(options):
        headers["authorization"] = f"Bearer {REDACTED}"
    else:
        headers["x-amz-date"] = VOLATILE
        headers["x-amz-content-sha256"] = hashlib.sha256(js_stringify(body).encode("utf-8")).hexdigest()
        if provider_env("AWS_SESSION_TOKEN", options) and provider_env("AWS_ACCESS_KEY_ID", options):
            headers["x-amz-security-token"] = REDACTED
        headers["authorization"] = f"AWS4-HMAC-SHA256 {REDACTED}"
    return dict(sorted(headers.items()))


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` for ``client.send(new ConverseStreamCommand(payload))``."""
    body = build_body(payload)
    return {
        "method": "POST",
        "url": build_url(model, options),
        "headers": build_headers(body, options),
        "body": body,
    }
