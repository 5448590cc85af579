"""Sessions people can read and web UIs can show: transcripts (Markdown, one HTML file) and ChatMessages.

`to_chat_messages(messages)` is the web ChatMessage projection (chat.py); `build_transcript(tree, options)` the
reading-order model of a session (transcript.py); `export_session(tree, fmt, options)` the whole stage, yielding
the output in pieces.
"""

from __future__ import annotations

from pi_tools.export.chat import ChatProjection, to_chat_messages, tool_part_type
from pi_tools.export.stage import FORMATS, ExportError, ExportOptions, chat_conversation, export_session
from pi_tools.export.transcript import TranscriptOptions, build_transcript

__all__ = [
    "FORMATS", "ChatProjection", "ExportError", "ExportOptions", "TranscriptOptions", "build_transcript",
    "chat_conversation", "export_session", "to_chat_messages", "tool_part_type",
]
