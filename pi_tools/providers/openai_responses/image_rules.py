"""OpenAI's image input limits, the same on Chat Completions and Responses: the media types it decodes, the size
of one image, and how many images (and image bytes) one request may carry. Applied to OpenAI's models (gpt-*,
o1/o3/o4, not the open-weight gpt-oss) on OpenAI's endpoints, Azure's, GitHub Copilot's and OpenRouter's (which
forwards OpenAI's own 400); other OpenAI-compatible providers and models set limits of their own (Groq's gpt-oss
takes 5 images, for instance) that are not documented uniformly.

The rules live in the Responses folder (listed after Responses' own rules) and name the three APIs they apply
to: Chat Completions and Azure's Responses take them from here.

Pi sends an image as a base64 data URL (``data:image/png;base64,...``): an `image_url` part of a user message on
Chat Completions, an `input_image` item in a user message or a function_call_output's output on Responses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from pi_tools.providers.openai_completions.preflight_rules import OPENAI_HOSTED
from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.scans import Rows, Summary, item_scan, scanned
from pi_tools.providers.rulebook.view import RequestView

API = ("openai-completions", "openai-responses", "azure-openai-responses")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
IMAGE_BYTES = 20 * 1024 * 1024
REQUEST_IMAGE_BYTES = 50 * 1024 * 1024
MAX_IMAGES = {"openai-completions": 1500, "openai-responses": 1500, "azure-openai-responses": 50}


OPENAI_MODEL = re.compile(r"(gpt-|o[1-9])")
SERVING_OPENAI = OPENAI_HOSTED | {"azure-openai-responses", "openrouter"}


def _openai(model: dict[str, Any]) -> bool:
    """An OpenAI model served by OpenAI (or a service that passes OpenAI's limits and errors through)."""
    name = str(model.get("id", "")).rsplit("/", 1)[-1]
    return (model.get("provider") in SERVING_OPENAI and OPENAI_MODEL.match(name) is not None
            and "gpt-oss" not in name)


def _data_url(part: Any) -> Any:
    """The data URL of an image part (Chat Completions' image_url object or Responses' input_image string)."""
    if not isinstance(part, dict):
        return None
    if part.get("type") == "image_url":
        inner = part.get("image_url")
        return inner.get("url") if isinstance(inner, dict) else None
    if part.get("type") == "input_image":
        return part.get("image_url")
    return None


@item_scan("openai.images", API)
def _scan_items(items: Sequence[Any]) -> Summary:
    """Every inline image (rows, see scans.py): (item, path below the item, media type, decoded bytes).

    It reads every part of every item of the payload (on Responses, every message, call and output of the
    100 MB benchmark session), so the test for an image part comes first, in the loop itself: only such a part
    is asked for its URL (`_data_url`)."""
    found: Rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        if isinstance(content, list):
            _scan_parts(i, "content", content, found)
        if item.get("type") == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):
                _scan_parts(i, "output", output, found)
    return {"images": found}


_IMAGE_PARTS = ("image_url", "input_image")  # a tuple: a part's type may be any JSON value, a list too


def _scan_parts(i: int, key: str, parts: list[Any], found: Rows) -> None:
    for j, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("type") not in _IMAGE_PARTS:
            continue
        url = _data_url(part)
        if not isinstance(url, str) or not url.startswith("data:"):
            continue
        head, _, data = url.partition(",")
        media = head[5:].split(";", 1)[0]
        size = len(data) * 3 // 4  # decoded bytes, to within the 2 of padding
        found.append((i, (key, j), media, size))


def _images(view: RequestView) -> list[tuple[int, str, str, int]]:
    """Every inline image of the payload: (item, path, media type, decoded bytes), in payload order."""
    return view.cached("openai.images", lambda: [(i, view.path(i, *rest), media, size)
                                                 for i, rest, media, size in scanned(view, "openai.images")["images"]])


@rule("openai-image-media-type", "error", "An image OpenAI does not decode (PNG, JPEG, WebP and GIF only)", API,
      "items",
      "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', "
      "'jpeg', 'gif', 'webp'].",
      "STranslate/STranslate#277 (recorded 400, code invalid_image_format); "
      "https://platform.openai.com/docs/guides/images-vision (image input requirements)",
      "Convert the image to PNG or JPEG in the entry, or drop it (`pi-tools render --block-images` shows Pi's "
      "placeholder in its place).",
      """OpenAI accepts PNG, JPEG, WebP and non-animated GIF images; anything else (BMP, TIFF, SVG, HEIC) is
      refused with invalid_image_format.""",
      applies=_openai)
def image_media_type(view: RequestView) -> Iterator[Hit]:
    for _, path, media, _ in _images(view):
        if media not in IMAGE_TYPES:
            yield Hit("openai-image-media-type", path,
                      "You uploaded an unsupported image. Please make sure your image has of one the following "
                      f"formats: ['png', 'jpeg', 'gif', 'webp']. (got {media!r})")


@rule("openai-image-size", "error", "An image over 20 MB", API, "items",
      "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the "
      "following formats: ['png', 'jpeg', 'gif', 'webp'].",
      "jam3scampbell/ProctorAI#7, CosmosShadow/gptpdf#6 (recorded 400s); "
      "https://platform.openai.com/docs/guides/images-vision (\"up to 20MB per image\")",
      "Shrink or drop the image in the entry.",
      """One image may hold at most 20 MB (measured on the decoded bytes of its data URL).""",
      applies=_openai)
def image_size(view: RequestView) -> Iterator[Hit]:
    for _, path, _, size in _images(view):
        if size > IMAGE_BYTES:
            yield Hit("openai-image-size", path,
                      "You uploaded an unsupported image. Please make sure your image is below 20 MB in size "
                      f"(about {size} bytes > {IMAGE_BYTES}).")


@rule("openai-image-count", "error", "Too many images (or image bytes) in one request", API, "request",
      "Too many images in request: N, maximum allowed: M. (OpenAI) / Exceeded maximum number of images (50) allowed "
      "in the request. (Azure OpenAI)",
      "MME-Benchmarks/Video-MME#20 (recorded OpenAI 400, when the limit was 250); Azure/azure-rest-api-specs#46145 "
      "(recorded Azure 400 at 51 images; it quotes OpenAI's images-vision guide: up to 1,500 images per request); "
      "the guide's image input requirements (\"Up to 50 MB image bytes per request\", and 500 images in an "
      "earlier version)",
      "Compact the session (older screenshots go into the summary) or drop images from old entries.",
      """OpenAI takes at most 1,500 images and 50 MB of image bytes per request (Azure OpenAI: 50 images); every
      image still in the context counts, so a long session of screenshots reaches the limit by itself. OpenAI
      raised the count over time (250, 500, 1,500); the current documented value is used.""",
      applies=_openai)
def image_count(view: RequestView) -> Iterator[Hit]:
    images = [image for image in _images(view) if image[0] < view.end]
    limit = MAX_IMAGES.get(view.api, MAX_IMAGES["openai-responses"])
    if len(images) > limit:
        yield Hit("openai-image-count", images[limit][1],
                  f"Too many images in request: {len(images)}, maximum allowed: {limit}.")
        return
    total = sum(size for *_, size in images)
    if total > REQUEST_IMAGE_BYTES:
        running, over = 0, images[-1]
        for image in images:
            running += image[3]
            if running > REQUEST_IMAGE_BYTES:
                over = image  # the image that takes the request over the limit
                break
        yield Hit("openai-image-count", over[1],
                  f"Too many image bytes in request: about {total} > {REQUEST_IMAGE_BYTES} (50 MB per request).")
