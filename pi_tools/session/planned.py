"""A planned context's messages, made from the file's text when they are needed, and cut into parts.

The bulk index (bulk.py) plans a clean file's context as a list of line spans; this holds those spans and the
text, so that a stage can drop the index first, build the messages as it writes them, cut them into parts before
user messages (providers/split.py), or send a part to another process (pi_tools/engine/helper.py).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from pi_tools.js.json_line import loads_line_lenient
from pi_tools.messages.types import RawMessage
from pi_tools.session.context import entry_message_count, entry_to_messages
from pi_tools.session.heads import message_text

_CONTENT_ROLES = ("user", "assistant", "toolResult")


def _no_text(start: int, end: int) -> bytes:
    raise ValueError("detached messages were given no way to their text")




class PlannedMessages:
    """A planned context's messages, produced from the file's text each time they are iterated.

    Holds the file's bytes and, per planned entry, its line span and role (message lines), the parsed entry (the
    few others), or the list of its messages (the few a version's projection makes otherwise:
    ContextPlan.projected), so a stage can drop the session index before the messages are built.
    """

    _shares_text = False
    """A part (parts) reads the text its whole holds: copying its own stretch out would free nothing."""

    def __init__(self, data: bytes, steps: list[Any], text_is_checked: bool) -> None:
        self._data = data
        self._base = 0  # file offset of self._data[0]
        self._steps = steps
        self._text_is_checked = text_is_checked  # valid UTF-8, so a message's own text can be written as it is
        self._fetch_text: Callable[[int, int], bytes] = _no_text
        self._cuts: dict[int, list[int]] = {}

    def __iter__(self) -> Iterator[Any]:
        """The context messages as objects (message lines parsed now)."""
        if self._data is None:  # detached: the text is fetched for this pass only
            base, end = self.text_span()
            view = memoryview(self._fetch_text(base, end))
        else:
            self._keep_only_context_lines()
            view, base = memoryview(self._data), self._base
        loads = orjson.loads
        for step in self._steps:
            if type(step) is not tuple:  # an entry (a migrated array line too), or its projected messages
                yield from step if type(step) is list else entry_to_messages(step)
                continue
            line = view[step[0] - base:step[1] - base]
            try:
                message = loads(line)["message"]
            except orjson.JSONDecodeError:  # what orjson refuses and JSON.parse accepts (lone surrogates)
                message = loads_line_lenient(line)["message"]
            if message.get("content") is None and message.get("role") in _CONTENT_ROLES:
                message = {**message, "content": []}  # as entry_to_messages; only unchecked lines can lack it
            yield message

    def message_count(self) -> int:
        """How many messages these steps produce (a message line one, a parsed entry what entry_to_messages makes of
        it, a projected entry its messages), none of them made."""
        steps = self._steps
        if set(map(type, steps)) <= {tuple}:
            return len(steps)  # message lines only (nearly every part): one message each
        return sum(1 if type(step) is tuple else len(step) if type(step) is list else entry_message_count(step)
                   for step in steps)

    def text_size(self) -> int:
        """Bytes of file text between the first and the last message line (0 without message lines)."""
        start, end = self.text_span()
        return end - start

    def parts(self, size: int) -> list[PlannedMessages]:
        """The messages cut before user message lines into parts of about `size` bytes of line text, sharing
        this file text. The last part holds an assistant line (what payload estimates start from), else it
        joins the part before it. (The cuts are kept: preflight cuts the same messages again after the build.)"""
        steps = self._steps
        bounds = self._cuts.get(size)
        if bounds is None:
            bounds = self._cuts[size] = self._bounds(size)
        parts = []
        for first, last in zip(bounds, bounds[1:], strict=False):
            part = PlannedMessages(self._data, steps[first:last], self._text_is_checked)
            part._base = self._base
            part._shares_text = True
            parts.append(part)
        return parts

    def _bounds(self, size: int) -> list[int]:
        steps = self._steps
        cuts = [0]
        part_start = self.text_span()[0]
        for position in [position for position, step in enumerate(steps) if type(step) is tuple and step[2] == "user"]:
            if position > 0 and steps[position][0] - part_start >= size:
                cuts.append(position)
                part_start = steps[position][0]
        while len(cuts) > 1 and not any(type(step) is tuple and step[2] == "assistant" for step in steps[cuts[-1]:]):
            cuts.pop()
        return [*cuts, len(steps)]

    def text_span(self) -> tuple[int, int]:
        """The file offsets of the stretch of text its message lines need (planned lines ascend in the file)."""
        steps = self._steps
        first = next((step for step in steps if type(step) is tuple), None)
        if first is None:
            return self._base, self._base
        last = next(step for step in reversed(steps) if type(step) is tuple)
        return first[0], last[1]

    def without_text(self) -> PlannedMessages:
        """The same messages without their text, to send to a process that has it (see attach_text)."""
        detached = PlannedMessages(b"", self._steps, self._text_is_checked)
        detached._base = self.text_span()[0]
        detached._data = None  # type: ignore[assignment]
        return detached

    def text_is_detached(self) -> bool:
        return self._data is None

    def fetch_text_with(self, read: Callable[[int, int], bytes]) -> None:
        """Give detached messages a way to their text: `read(start, end)`, called each time they are iterated
        (so that a process building parts one after the other holds one part's text at a time)."""
        self._fetch_text = read

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with only the stretch of text its lines need (another process builds it), or none if detached."""
        start, end = self.text_span()
        text = None if self._data is None else pickle.PickleBuffer(
            memoryview(self._data)[start - self._base:end - self._base])
        return {"_data": text, "_base": start, "_steps": self._steps, "_text_is_checked": self._text_is_checked}

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state["_data"] is not None:
            state["_data"] = bytes(state["_data"])  # already bytes from protocol 5; a copy only from older ones
        self.__dict__.update(state, _fetch_text=_no_text, _cuts={})

    def _keep_only_context_lines(self) -> None:
        """Before messages are built in bulk, keep only the stretch of the file holding the context's lines when
        that is much less than the file (after a compaction, often half): once the session is dropped, the rest
        of the file's bytes go before the messages take their place."""
        if self._base or self._shares_text:
            return
        start, end = self.text_span()
        if end > start and 4 * (end - start) < 3 * len(self._data):
            self._data = self._data[start:end]
            self._base = start

    def json_items(self) -> Iterator[Any]:
        """The same messages for writing: a message line's message as its own JSON text (RawMessage), unparsed."""
        if not self._text_is_checked:
            yield from self
            return
        view = memoryview(self._data)
        for step in self._steps:
            if type(step) is not tuple:
                yield from step if type(step) is list else entry_to_messages(step)
                continue
            yield RawMessage(step[2], message_text(view[step[0] - self._base:step[1] - self._base]))
