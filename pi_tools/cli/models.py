"""`pi-tools models`: the model catalog of a Pi version (pi-ai's, as that version bundles it)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import fail
from pi_tools.cli.options import REFUSAL_MUST_BE, Pi, TableOrJson, api_filter_option, format_option


def models_command(
    api: Annotated[str | None, api_filter_option("Only models of this API.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="Only models of this provider.")] = None,
    output_format: Annotated[TableOrJson, format_option(TableOrJson, "table or json (one model per line).", REFUSAL_MUST_BE)] = "table",
    pi: Pi = None,
) -> None:
    """List the model catalog of the Pi version (--pi) (provider/id, API, reasoning, input, context window, max
    tokens, $/Mtok).

    Example: pi-tools models --api anthropic-messages --format json | jq -r '.provider + "/" + .id'
    """
    from pi_tools.pi import resolve
    from pi_tools.providers.catalog import all_models

    version = resolve(pi)
    models = [
        m for m in all_models(catalog=version.requests.catalog)
        if (api is None or m.get("api") == api) and (provider is None or m.get("provider") == provider)
    ]
    if not models:
        fail("no model matches" + (f" --api {api}" if api else "") + (f" --provider {provider}" if provider else "")
             + f" in Pi {version.name}'s catalog", 1)
    if output_format == "json":
        from pi_tools.pipe.documents import DocumentWriter

        writer = DocumentWriter()
        for model in models:
            writer.write(model)
        writer.flush()
        return
    rows = [("MODEL", "API", "REASONING", "INPUT", "CONTEXT", "MAX OUT", "$IN/M", "$OUT/M")]
    for m in models:
        cost = m.get("cost") or {}
        rows.append((
            f"{m['provider']}/{m['id']}", str(m.get("api")), "yes" if m.get("reasoning") else "no",
            ",".join(m.get("input") or []), str(m.get("contextWindow")), str(m.get("maxTokens")),
            f"{cost.get('input', 0):g}", f"{cost.get('output', 0):g}",
        ))
    from pi_tools.output.texttable import align_columns

    sys.stdout.write("\n".join(align_columns(rows)) + "\n")
