"""pi-tools: read Pi coding-agent sessions and rebuild exactly what Pi 0.85 builds from them.

The library's public face: every CLI stage is a function here that works on in-memory data. Imports are lazy
so that `import pi_tools` (and `pi-tools --help`) stays cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "load_session": "pi_tools.session",
    "build_session_context": "pi_tools.session",
    "convert_to_llm": "pi_tools.messages",
    "context_document": "pi_tools.pipeline.stages",
    "llm_document": "pi_tools.pipeline.stages",
    "to_chat_messages": "pi_tools.export",
    "build_transcript": "pi_tools.export",
    "export_session": "pi_tools.export",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'pi_tools' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)
