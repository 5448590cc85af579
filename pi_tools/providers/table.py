"""The API table: every provider API pi-tools builds, one row each, and the only list of them.

A row holds what must be known without importing the API's folder: its name, the folder that implements the API
contract (`pi_tools.providers.contract.ApiAdapter`), which key of its payload holds the conversation, the model
it is shown or decoded with when nothing names one, and a one-line description for `--api`'s help. Everything
else (payload, wire request, stream decoder, parts, payload mapping, preflight rules) is loaded from the folder
on first use (`pi_tools.providers.registry.adapter`), so `--help` and commands that touch one API never import
the others.

Third parties add an API with a row of their own through the ``pi_tools.apis`` entry point group (the entry
point names an `ApiRow`); see docs/architecture.md, "Adding an API".

This module imports nothing of the package (not even the catalog): every `--api` check reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ApiRow:
    """One API: `name` as pi-ai spells it, `folder` the package whose ``adapter`` module holds its ``ADAPTER``."""

    name: str
    folder: str
    items_key: str
    """Where the payload holds the conversation's items: a key (``messages``, ``input``, ``contents``), or the
    keys to it joined by dots where the list sits in a nested object (``context.messages``). It is also the label
    the mapping's fragments and preflight's locations start with (``context.messages[3]``)."""
    representative_model: str | None
    """The catalog model shown or decoded when neither --model nor the session names one (None: none)."""
    summary: str
    """A few words for `--api`'s help."""
    streams: bool = True
    """Whether the folder has a stream decoder (`pi-tools decode`, `run`)."""
    http: bool = False
    """Whether `pi-tools run` can reach it over HTTP."""
    stand_in_model: str | None = None
    """The catalog model whose defaults carry a request `preflight --replay` finds recorded with a model the
    catalog does not have (renamed to it); None: the representative model. Vertex has no representative model
    (no default is shown for it) but replays with the Gemini API's, which builds the same request."""
    borrows_models: bool = False
    """For an API the catalog has no models of (a plug-in's): any catalog model may be named for it (--model,
    else the representative model), and is built as a copy whose ``api`` is this API's name (`model_speaking`).
    A built-in API takes only the catalog models that speak it."""

    @property
    def replay_model(self) -> str | None:
        """The model a replayed request with an unknown model is built with (see `stand_in_model`)."""
        return self.stand_in_model or self.representative_model


BUILTIN_APIS: tuple[ApiRow, ...] = (
    ApiRow("anthropic-messages", "pi_tools.providers.anthropic_messages", "messages",
           "anthropic/claude-sonnet-4-5", "Anthropic Messages", http=True),
    ApiRow("openai-completions", "pi_tools.providers.openai_completions", "messages",
           "groq/openai/gpt-oss-120b", "OpenAI Chat Completions and every compatible host", http=True),
    ApiRow("openai-responses", "pi_tools.providers.openai_responses", "input",
           "openai/gpt-5.1", "OpenAI Responses", http=True),
    ApiRow("google-generative-ai", "pi_tools.providers.google_generative_ai", "contents",
           "google/gemini-2.5-flash", "Gemini API", http=True),
    ApiRow("google-vertex", "pi_tools.providers.google_vertex", "contents",
           None, "Gemini on Vertex AI", stand_in_model="google/gemini-2.5-flash"),
    ApiRow("mistral-conversations", "pi_tools.providers.mistral_conversations", "messages",
           "mistral/mistral-medium-latest", "Mistral"),
    ApiRow("bedrock-converse-stream", "pi_tools.providers.bedrock_converse_stream", "messages",
           "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "Amazon Bedrock ConverseStream"),
    ApiRow("azure-openai-responses", "pi_tools.providers.azure_openai_responses", "input",
           None, "Azure OpenAI Responses", streams=False),
    ApiRow("openai-codex-responses", "pi_tools.providers.openai_codex_responses", "input",
           "openai-codex/gpt-5.5", "OpenAI Codex (ChatGPT subscription) Responses", streams=False),
    ApiRow("pi-messages", "pi_tools.providers.pi_messages", "context.messages",
           "radius/balanced", "Pi's own message API (Radius gateway)"),
)
"""The built-in APIs, in the order every listing shows them (the `--api` choices in error messages, `pi-tools
run`'s list, the rule order of `preflight --list-rules` through each folder's rule modules). Azure and Codex
come last, in the order they were added as variants of OpenAI Responses."""


_rows: tuple[ApiRow, ...] | None = None


def api_rows() -> tuple[ApiRow, ...]:
    """The built-in rows, then those that installed packages register (``pi_tools.apis`` entry points), read once.

    A registered row whose name is already taken is ignored: a plug-in cannot replace a built-in API."""
    global _rows
    if _rows is None:
        rows = list(BUILTIN_APIS)
        taken = {row.name for row in rows}
        from importlib.metadata import entry_points

        for point in entry_points(group="pi_tools.apis"):
            row = point.load()
            if isinstance(row, ApiRow) and row.name not in taken:
                rows.append(row)
                taken.add(row.name)
        _rows = tuple(rows)
    return _rows


def api_names() -> list[str]:
    """Every API name pi-tools builds, in table order (the choices of `--api`)."""
    return [row.name for row in api_rows()]


_BUILTIN_BY_NAME = {row.name: row for row in BUILTIN_APIS}


def find_row(name: str) -> ApiRow | None:
    """The row of API `name`, or None. A built-in API is found without reading the installed packages' entry
    points (a scan of every installed distribution, some milliseconds): a command about one built-in API never
    pays for it, and a plug-in cannot take a built-in name anyway."""
    return _BUILTIN_BY_NAME.get(name) or next((row for row in api_rows() if row.name == name), None)


def is_api(name: str) -> bool:
    """Whether `name` is an API of the table (see find_row)."""
    return find_row(name) is not None


def representative_models() -> dict[str, str]:
    """API name → its representative model, for the APIs that have one (in table order)."""
    return {row.name: row.representative_model for row in api_rows() if row.representative_model is not None}


def items_key(api: str) -> str:
    """The payload key of API `api`'s conversation items (``messages`` for an API the table does not know, as
    the preview and preflight have always read such a payload)."""
    row = find_row(api)
    return row.items_key if row is not None else "messages"


def payload_items(api: str, payload: Any) -> Any:
    """The value where API `api`'s payload holds its items (its `items_key`, followed through nested objects), or
    None where the payload has nothing there."""
    value = payload
    for key in items_key(api).split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def with_payload_items(api: str, payload: dict[str, Any], items: Any) -> dict[str, Any]:
    """A shallow copy of `payload` (copied along the items' path, nothing else) with `items` where API `api`
    holds its items; the objects on the way are made where the payload lacks them."""
    keys = items_key(api).split(".")

    def put(value: Any, depth: int) -> dict[str, Any]:
        copy = dict(value) if isinstance(value, dict) else {}
        key = keys[depth]
        copy[key] = items if depth == len(keys) - 1 else put(copy.get(key), depth + 1)
        return copy

    return put(payload, 0)


def model_speaking(api: str, model: dict[str, Any]) -> dict[str, Any] | None:
    """`model` (a catalog entry) as API `api` is built with: the model itself when it speaks the API; for an API
    that borrows catalog models (a plug-in's row, `borrows_models`) a copy whose ``api`` is `api`; else None
    (the model cannot be used with this API)."""
    if model.get("api") == api:
        return model
    row = find_row(api)
    if row is not None and row.borrows_models:
        return {**model, "api": api}
    return None
