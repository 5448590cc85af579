"""Preflight findings for every conformance case and each of its 11 model variants (with and without the
requested reasoning level), against the golden tests/data/preflight/conformance.json
(recorded by scripts/record_preflight_conformance.py; review its diff by hand when a rule changes).

The generated sessions are not all ones a provider accepts. Each class of finding in the golden, checked by hand
against the provider's documentation:

- `bedrock-alternation` (bedrock-converse-stream, 212): Pi's Converse encoder sends a user message and the user
  message a custom/bash/summary entry converts to as two consecutive `user` messages (e.g. c002 messages[6..7]).
  Converse refuses that with "A conversation must alternate between user and assistant roles" (the
  ValidationException quoted in langchain-ai/langchain-aws#130 and Portkey-AI/gateway#748; Anthropic's own API
  merges consecutive turns, Bedrock does not). Correct.
- `google-thought-signature` (gemini-3-flash-preview, 42): the current turn (after the last user text) holds
  function calls of assistant messages another model produced; Pi replays thought signatures only to the model
  that made them, and Gemini 3 requires the first function call of every step of the current turn to carry one
  (ai.google.dev thought-signatures: "missing signatures in the current turn result in a 400"). Correct; the
  2.5 models do not validate them, and they have no finding.
- `google-function-response-count` (google-generative-ai, 12): e.g. c016 contents[6] has 4 function calls but the
  next content carries 2 responses: Pi puts a tool result's image in a user content of its own ("Tool result
  image:") between the responses for models without multimodal function responses, which splits the function
  response turn. Gemini: "Please ensure that the number of function response parts is equal to the number of
  function call parts of the function call turn." Correct.
- `anthropic-image-media-type` (anthropic-messages, 4): edge_images_mimes sends image/bmp and image/tiff; Anthropic
  takes only JPEG, PNG, GIF and WebP (docs.claude.com vision, "Supported formats"). Correct.
- `google-image-media-type` (google-generative-ai, 24): edge_images_mimes sends an image/gif (contents[0].parts[1])
  and an image/bmp (contents[5].parts[1], contents[4] for gemini-3-flash-preview, whose layout differs), c010 an
  image/gif (contents[0].parts[1]); Pi passes the stored mimeType through as inlineData.mimeType. Gemini takes
  only PNG, JPEG, WebP, HEIC and HEIF (ai.google.dev image-understanding "Supported image formats"; a GIF sent to
  gemini-2.5-flash is answered "Unsupported MIME type: image/gif", Mai-with-u/MaiBot#1435; an SVG
  "Unsupported MIME type: image/svg+xml", google-gemini/gemini-cli#3054). Correct, for both models and with
  or without reasoning (the image does not depend on it).
- `openai-image-media-type` (openai-responses, 2): edge_images_mimes' image/bmp as an input_image data URL at
  input[6].content[1] for gpt-5.1 (the GIF and WebP ones are accepted formats). OpenAI takes PNG, JPEG, WebP and
  non-animated GIF (platform.openai.com images-vision "Image input requirements") and answers anything else with
  invalid_image_format "You uploaded an unsupported image. Please make sure your image has of one the following
  formats: ['png', 'jpeg', 'gif', 'webp']." (STranslate/STranslate#277). Correct. The openai-completions
  variants (DeepSeek, OpenRouter's Claude) are not OpenAI models and are not checked by this rule.
- `error` rows: Pi 0.85 itself cannot build the request (Bedrock "Unknown image type: image/bmp"; a Responses
  thinking signature that is not JSON); preflight reports Pi's own failure and checks nothing.

Nothing is reported for the other APIs on these cases: Pi answers orphaned calls with synthetic results, drops
blank text and rewrites foreign ids into each API's pattern, so the pairing, text and id rules stay silent.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "preflight" / "conformance.json"


def _recorder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("record_preflight_conformance",
                                                  ROOT / "scripts" / "record_preflight_conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_conformance_findings_match_the_golden() -> None:
    golden = json.loads(GOLDEN.read_text())
    fresh = json.loads(json.dumps(_recorder().record()))
    assert sorted(fresh) == sorted(golden)
    for case in golden:
        assert fresh[case] == golden[case], case
    variants = {key.split("+")[0] for case in golden.values() for key in case}
    assert len(variants) == 11


def test_golden_classes_are_the_commented_ones() -> None:
    golden = json.loads(GOLDEN.read_text())
    classes = {(finding[0], key.split("@")[0].split("+")[0]) for case in golden.values()
               for key, findings in case.items() for finding in findings}
    assert classes == {("bedrock-alternation", "bedrock-converse-stream"),
                       ("google-thought-signature", "google-generative-ai"),
                       ("google-function-response-count", "google-generative-ai"),
                       ("anthropic-image-media-type", "anthropic-messages"),
                       ("google-image-media-type", "google-generative-ai"),
                       ("openai-image-media-type", "openai-responses"),
                       ("error", "bedrock-converse-stream"), ("error", "openai-responses")}
