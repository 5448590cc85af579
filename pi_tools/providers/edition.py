"""What one Pi version's request side is made of: its model catalog and the adapter each API folder builds with.

A Pi version (pi_tools.pi.PiVersion) names its edition; the providers layer sees only the edition, so nothing below
`pi/` asks which Pi it reproduces. Pi 1.6 rebuilt every API's request from a transcript with system messages in it,
so its builders are new modules beside the 0.85 ones (``adapter16.py`` next to ``adapter.py`` in each API folder),
sharing what did not change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pi_tools.providers.catalog import DEFAULT_CATALOG
from pi_tools.providers.options import estimate_context_tokens, output_room
from pi_tools.providers.transform_messages import TRANSFORM_085, TransformRules


@dataclass(frozen=True)
class Edition:
    """The request side of one Pi version."""

    catalog: str
    """The model catalog's file name under pi_tools/providers/data."""
    adapter_module: str
    """The module of each API folder that holds this edition's ``ADAPTER``. An API whose folder has none is not
    built for this edition (refused with a message, never built as another version would)."""
    prompt: str = "pi-prompt.json"
    """The file under pi_tools/providers/data holding this version's own system prompt and default tools
    (providers.pi_prompt: `--system-prompt pi`)."""
    records_prompt: bool = False
    """Pi 1.x records the system prompt and tools in the transcript (system messages): a session that has them is
    sent as recorded, and a prompt or tool set given for the request becomes a system message when it differs
    (providers.transcript.resumed_prompt_update); Pi 0.85 takes both beside the messages."""
    transform: TransformRules = TRANSFORM_085
    """transformMessages' rules (providers/transform_messages.py), for the views that run it themselves (render's
    preview, visibility --api, preflight's provenance) exactly as this edition's builders do."""
    estimate: Callable[[Mapping[str, Any]], Any] = estimate_context_tokens
    """Pi's size estimate (tokens) of a request's context as handed to build_payload ({systemPrompt?, tools?,
    messages}): what its output budget and auto-compaction go by, and what preflight's context-window rule
    compares with the model's window."""
    output_room: Callable[[Any, Any], Any] = output_room
    """The output tokens Pi's budget leaves in a context window (first argument) after an input estimate (second):
    the most a request's max tokens may be (render's notes explain a clamp with it)."""
    estimates_stored_messages: bool = False
    """Every API fits max tokens to the context window before converting (Pi 1.6's streamSimple: buildBaseOptions'
    clampMaxTokensToContext), estimating the messages as stored: a content item the estimate cannot measure (an
    assistant's string, number or array item) fails the request there, before anything else can
    (registry.build_payload; Pi 0.85's estimate reads them where it runs, options.estimate_context_tokens)."""


BASE = Edition(catalog=DEFAULT_CATALOG, adapter_module="adapter")
"""The edition every provider function uses unless given another: the one pi-tools was written against."""
