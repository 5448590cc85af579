"""Rebuilding the reference's payload expectations (goldens, oracle documents, recorded cases) the same way.

Every ``test_payload_<api>.py`` turns a reference document into a model, context and options, builds the
payload and the HTTP request, and compares them with what Pi produced, leaving out the headers that only say
which machine and SDK version ran. Those steps live here once, so that the API files keep only what differs
per API: which builders, which telemetry, how strictly key order is checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers.catalog import Model, find_model
from pi_tools.providers.errors import PayloadError

from support.golden import (
    REALWORLD,
    canonical_sha,
    expected,
    payload_entries,
    realworld_digest,
    realworld_names,
)

VARIANTS = ("payloads", "payloadsReasoning")
# Headers that name the machine, the runtime or the SDK build, and the per-request ids the oracle masked.
TELEMETRY_NAMES = frozenset({"user-agent", "x-amz-user-agent", "x-goog-api-client"})
TELEMETRY_PREFIXES = ("x-stainless-", "amz-sdk-")
VOLATILE = "<volatile>"

Built = TypeVar("Built")


# ------------------------------------------------------------------------------------------------------------
# Reference documents


def json_loader(folder: Path) -> Callable[[str], Any]:
    """A cached reader of the JSON files in ``folder`` (stdlib parser, so lone surrogates survive)."""

    @cache
    def load(name: str) -> Any:
        with open(folder / name, encoding="utf-8") as fh:
            return json.load(fh)

    return load


def doc_entries(names: list[str], load: Callable[[str], Any]) -> list[tuple[str, str, str]]:
    """(document, variant, key) of every payload entry in the named reference documents."""
    return [
        (name, variant, key)
        for name in names
        for variant in VARIANTS
        for key in load(name).get(variant) or {}
    ]


def recording_loader(folder: Path) -> Callable[[str], dict[str, Any]]:
    """A cached reader of the oracle recordings in ``folder``; one made on a golden's session (``source``)
    gets that golden's inputs and messages, which it does not repeat."""
    load = json_loader(folder)

    def recording(name: str) -> dict[str, Any]:
        doc: dict[str, Any] = load(name)
        if "llm" not in doc:
            golden = expected(Path(doc["source"]).stem)
            doc["inputs"], doc["llm"] = golden["inputs"], golden["llm"]
        return doc

    return recording


def recording_params(folder: Path, recording: Callable[[str], dict[str, Any]]) -> list[Any]:
    """(file, variant, key) of every entry of the ``*.models.json`` recordings, id ``stem-variant-key``."""
    return [
        pytest.param(path.name, variant, key, id=f"{path.stem}-{variant}-{key}")
        for path in sorted(folder.glob("*.models.json"))
        for variant in VARIANTS
        for key in recording(path.name)[variant]
    ]


def golden_params(api: str, known_differences: dict[tuple[str, str, str], str] | None = None) -> list[Any]:
    """(case, variant, key) of the conformance goldens of ``api``, id ``case-variant-key``; those listed in
    ``known_differences`` (-> why) are strict xfails."""
    params = []
    for case, variant, key, _entry in payload_entries(api):
        reason = (known_differences or {}).get((case, variant, key))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(case, variant, key, id=f"{case}-{variant}-{key}", marks=marks))
    return params


# ------------------------------------------------------------------------------------------------------------
# Inputs


def golden_context(doc: dict[str, Any]) -> dict[str, Any]:
    """The context Pi handed the provider: the document's system prompt and tools around its ``llm``."""
    inputs = doc["inputs"]
    return {"systemPrompt": inputs["systemPrompt"], "messages": doc["llm"], "tools": inputs["tools"]}


