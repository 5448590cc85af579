"""What a rule sees of one request: the payload Pi built, where the request ends, and request-wide values.

In `--replay` one view serves a run of requests made with the same model: the payload is built once for the
longest of them and `end` moves from request to request (the number of payload items that request holds), so
rules find items, the current turn and totals from indexes the view caches once (`memo`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pi_tools.providers.table import items_key, payload_items

T = TypeVar("T")


@dataclass
class RequestView:
    api: str
    model: dict[str, Any]
    payload: dict[str, Any]
    end: int = -1  # items in this request; -1: all of the payload's
    estimate: int | None = None  # Pi's own input-token estimate of this request (estimate_context_tokens)
    source: Callable[[int], Any] | None = None  # the llm Message a payload item came from (None: unknown)
    size: int | None = None  # the request body's JSON size when known without serialising it (parts.py)
    memo: dict[str, Any] = field(default_factory=dict)
    scans: dict[str, Any] | None = None  # item scans made part by part (scans.py); else made here from the items
    given_items: Sequence[Any] | None = None  # the items when the payload holds them as JSON text (parts.py)

    def __post_init__(self) -> None:
        self.items: Sequence[Any]
        if self.given_items is not None:
            self.items = self.given_items
        else:
            items = payload_items(self.api, self.payload)
            self.items = items if isinstance(items, list) else []
        self.key = items_key(self.api)
        if self.end < 0:
            self.end = len(self.items)

    def cached(self, name: str, build: Callable[[], T]) -> T:
        """An index over the whole payload, built once per view (shared by every request of a replay run)."""
        if name not in self.memo:
            self.memo[name] = build()
        value: T = self.memo[name]
        return value

    def source_message(self, index: int) -> Any:
        """The llm Message payload item `index` was built from, or None where no tracing is available."""
        return self.source(index) if self.source is not None else None

    def path(self, index: int, *rest: str | int) -> str:
        """``messages[4].content[0]`` for (4, "content", 0)."""
        out = f"{self.key}[{index}]"
        for part in rest:
            out += f"[{part}]" if isinstance(part, int) else f".{part}"
        return out

    @property
    def tools(self) -> list[Any]:
        tools = self.payload.get("tools")
        if tools is None and isinstance(self.payload.get("config"), dict):
            tools = self.payload["config"].get("tools")
        if tools is None and isinstance(self.payload.get("toolConfig"), dict):
            tools = self.payload["toolConfig"].get("tools")
        return tools if isinstance(tools, list) else []


def blocks(item: Any, key: str = "content") -> list[Any]:
    """An item's list of blocks (empty for string content or anything else)."""
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, list) else []


def is_blank(text: Any) -> bool:
    """Empty or whitespace-only, as the providers judge it (ASCII and Unicode whitespace)."""
    return isinstance(text, str) and not text.strip()
