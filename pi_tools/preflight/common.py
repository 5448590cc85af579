"""Rules every API shares: the context window and the request size."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate

import orjson

from pi_tools.preflight.rules import ALL_APIS, Hit, rule
from pi_tools.providers.registry import adapter, builds
from pi_tools.providers.rulebook.view import RequestView
from pi_tools.providers.table import api_names

LIMITED_APIS = tuple(api for api in api_names() if builds(api) and adapter(api).request_limit is not None)
"""The APIs whose adapters name a documented request-body limit (Anthropic 32 MB, 413 request_too_large; Gemini
inline requests 20 MB)."""


@rule("context-window", "error", "Pi's estimate of the input is over the model's context window", ALL_APIS, "request",
      "prompt is too long: N tokens > M maximum (Anthropic) / This model's maximum context length is M tokens. "
      "However, your messages resulted in N tokens. (OpenAI) / The input token count (N) exceeds the maximum number "
      "of tokens allowed (M). (Gemini)",
      "metadist/synaplan#1238 (Anthropic, recorded); OpenAI and Gemini error texts from their API references",
      "Compact the session (/compact in Pi) or branch from an earlier entry with --leaf; a model with a larger "
      "contextWindow also helps.",
      """Pi estimates the input as the last reported usage plus chars/4 of everything after it (the same estimate
      it uses for max_tokens and auto-compaction). Over the model's contextWindow Pi itself has no room left for
      output (it clamps max_tokens to 1) and the provider refuses the input: an error, and the cause named in
      place of its symptoms (anthropic-thinking-budget's max_tokens finding is left out then).""")
def context_window(view: RequestView) -> Iterator[Hit]:
    window = view.model.get("contextWindow")
    if isinstance(window, (int, float)) and window > 0 and isinstance(view.estimate, int) and view.estimate > window:
        yield Hit("context-window", view.key,
                  f"prompt is too long: about {view.estimate} tokens (Pi's estimate) > {int(window)} maximum "
                  f"({view.model.get('provider')}/{view.model.get('id')})")


def _sizes(view: RequestView) -> list[int]:
    """Bytes of the payload without its items, then the running total with each item (commas included)."""
    def build() -> list[int]:
        items = view.items
        rest = len(orjson.dumps({k: v for k, v in view.payload.items() if k != view.key}))
        return list(accumulate((len(orjson.dumps(item)) + 1 for item in items), initial=rest + len(view.key) + 4))
    return view.cached("common.sizes", build)


@rule("request-size", "error", "A request body over the API's size limit", LIMITED_APIS, "request",
      "413 request_too_large: Request exceeds the maximum allowed number of bytes. (Anthropic, 32 MB) / Request "
      "payload size exceeds the limit: 20971520 bytes. (Gemini)",
      "https://docs.claude.com/en/api/errors (request size limits); https://ai.google.dev/gemini-api/docs/files",
      "Drop large images or tool outputs from old entries, or compact the session.",
      """The JSON body Pi sends is measured as it would be serialised.""")
def request_size(view: RequestView) -> Iterator[Hit]:
    limit = adapter(view.api).request_limit
    if limit is None:
        return
    try:
        # One request (the whole payload): one serialisation in C; a replay run needs every prefix's size.
        if view.size is not None and view.end == len(view.items):
            size = view.size  # a compact view (parts.py): its strings are stand-ins, the JSON text's size is known
        elif view.end == len(view.items) and "common.sizes" not in view.memo:
            size = len(orjson.dumps(view.payload))
        else:
            size = _sizes(view)[view.end]
    except (TypeError, orjson.JSONEncodeError):
        return
    if size > limit:
        yield Hit("request-size", view.key, f"Request exceeds the maximum allowed number of bytes: about {size} bytes "
                  f"> {limit}")


@rule("replay-truncated-path", "info", "The session lost the entries before this request's context", ALL_APIS,
      "request", "(none: a note of --replay)", "pi-tools audit (rules malformed-line, dangling-parent)",
      "`pi-tools repair` keeps the damaged line aside; restore the lost entry by hand to rebuild the original request.",
      """Added by --replay to every request of a path whose first entry names a parent that is not in the file
      (a damaged line lost it). Pi 0.85 builds the request from what is left, so its verdict may differ from the
      one the provider gave to the request the session really made, which held the lost history.""")
def replay_truncated_path(view: RequestView) -> Iterator[Hit]:
    return iter(())


@rule("replay-model-not-in-catalog", "info", "A request made with a model Pi 0.85's catalog does not have",
      ALL_APIS, "request", "(none: a note of --replay)", "pi-ai 0.85.1 model catalog (pi-tools models)",
      "Nothing to fix; pass --model with a catalog model to check the next request for a known model.",
      """Added by --replay to every request whose recorded provider/model is not in the catalog, or is there with
      another API than the one recorded. The request is built for the recorded API with that API's
      representative model, renamed, and checked with the API's rules; its context window is unknown, so the
      context-window rule stays silent.""")
def replay_model_not_in_catalog(view: RequestView) -> Iterator[Hit]:
    return iter(())