def golden_options(doc: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """The document's stream options, with the entry's thinking level when it ran with one."""
    options = dict(doc["inputs"]["streamOptions"])
    if entry["reasoning"] is not None:
        options["reasoning"] = entry["reasoning"]
    return options


def synthetic_model(case: dict[str, Any]) -> Model:
    """The catalog model of a recorded ``streamSimple`` case, with the overrides that case ran with."""
    model = find_model(case["model"])
    model.update(case.get("modelOverrides") or {})
    return model


# ------------------------------------------------------------------------------------------------------------
# Comparisons


def build_unless_reference_failed(
    reference: dict[str, Any],
    build: Callable[..., Built],
    *args: Any,
    error_key: str = "error",
    **kwargs: Any,
) -> Built | None:
    """``build(*args, **kwargs)``; where the reference failed (``reference[error_key]``), check that building
    fails with the same text instead and return None."""
    if error_key in reference:
        with pytest.raises(PayloadError) as raised:
            build(*args, **kwargs)
        assert str(raised.value) == reference[error_key]
        return None
    return build(*args, **kwargs)


def assert_same_json(actual: Any, reference: Any) -> None:
    """Equal values and equal key order (as JSON.stringify would write both)."""
    assert actual == reference
    assert js_stringify(actual) == js_stringify(reference)


def assert_same_top_level_order(actual: dict[str, Any], reference: dict[str, Any]) -> None:
    """Equal values, and the members of the outer object in the reference's order."""
    assert actual == reference
    assert list(actual) == list(reference)


def comparable_headers(
    headers: dict[str, str],
    names: Collection[str] = TELEMETRY_NAMES,
    prefixes: tuple[str, ...] = TELEMETRY_PREFIXES,
) -> dict[str, str]:
    """The headers without telemetry (``names`` and ``prefixes``) and without values the oracle masked."""
    return {
        name: value
        for name, value in headers.items()
        if value != VOLATILE and name not in names and not name.startswith(prefixes)
    }


def assert_request_line(
    wire: dict[str, Any],
    reference: dict[str, Any],
    names: Collection[str] = TELEMETRY_NAMES,
    prefixes: tuple[str, ...] = TELEMETRY_PREFIXES,
) -> None:
    """Method, URL and every header but telemetry equal the request the reference's SDK sent."""
    assert wire["method"] == reference["method"]
    assert wire["url"] == reference["url"]
    assert comparable_headers(wire["headers"], names, prefixes) == comparable_headers(
        reference["headers"], names, prefixes
    )


# ------------------------------------------------------------------------------------------------------------
# Real public sessions: the reference's payload digests (fixtures/realworld/expected)


def realworld_params(api: str) -> Iterator[Any]:
    """(session, variant, key) of every digest entry of ``api``, id ``session-variant-key``."""
    for name in realworld_names():
        digest = realworld_digest(name)
        for variant in VARIANTS:
            for key in digest.get(variant) or {}:
                if key == api or key.startswith(api + "@"):
                    yield pytest.param(name, variant, key, id=f"{name}-{variant}-{key}")


@cache
def realworld_llm(name: str) -> list[Any]:
    """The LLM messages this implementation builds for a real session, as JSON (what the digests hash)."""
    from pi_tools.messages import convert_to_llm
    from pi_tools.session import build_session_context, load_session

    context = build_session_context(load_session(str(REALWORLD / f"{name}.jsonl")))
    llm: list[Any] = json.loads(js_stringify(convert_to_llm(context.messages)))
    return llm


def assert_realworld_digest(
    name: str,
    variant: str,
    key: str,
    build_payload: Callable[[Model, dict[str, Any], dict[str, Any]], dict[str, Any]],
    build_wire: Callable[[Model, dict[str, Any], dict[str, Any]], dict[str, Any]],
    options_for: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = golden_options,
) -> None:
    """Payload, URL and body of a real session hash to the reference's digest (or fail where it failed)."""
    digest = realworld_digest(name)
    entry = digest[variant][key]
    llm = realworld_llm(name)
    # The input must be the reference's, or the comparison means nothing.
    assert canonical_sha(llm) == digest["llm"]
    doc = {"inputs": digest["inputs"], "llm": llm}
    model = find_model(entry["model"])
    if "error" in entry:
        with pytest.raises(PayloadError):
            build_payload(model, golden_context(doc), options_for(doc, entry))
        return
    payload = build_payload(model, golden_context(doc), options_for(doc, entry))
    assert canonical_sha(json.loads(js_stringify(payload))) == entry["payload"]
    wire = build_wire(model, payload, options_for(doc, entry))
    assert wire["url"] == entry["wire"]["url"]
    assert canonical_sha(json.loads(js_stringify(wire["body"]))) == entry["wire"]["body"]
