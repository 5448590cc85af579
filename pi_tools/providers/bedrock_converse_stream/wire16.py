"""The HTTP request the AWS SDK bundled with Pi 1.6 (client-bedrock-runtime 3.1126.0) sends for a ConverseStream
command input: 0.85's body and URL (``wire.py``), the new SDK version in the user agents, and Pi 1.6's client
identity given to the SDK as its custom user agent (`pi/<version>`, `pi` for the short form), which the SDK appends
to both ``user-agent`` and ``x-amz-user-agent``."""

from __future__ import annotations

from typing import Any

from pi_tools.providers.bedrock_converse_stream.wire import build_body, build_headers, build_url
from pi_tools.providers.catalog import Model
from pi_tools.providers.identity16 import PI_VERSION, identity_of

SDK_VERSION = "3.1126.0"
USER_AGENT = (
    f"aws-sdk-js/{SDK_VERSION} ua/2.1 os/<platform>#<os-release> lang/js md/nodejs#<node-version> "
    f"api/bedrock-runtime#{SDK_VERSION} m/N,E"
)


def custom_user_agent(options: dict[str, Any]) -> str:
    """The identity as the SDK writes its custom user agent pair (name/version)."""
    identity = identity_of(options)
    mode = identity.get("userAgent") or "detailed"
    if isinstance(mode, dict):
        return str(mode.get("custom"))
    if mode == "short":
        return "pi"
    return f"pi/{identity.get('version') or PI_VERSION}"


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``{method, url, headers, body}`` for ``client.send(new ConverseStreamCommand(payload))``."""
    options = options or {}
    body = build_body(payload)
    headers = build_headers(body, options)
    suffix = custom_user_agent(options)
    headers["user-agent"] = f"{USER_AGENT} {suffix}"
    headers["x-amz-user-agent"] = f"aws-sdk-js/{SDK_VERSION} {suffix}"
    return {"method": "POST", "url": build_url(model, options), "headers": headers, "body": body}
