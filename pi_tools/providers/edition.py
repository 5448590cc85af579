"""What one Pi version's request side is made of: its model catalog and the adapter each API folder builds with.

A Pi version (pi_tools.pi.PiVersion) names its edition; the providers layer sees only the edition, so nothing below
`pi/` asks which Pi it reproduces. Pi 1.6 rebuilt every API's request from a transcript with system messages in it,
so its builders are new modules beside the 0.85 ones (``adapter16.py`` next to ``adapter.py`` in each API folder),
sharing what did not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tools.providers.catalog import DEFAULT_CATALOG


@dataclass(frozen=True)
class Edition:
    """The request side of one Pi version."""

    catalog: str
    """The model catalog's file name under pi_tools/providers/data."""
    adapter_module: str
    """The module of each API folder that holds this edition's ``ADAPTER``. An API whose folder has none is not
    built for this edition (refused with a message, never built as another version would)."""
    records_prompt: bool = False
    """Pi 1.x records the system prompt and tools in the transcript (system messages): a session that has them is
    sent as recorded, and a prompt or tool set given for the request becomes a system message when it differs
    (providers.transcript.resumed_prompt_update); Pi 0.85 takes both beside the messages."""


BASE = Edition(catalog=DEFAULT_CATALOG, adapter_module="adapter")
"""The edition every provider function uses unless given another: the one pi-tools was written against."""
