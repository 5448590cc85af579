"""Rules of Gemini's generateContent (Google AI Studio and Vertex AI; their messages differ in wording, and each
hit says it the way the request's own API would)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pi_tools.audit.preflight.rules import Hit, rule
from pi_tools.audit.preflight.view import RequestView, blocks
from pi_tools.providers.google_generative_ai.payload import gemini_major_version

API = ("google-generative-ai", "google-vertex")


def _function_calls(item: Any) -> list[int]:
    return [j for j, part in enumerate(blocks(item, "parts")) if isinstance(part, dict) and "functionCall" in part]


def _function_responses(item: Any) -> list[int]:
    return [j for j, part in enumerate(blocks(item, "parts"))
            if isinstance(part, dict) and "functionResponse" in part]


def _is_model(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") == "model"


@rule("google-function-response-count", "error",
      "A function call turn not answered by the same number of function responses right after it", API, "items",
      "Please ensure that the number of function response parts is equal to the number of function call parts of "
      "the function call turn. / Please ensure that function response turn comes immediately after a function call "
      "turn.",
      "google-gemini/gemini-cli#4217, #16415, #5443 (recorded 400 INVALID_ARGUMENT)",
      "Store the missing results right after the call (`pi-tools repair --close-orphans`), or branch from before "
      "the call with --leaf.",
      """The content after a model content with N functionCall parts must carry exactly N functionResponse parts,
      and function responses may only follow a function call turn.""")
def response_count(view: RequestView) -> Iterator[Hit]:
    items = view.items
    for i, item in enumerate(items):
        if _is_model(item):
            calls = _function_calls(item)
            if not calls:
                continue
            following = items[i + 1] if i + 1 < len(items) else None
            answered = len(_function_responses(following)) if not _is_model(following) else 0
            if following is not None and answered != len(calls):
                yield Hit("google-function-response-count", view.path(i, "parts", calls[0]),
                          "Please ensure that the number of function response parts is equal to the number of "
                          f"function call parts of the function call turn ({len(calls)} call(s) in contents[{i}], "
                          f"{answered} response(s) in contents[{i + 1}]).", needs=i + 1)
        elif _function_responses(item):
            previous = items[i - 1] if i > 0 else None
            if not _is_model(previous) or not _function_calls(previous):
                yield Hit("google-function-response-count", view.path(i, "parts", _function_responses(item)[0]),
                          "Please ensure that function response turn comes immediately after a function call turn.")


def _is_turn_start(item: Any) -> bool:
    """A user content that is not only function responses: what starts a new turn for thought signatures."""
    if not isinstance(item, dict) or item.get("role") == "model":
        return False
    parts = blocks(item, "parts")
    return any(not (isinstance(part, dict) and "functionResponse" in part) for part in parts) or not parts


def _signature_index(view: RequestView) -> tuple[list[int], list[int]]:
    """(start of the turn each request end falls in, next unsigned model step from each position)."""
    def build() -> tuple[list[int], list[int]]:
        items = view.items
        starts, start = [], 0
        for i, item in enumerate(items):
            starts.append(start)
            if _is_turn_start(item):
                start = i + 1
        starts.append(start)
        unsigned = [len(items)] * (len(items) + 1)
        for i in range(len(items) - 1, -1, -1):
            unsigned[i] = unsigned[i + 1]
            item = items[i]
            if _is_model(item):
                calls = _function_calls(item)
                if calls and not item["parts"][calls[0]].get("thoughtSignature"):
                    unsigned[i] = i
        return starts, unsigned
    return view.cached("google.signatures", build)


@rule("google-thought-signature", "error", "A Gemini 3 function call of the current turn without its thought signature",
      API, "tail",
      "Unable to submit request because function call `default_api:NAME` in the N. content block is missing a "
      "`thought_signature`. (Vertex) / Function call is missing a thought_signature in functionCall parts. ... "
      "function call `default_api:NAME`, position N. (Gemini API)",
      "recorded 400 in fixtures/realworld/marcpadz__dexter-v3__pi-session.jsonl line 1040; "
      "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures",
      "Finish the turn on the model that started it (switch back with /model), or send a new user message first: "
      "only the current turn's function calls need signatures.",
      """Gemini 3 models require the thought signature they attached to the first function call of every model
      step of the current turn (everything after the last user content that is not only function responses) to
      be sent back. Pi 0.85 replays signatures only to the exact model that produced them, so after a switch in
      the middle of a tool loop, even between two Gemini 3 variants, the current turn's calls go unsigned.""",
      applies=lambda model: (gemini_major_version(str(model.get("id", ""))) or 0) >= 3)
def thought_signature(view: RequestView) -> Iterator[Hit]:
    end = view.end
    if end == 0:
        return
    starts, unsigned = _signature_index(view)
    first = unsigned[starts[end]]
    if first >= end:
        return
    item = view.items[first]
    part = _function_calls(item)[0]
    name = item["parts"][part]["functionCall"].get("name")
    if view.api == "google-vertex":
        message = (f"Unable to submit request because function call `default_api:{name}` in the {first + 1}. content "
                   "block is missing a `thought_signature`.")
    else:
        message = (f"Function call is missing a thought_signature in functionCall parts. Additional data, function "
                   f"call `default_api:{name}`, position {first + 1}.")
    yield Hit("google-thought-signature", view.path(first, "parts", part), message)
