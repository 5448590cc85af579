"""Transform registry: built-ins plus third-party transforms from the ``pi_tools.transforms`` entry points
and ``--plugin module:function``.

A transform is registered once with its name; the CLI and Python users look it up here instead of knowing
each implementation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pi_tools.transforms import builtin
from pi_tools.transforms.units import tool_call_ids

ENTRY_POINT_GROUP = "pi_tools.transforms"
Transform = Callable[[list[Any]], list[Any]]


class TransformError(Exception):
    """A transform could not be loaded or produced an invalid transcript."""


@dataclass(frozen=True)
class TransformSpec:
    name: str
    factory: Callable[[Any], Transform]
    help: str


BUILTIN_TRANSFORMS: dict[str, TransformSpec] = {
    spec.name: spec
    for spec in (
        TransformSpec("drop-role", builtin.drop_role, "drop messages of a role (with their tool-call partners)"),
        TransformSpec("keep-last", builtin.keep_last, "keep the last N turns (leading summaries stay)"),
        TransformSpec("block-images", builtin.block_images, "replace images as Pi's blockImages setting does"),
        TransformSpec("redact", builtin.redact, "replace regex matches in text, tool arguments and output"),
    )
}


def available_transforms() -> dict[str, TransformSpec]:
    """Built-ins and every installed ``pi_tools.transforms`` entry point (a spec or a plain function)."""
    specs = dict(BUILTIN_TRANSFORMS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        obj = ep.load()
        if isinstance(obj, TransformSpec):
            specs[obj.name] = obj
        elif callable(obj):
            specs[ep.name] = TransformSpec(ep.name, _constant_factory(obj), f"plugin {ep.value}")
        else:
            raise TransformError(f"entry point {ep.name} ({ep.value}) is not a transform")
    return specs


def _constant_factory(function: Transform) -> Callable[[Any], Transform]:
    """A factory for a plain-function plugin, which takes no option value."""

    def factory(_value: Any) -> Transform:
        return function

    return factory


def load_plugin(reference: str) -> Transform:
    """Import `module:function` (a callable taking and returning AgentMessage[])."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise TransformError(f"--plugin expects module:function, got {reference!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TransformError(f"--plugin {reference}: cannot import {module_name}: {exc}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise TransformError(f"--plugin {reference}: {module_name} has no callable {attribute!r}")
    return function  # type: ignore[no-any-return]


def checked(name: str, transform: Transform) -> Transform:
    """Wrap a transform so that a result that is not a valid AgentMessage[] or strands a tool call fails loudly."""

    def apply(messages: list[Any]) -> list[Any]:
        try:
            result = transform(messages)
        except TransformError:
            raise
        except Exception as exc:  # third-party code: report, never a traceback
            raise TransformError(f"transform {name} failed: {type(exc).__name__}: {exc}") from None
        if not isinstance(result, list) or not all(isinstance(m, dict) and "role" in m for m in result):
            raise TransformError(f"transform {name} did not return a list of messages with roles")
        _check_pairs(name, messages, result)
        return result

    return apply


def _check_pairs(name: str, before: list[Any], after: list[Any]) -> None:
    """A call and its result that were both present before must both survive or both go (compared by id, since
    transforms may copy the messages they change)."""
    calls_before, results_before = _call_and_result_ids(before)
    calls_after, results_after = _call_and_result_ids(after)
    paired = calls_before & results_before
    stranded = (paired & calls_after) - results_after | (paired & results_after) - calls_after
    if stranded:
        raise TransformError(
            f"transform {name} separated a tool call from its result (call ids: {', '.join(map(str, sorted(stranded, key=str)))})"
        )


def _call_and_result_ids(messages: list[Any]) -> tuple[set[Any], set[Any]]:
    calls: set[Any] = set()
    results: set[Any] = set()
    for message in messages:
        calls |= tool_call_ids(message)
        if isinstance(message, dict) and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, (str, int)):
                results.add(call_id)
    return calls, results
