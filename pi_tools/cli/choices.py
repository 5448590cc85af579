"""Option values that the parser checks, `--help` lists and the shell completes, computed only when needed.

A value outside them ends the command as the hand-written checks before it did: one `pi-tools: MESSAGE` line on
stderr in the command's own words and exit status 2, no usage lines (tests and scripts read these messages).
The API choices read the API table, and its plug-in rows (entry points, tens of milliseconds) only for a name
that is not built in, so neither `--help` nor a command's start-up pays for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:  # typer 0.2x carries its own copy of click, and options need its parameter types
    from typer._click.shell_completion import CompletionItem
    from typer._click.types import ParamType
except ImportError:  # pragma: no cover - older typer runs on click itself
    from click.shell_completion import CompletionItem  # type: ignore[assignment]
    from click.types import ParamType  # type: ignore[assignment]

from pi_tools.cli.common import fail


def alternatives(values: Sequence[str]) -> str:
    """`a, b or c`, as the messages name the values."""
    return values[0] if len(values) == 1 else f"{', '.join(values[:-1])} or {values[-1]}"


class Choice(ParamType):
    """One of a fixed set of values; `refusal` is the message for any other, a format string over `{flag}`,
    `{value}`, `{choices}` (the values joined by commas) and `{alternatives}` (`a, b or c`)."""

    name = "choice"

    def __init__(self, flag: str, values: Sequence[str], refusal: str) -> None:
        self.flag = flag
        self.values = tuple(values)
        self.refusal = refusal

    def listed(self) -> Sequence[str]:
        """The values `--help` lists."""
        return self.values

    def every(self) -> Sequence[str]:
        """Every value accepted: the refusal names them and the shell completes them."""
        return self.values

    def accepts(self, value: str) -> bool:
        return value in self.values

    def get_metavar(self, param: Any, ctx: Any = None) -> str:
        return f"[{'|'.join(self.listed())}]"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, str) and self.accepts(value):
            return value
        every = self.every()
        message = self.refusal.format(flag=self.flag, value=value, choices=", ".join(every),
                                      alternatives=alternatives(every))
        if ctx is not None and ctx.resilient_parsing:
            self.fail(message, param, ctx)  # shell completion parses half a line: the parser drops the value
        fail(message)

    def shell_complete(self, ctx: Any, param: Any, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(value) for value in self.every() if value.startswith(incomplete)]


class ApiChoice(Choice):
    """An API of the table (pi_tools.providers.table), with `streaming` only those with a stream decoder.

    `--help` lists the built-in APIs; a name that is not built in is looked up among the plug-in rows."""

    def __init__(self, flag: str, refusal: str, *, streaming: bool = False) -> None:
        super().__init__(flag, (), refusal)
        self.streaming = streaming

    def listed(self) -> Sequence[str]:
        from pi_tools.providers.table import BUILTIN_APIS

        return [row.name for row in BUILTIN_APIS if row.streams or not self.streaming]

    def every(self) -> Sequence[str]:
        from pi_tools.providers.table import api_names, find_row

        names = api_names()
        if not self.streaming:
            return names
        return [name for name in names if getattr(find_row(name), "streams", False)]

    def accepts(self, value: str) -> bool:
        return value in self.listed() or value in self.every()


class ChoiceList(Choice):
    """One or several of a fixed set of values, comma-separated (`--by model,day`); `refusal` names the first
    value outside the set."""

    def get_metavar(self, param: Any, ctx: Any = None) -> str:
        return f"[{'|'.join(self.listed())}][,...]"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if not isinstance(value, str):
            return super().convert(value, param, ctx)
        for item in value.split(","):
            if not self.accepts(item.strip()):
                return super().convert(item.strip(), param, ctx)  # refused in the command's words
        return value

    def shell_complete(self, ctx: Any, param: Any, incomplete: str) -> list[CompletionItem]:
        done, _, last = incomplete.rpartition(",")
        prefix = f"{done}," if done else ""
        return [CompletionItem(prefix + value) for value in self.every() if value.startswith(last)]
