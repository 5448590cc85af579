"""Rules of Gemini's generateContent (Google AI Studio and Vertex AI; their messages differ in wording, and each
hit says it the way the request's own API would)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any

from pi_tools.providers.google_generative_ai.payload import gemini_major_version
from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.scans import Rows, Summary, firsts, item_scan, scanned
from pi_tools.providers.rulebook.view import RequestView, blocks

API = ("google-generative-ai", "google-vertex")


def _function_calls(item: Any) -> list[int]:
    return [j for j, part in enumerate(blocks(item, "parts")) if isinstance(part, dict) and "functionCall" in part]


def _unsupported(media: Any) -> bool:
    """An image media type Gemini refuses (rule google-image-media-type)."""
    return isinstance(media, str) and media.startswith("image/") and media not in IMAGE_TYPES


def _last_refused_image(scan: Summary) -> int | None:
    """The last item of a part with an image Gemini refuses (scans.item_scan's `finds`)."""
    return max((row[0] for row in scan["images"] if _unsupported(row[2])), default=None)


def _prune(scan: Summary, count: int) -> Summary:
    """The rows of a part (of `count` items) that the rules below can act on when the request is the whole
    payload (scans.item_scan's `prune`). A function call turn at i is left out, with the response turn after it,
    when every rule passes it within the part: i + 1 in the part answers it with as many responses
    (google-function-response-count, which reads the call for that response too), the content before it is in
    the part and is not the model's (google-function-call-turn), and its first call is signed or is not the
    first unsigned one after the part's last turn start (google-thought-signature reads only that one). A model
    content is kept where a kept call follows it or the part ends with it (a call of the next part may follow);
    of the turn starts, the part's last."""
    calls, responses = scan["calls"], scan["responses"]
    if not calls:
        return {**scan, "turn_starts": scan["turn_starts"][-1:]}
    turn_starts = scan["turn_starts"]
    last_start = turn_starts[-1][0] if turn_starts else -1
    needed_unsigned = next((row[0] for row in calls if not row[3] and row[0] > last_start), None)
    answers = {row[0]: row[2] for row in responses}
    models = {row[0] for row in scan["models"]}
    dropped = {i for i, _, n, _ in calls
               if i + 1 < count and answers.get(i + 1) == n and i > 0 and i - 1 not in models
               and i != needed_unsigned}
    if not dropped:
        return {**scan, "turn_starts": turn_starts[-1:]}
    kept_calls = [row for row in calls if row[0] not in dropped]
    after_kept = {row[0] - 1 for row in kept_calls}
    return {**scan, "calls": kept_calls, "responses": [row for row in responses if row[0] - 1 not in dropped],
            "models": [row for row in scan["models"] if row[0] in after_kept or row[0] == count - 1],
            "turn_starts": turn_starts[-1:]}


@item_scan("google", API, finds=_last_refused_image, prune=_prune)
def _scan_items(items: Sequence[Any]) -> Summary:
    """The facts the rules below read of each content, in one pass (rows, see scans.py): model contents with
    function calls (item, first call's part, calls, whether the first call is signed); other contents with
    function responses (item, first response's part, responses); model contents (item); turn starts (item);
    inline images (item, path below the item, mimeType, decoded bytes).

    It runs over every content of the payload (75,780 in the 100 MB benchmark session, in whichever process
    built each part), so a part is asked only what its content's role can make it: a key test per part, and the
    image lookups only for a part that holds `inlineData` or a function response with `parts`
    (tests/preflight/test_preflight_google_scan.py holds it to the plain one-pass reading it replaced)."""
    calls: Rows = []
    responses: Rows = []
    models: Rows = []
    turn_starts: Rows = []
    images: Rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue  # no parts, not the model's, no turn start
        parts = item.get("parts")
        if not isinstance(parts, list):
            parts = []
        if item.get("role") == "model":
            models.append((i,))
            first, found = -1, 0
            for j, part in enumerate(parts):
                if isinstance(part, dict):
                    if "functionCall" in part:
                        if not found:
                            first = j
                        found += 1
                    if "inlineData" in part or "functionResponse" in part:
                        _part_images(i, j, part, images)
            if found:
                calls.append((i, first, found, bool(parts[first].get("thoughtSignature"))))
            continue
        first, found, other = -1, 0, not parts  # not only function responses: what starts a turn
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                other = True
            elif "functionResponse" in part:
                if not found:
                    first = j
                found += 1
                response = part["functionResponse"]
                if "inlineData" in part or (isinstance(response, dict) and "parts" in response):
                    _part_images(i, j, part, images)
            else:
                other = True
                if "inlineData" in part:
                    _part_images(i, j, part, images)
        if found:
            responses.append((i, first, found))
        if other:
            turn_starts.append((i,))
    return {"calls": calls, "responses": responses, "models": models, "turn_starts": turn_starts, "images": images}


def _part_images(i: int, j: int, part: dict[str, Any], images: Rows) -> None:
    """The image rows of part j of content i: its own inline data, and a function response's inner images."""
    inline = part.get("inlineData")
    if isinstance(inline, dict):
        images.append((i, ("parts", j), inline.get("mimeType"), _decoded_size(inline.get("data"))))
    response = part.get("functionResponse")
    if isinstance(response, dict) and (inner_parts := response.get("parts")):  # images of a tool result
        for k, inner in enumerate(inner_parts if isinstance(inner_parts, list) else ()):
            if isinstance(inner, dict):
                inline = inner.get("inlineData")
                if isinstance(inline, dict):
                    images.append((i, ("parts", j, "functionResponse", "parts", k), inline.get("mimeType"),
                                   _decoded_size(inline.get("data"))))


def _decoded_size(data: Any) -> int:
    return len(data) * 3 // 4 if isinstance(data, str) else 0


def _rows(view: RequestView, kind: str) -> dict[int, tuple[Any, ...]]:
    """The scan's rows of one kind by item."""
    return view.cached(f"google.{kind}", lambda: {row[0]: row for row in scanned(view, "google")[kind]})


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
    count = len(view.items)
    calls, responses = _rows(view, "calls"), _rows(view, "responses")  # responses: of contents not the model's
    for i in sorted({*calls, *responses}):
        call = calls.get(i)
        if call is not None:
            following = responses.get(i + 1)
            answered = following[2] if following is not None else 0
            if i + 1 < count and answered != call[2]:
                yield Hit("google-function-response-count", view.path(i, "parts", call[1]),
                          "Please ensure that the number of function response parts is equal to the number of "
                          f"function call parts of the function call turn ({call[2]} call(s) in contents[{i}], "
                          f"{answered} response(s) in contents[{i + 1}]).", needs=i + 1)
        elif i - 1 not in calls:
            yield Hit("google-function-response-count", view.path(i, "parts", responses[i][1]),
                      "Please ensure that function response turn comes immediately after a function call turn.")


def _signature_index(view: RequestView) -> tuple[list[int], list[int]]:
    """(turn starts, model steps whose first function call is unsigned), as item indices in order."""
    def build() -> tuple[list[int], list[int]]:
        scan = scanned(view, "google")
        return firsts(scan["turn_starts"]), [row[0] for row in scan["calls"] if not row[3]]
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
    turn_starts, unsigned = _signature_index(view)
    before = bisect_left(turn_starts, end)
    start = turn_starts[before - 1] + 1 if before else 0  # the current turn: after the last turn start
    at = bisect_left(unsigned, start)
    first = unsigned[at] if at < len(unsigned) else len(view.items)
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


IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
VERTEX_INLINE_BYTES = 7 * 1024 * 1024


def _max_images(model: dict[str, Any]) -> int:
    """Images per prompt as Vertex documents them: 900 for the Gemini 3 Pro previews, 3,000 for the others."""
    model_id = str(model.get("id", ""))
    return 900 if (gemini_major_version(model_id) or 0) >= 3 and "-pro" in model_id else 3000


def _inline_images(view: RequestView) -> list[tuple[int, str, Any, int]]:
    """Every inline image part (also inside function responses): (item, path, mimeType, decoded bytes)."""
    return view.cached("google.images", lambda: [(i, view.path(i, *rest), media, size)
                                                 for i, rest, media, size in scanned(view, "google")["images"]])


@rule("google-image-media-type", "error", "An inline image of a type Gemini does not take", API, "items",
      "Unsupported MIME type: image/svg+xml / GenerateContentRequest.contents[N].parts[M].inline_data.mime_type: MIME "
      "type must be image/png, image/jpeg, image/webp, image/heic, or image/heif.",
      "google-gemini/gemini-cli#3054, ogkalu2/comic-translate#399, Mai-with-u/MaiBot#1435 (image/gif on "
      "gemini-2.5-flash; recorded 400 INVALID_ARGUMENT), EvanZhouDev/gemini-ai#3; "
      "https://ai.google.dev/gemini-api/docs/image-understanding (supported formats; microsoft/vscode#286628 cites "
      "it for GIF)",
      "Convert the image to PNG or JPEG in the entry, or drop it.",
      """Gemini takes PNG, JPEG, WebP, HEIC and HEIF images, not GIF. Pi sends an image with the media type it was
      stored with, so a GIF, a BMP, a TIFF, an SVG or a non-standard name such as image/jpg is refused (BMP without a useful
      message: "Request contains an invalid argument.", google-gemini/gemini-cli#14838).""")
def image_media_type(view: RequestView) -> Iterator[Hit]:
    for _, path, media, _ in _inline_images(view):
        if _unsupported(media):
            yield Hit("google-image-media-type", path, f"Unsupported MIME type: {media}")


@rule("google-image-count", "error", "More images in one request than the model takes", API, "request",
      "Unable to submit request because it has N image files but the model only supports up to M.",
      "Vertex's wording for media counts, recorded for video files in google-gemini/gemini-cli#27724; limits from "
      "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/multimodal/image-understanding (maximum images "
      "per prompt: 900 for Gemini 3 Pro Preview, 3,000 for Gemini 2.5)",
      "Compact the session (older screenshots go into the summary) or drop images from old entries.",
      """Every image still in the context counts, inline images inside function responses too. The limit is the
      documented one per model: 900 images for the Gemini 3 Pro previews, 3,000 for the others.""")
def image_count(view: RequestView) -> Iterator[Hit]:
    images = [image for image in _inline_images(view) if image[0] < view.end]
    limit = _max_images(view.model)
    if len(images) > limit:
        yield Hit("google-image-count", images[limit][1],
                  f"Unable to submit request because it has {len(images)} image files but the model only supports "
                  f"up to {limit}.")


@rule("google-image-size", "error", "An inline image over Vertex's 7 MB per file", ("google-vertex",), "items",
      "The file size of X is N, which exceeds max allowed file size of M for `image/png` files.",
      "googleapis/js-genai#1391 (recorded Vertex 400 for a file over its limit); "
      "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/multimodal/image-understanding (\"maximum file "
      "size per file for inline data: 7 MB\")",
      "Shrink or drop the image in the entry.",
      """Vertex takes inline images of at most 7 MB each (decoded bytes). On the Gemini API the limit is the
      whole request's 20 MB (rule request-size).""")
def image_size(view: RequestView) -> Iterator[Hit]:
    for _, path, media, size in _inline_images(view):
        if size > VERTEX_INLINE_BYTES:
            yield Hit("google-image-size", path,
                      f"The file size of the inline {media} image is about {size}, which exceeds max allowed file "
                      f"size of {VERTEX_INLINE_BYTES}.")


@rule("google-function-call-turn", "error", "A function call turn that does not follow a user or function response turn",
      API, "items",
      "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
      "google-gemini/gemini-cli#11814 (a history that starts with a function call), continuedev/continue#11164 "
      "(recorded 400 INVALID_ARGUMENT)",
      "Branch from an entry before the stray message (--leaf); a message stored between calls and their results "
      "is moved after them by `pi-tools repair --relink`.",
      """A model content with functionCall parts must come right after a user content (text or function
      responses): not first in the contents, and not after another model content. Gemini otherwise accepts
      consecutive contents of one role (the recorded Vertex requests of fixtures/realworld/marcpadz dexter-v3
      hold user contents in a row and were answered), so no general alternation rule is checked.""")
def function_call_turn(view: RequestView) -> Iterator[Hit]:
    models = view.cached("google.model_set", lambda: set(firsts(scanned(view, "google")["models"])))
    for i, call in _rows(view, "calls").items():
        if i == 0 or i - 1 in models:
            yield Hit("google-function-call-turn", view.path(i, "parts", call[1]),
                      "Please ensure that function call turn comes immediately after a user turn or after a "
                      f"function response turn (contents[{i}] follows "
                      f"{'nothing' if i == 0 else f'the model content contents[{i - 1}]'}).")
