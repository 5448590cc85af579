"""Pi 1.6's client identity: the `User-Agent` and the attribution headers every API adds to a request.

Pi 1.6 (pi-ai utils/identity.ts) names itself `pi/<version> (<platform>; node/v<node version>; <arch>)` where 0.85
sent `pi (<platform> <release>; <arch>)`, and attributes requests to Pi by provider: OpenRouter's `HTTP-Referer` /
`X-OpenRouter-Title` / `X-OpenRouter-Categories`, NVIDIA's `X-BILLING-INVOKE-ORIGIN`, OpenCode's client and session
headers. The coding agent passes the identity below on every request (sdk.ts, as the 1.6 oracle does). These
headers go below the model's, the provider's and the request's own, so configured headers override them.

The machine's platform, Node version and architecture are written as the placeholders the goldens use (a wire
request shows what Pi sends, not what this machine would).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

PI_VERSION = "1.6.0"
"""The coding agent's version, which the detailed User-Agent carries (identity.version)."""
PI_ATTRIBUTION: dict[str, Any] = {"name": "pi", "url": "https://pi.dev", "categories": ["cli-agent"]}
DEFAULT_IDENTITY: dict[str, Any] = {"userAgent": "detailed", "version": PI_VERSION, "attribution": PI_ATTRIBUTION}
"""What Pi's coding agent passes as `identity` (getClientIdentity with the default settings)."""
PLATFORM_USER_AGENT = "(<platform>; node/v<node-version>; <arch>)"

_NVIDIA_NIM_HOST = "integrate.api.nvidia.com"
_OPENCODE_HOST = "opencode.ai"


def identity_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The identity a request is made with: the options' own, else the coding agent's."""
    identity = options.get("identity")
    return identity if isinstance(identity, dict) else DEFAULT_IDENTITY


def format_user_agent(identity: Mapping[str, Any] | None) -> str:
    """The User-Agent of an identity (detailed by default; `short` is `pi`; `{custom}` its value)."""
    mode = (identity or {}).get("userAgent") or "detailed"
    if isinstance(mode, dict):
        return str(mode.get("custom"))
    if mode == "short":
        return "pi"
    version = (identity or {}).get("version") or PI_VERSION
    return f"pi/{version} {PLATFORM_USER_AGENT}"


def _host(base_url: str) -> str | None:
    try:
        return urlsplit(base_url).hostname
    except ValueError:
        return None


def _is_open_router(provider: str, base_url: str) -> bool:
    return provider == "openrouter" or "openrouter.ai" in base_url


def _is_nvidia(provider: str, base_url: str) -> bool:
    return provider == "nvidia" or _host(base_url) == _NVIDIA_NIM_HOST


def _is_opencode(provider: str, base_url: str) -> bool:
    return provider in ("opencode", "opencode-go") or _host(base_url) == _OPENCODE_HOST


def attribution_headers(provider: str, base_url: str, identity: Mapping[str, Any] | None) -> dict[str, str]:
    """The provider's attribution headers for an identity (none when attribution is off or the provider has none)."""
    attribution = (identity or {}).get("attribution")
    if not attribution:
        return {}
    name, url, categories = attribution.get("name"), attribution.get("url"), attribution.get("categories")
    if _is_open_router(provider, base_url):
        headers = {"HTTP-Referer": url, "X-OpenRouter-Title": name}
        if categories:
            headers["X-OpenRouter-Categories"] = ",".join(categories)
        return headers
    if _is_nvidia(provider, base_url):
        return {"X-BILLING-INVOKE-ORIGIN": name[:1].upper() + name[1:]}
    if _is_opencode(provider, base_url):
        return {"x-opencode-client": name}
    return {}


def identity_headers(model: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, str]:
    """User-Agent and attribution headers of the request's identity for the model's provider and endpoint."""
    identity = identity_of(options)
    provider, base_url = str(model.get("provider") or ""), str(model.get("baseUrl") or "")
    return {"User-Agent": format_user_agent(identity), **attribution_headers(provider, base_url, identity)}


def opencode_session_headers(model: Mapping[str, Any], session_id: Any) -> dict[str, str] | None:
    """OpenCode's per-conversation routing header (None without a session or for another target)."""
    if session_id and _is_opencode(str(model.get("provider") or ""), str(model.get("baseUrl") or "")):
        return {"x-opencode-session": session_id}
    return None


def merge_headers(*sources: Mapping[str, Any] | None) -> dict[str, str] | None:
    """pi-ai providerHeadersToRecord: later sources win by case-insensitive name (keeping their spelling), a null
    value removes the header; None when nothing is left."""
    merged: dict[str, tuple[str, str]] = {}
    for source in sources:
        for name, value in (source or {}).items():
            key = name.lower()
            merged.pop(key, None)
            if value is not None:
                merged[key] = (name, value)
    return dict(merged.values()) if merged else None
