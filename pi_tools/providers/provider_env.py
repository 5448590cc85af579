"""pi-ai's provider environment lookup (``utils/provider-env.ts``).

Adapters read credentials, regions and endpoints from the environment, but a caller may scope values to one
request through ``options["env"]``; those win. An empty string counts as unset either way, as in the reference.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any


def provider_env(name: str, options: Mapping[str, Any]) -> str | None:
    """``options.env[name]``, else the process environment; None when neither holds a non-empty value."""
    scoped = options.get("env") or {}
    return scoped.get(name) or os.environ.get(name) or None
