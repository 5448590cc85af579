"""The API table: every provider API pi-tools builds, one row each, and the only list of them.

A row holds what must be known without importing the API's folder: its name, the folder that implements the API
contract (`pi_tools.providers.contract.ApiAdapter`), which key of its payload holds the conversation, the model
it is shown or decoded with when nothing names one, and a one-line description for `--api`'s help. Everything
else (payload, wire request, stream decoder, parts, payload mapping, preflight rules) is loaded from the folder
on first use, so `--help` and commands that touch one API never import the others.

Third parties add an API with a row of their own through the ``pi_tools.apis`` entry point group (the entry
point names an `ApiRow`); see docs/architecture.md, "Adding an API".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ApiRow:
    """One API: `name` as pi-ai spells it, `folder` the package whose ``adapter`` module holds its ``ADAPTER``."""

    name: str
    folder: str
    items_key: str
    """The payload key that holds the conversation's items (``messages``, ``input``, ``contents``)."""
    representative_model: str | None
    """The catalog model shown or decoded when neither --model nor the session names one (None: none)."""
    summary: str
    """A few words for `--api`'s help."""
    streams: bool = True
    """Whether the folder has a stream decoder (`pi-tools decode`, `run`)."""
    http: bool = False
    """Whether `pi-tools run` can reach it over HTTP."""


BUILTIN_APIS: tuple[ApiRow, ...] = (
    ApiRow("anthropic-messages", "pi_tools.providers.anthropic_messages", "messages",
           "anthropic/claude-sonnet-4-5", "Anthropic Messages", http=True),
    ApiRow("openai-completions", "pi_tools.providers.openai_completions", "messages",
           "groq/openai/gpt-oss-120b", "OpenAI Chat Completions and every compatible host", http=True),
    ApiRow("openai-responses", "pi_tools.providers.openai_responses", "input",
           "openai/gpt-5.1", "OpenAI Responses", http=True),
    ApiRow("azure-openai-responses", "pi_tools.providers.azure_openai_responses", "input",
           None, "Azure OpenAI Responses", streams=False),
    ApiRow("google-generative-ai", "pi_tools.providers.google_generative_ai", "contents",
           "google/gemini-2.5-flash", "Gemini API", http=True),
    ApiRow("google-vertex", "pi_tools.providers.google_vertex", "contents",
           None, "Gemini on Vertex AI"),
    ApiRow("mistral-conversations", "pi_tools.providers.mistral_conversations", "messages",
           "mistral/mistral-medium-latest", "Mistral"),
    ApiRow("bedrock-converse-stream", "pi_tools.providers.bedrock_converse_stream", "messages",
           "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", "Amazon Bedrock ConverseStream"),
)
"""The built-in APIs, in the order every listing shows them."""


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


def find_row(name: str) -> ApiRow | None:
    """The row of API `name`, or None."""
    return next((row for row in api_rows() if row.name == name), None)
