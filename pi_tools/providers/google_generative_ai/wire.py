"""The HTTP request @google/genai 1.52 sends for a pi-ai Gemini payload.

The SDK does not post the ``{model, contents, config}`` object: it moves the model into the URL, lifts
``systemInstruction``/``tools``/``toolConfig`` out of ``config`` and sends the rest as ``generationConfig``,
rebuilding every object in its own field order and dropping ``null``/absent fields. The Gemini API ("mldev")
and Vertex AI converters differ in a few places (field renames, fields one of them rejects), so the converter
tables below are parameterised by a ``Dialect``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError

SDK_LABEL = "google-genai-sdk/1.52.0 gl-node/v<node-version>"
# pi-ai's own user agent; the machine-dependent parts stay placeholders, as in the conformance goldens.
PI_USER_AGENT = "pi (<platform> <os-release>; <arch>)"
GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
GEMINI_DEFAULT_API_VERSION = "v1beta"
STREAM_PATH = "{model}:streamGenerateContent?alt=sse"
VERTEX_NAME = "Gemini Enterprise Agent Platform (previously known as Vertex AI)"

Converter = Callable[[Any], Any]
GEMINI_API_NAME = "Gemini API"


def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Field:
    """One field of an SDK converter: copied (through ``convert``) when not null, or rejected when present."""

    name: str
    convert: Converter = _same
    target: str | None = None  # renamed on the wire
    rejected: bool = False


class Shape:
    """One SDK converter (``xxxToMldev`` / ``xxxToVertex``): output keys follow its field order, not the input's.

    Fields the converter does not know are dropped, as the SDK does. Positions are precomputed so a part with
    two keys costs two lookups, not a walk over every field the converter knows.
    """

    def __init__(self, api_name: str, *fields: Field, refusal: str = "{name} parameter is not supported in {api}.") -> None:
        self.api_name = api_name
        self.refusal = refusal  # the SDK's words for a field its backend does not take
        self.fields = fields
        self._position = {field.name: index for index, field in enumerate(fields)}

    def __call__(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not isinstance(value, dict):
            return out
        present = [self._position[key] for key in value if key in self._position]
        if len(present) > 1:
            present.sort()
        for index in present:
            field = self.fields[index]
            item = value[field.name]
            if field.rejected:
                raise PayloadError(self.refusal.format(name=field.name, api=self.api_name))
            if item is not None:
                out[field.target or field.name] = field.convert(item)
        return out


def _map_list(convert: Converter) -> Converter:
    return lambda items: [convert(item) for item in items] if isinstance(items, list) else items


def _as_content(value: Any) -> dict[str, Any]:
    """The SDK's ``tContent``: a bare string or part list becomes a user content."""
    if isinstance(value, dict) and isinstance(value.get("parts"), list):
        return value
    if isinstance(value, list):
        if not value:
            raise PayloadError("PartListUnion is required")
        parts = [{"text": item} if isinstance(item, str) else item for item in value]
    else:
        parts = [{"text": value} if isinstance(value, str) else value]
    return {"role": "user", "parts": parts}


def _contents(value: Any) -> list[Any]:
    """The SDK's ``tContents`` for the only shape pi-ai produces (a list of contents)."""
    if isinstance(value, list) and not value:
        raise PayloadError("contents are required")
    if not isinstance(value, list):
        return [_as_content(value)]
    return value


def _speech_config(value: Any) -> Any:
    if isinstance(value, str):
        return {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": value}}}
    return value


@dataclass(frozen=True)
class Dialect:
    """The request converters of one backend (Gemini API or Vertex AI)."""

    api_name: str
    part: Shape
    config: Shape  # → generationConfig
    lifted: Shape  # config fields moved to the top level of the body, in SDK order

    def convert_content(self, content: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if not isinstance(content, dict):
            return out
        parts = content.get("parts")
        if parts is not None:
            out["parts"] = [self.part(p) for p in parts] if isinstance(parts, list) else parts
        role = content.get("role")
        if role is not None:
            out["role"] = role
        return out


def _make_dialect(mldev: bool) -> Dialect:
    """Transcribes the SDK's generateContent request converters for one backend."""
    api_name = GEMINI_API_NAME if mldev else VERTEX_NAME

    def only_mldev(name: str, convert: Converter = _same) -> Field:
        return Field(name, convert) if mldev else Field(name, rejected=True)

    def only_vertex(name: str, convert: Converter = _same, target: str | None = None) -> Field:
        return Field(name, rejected=True) if mldev else Field(name, convert, target)

    def either(name: str, mldev_convert: Converter, vertex_convert: Converter = _same) -> Field:
        return Field(name, mldev_convert if mldev else vertex_convert)

    blob = Shape(api_name, Field("data"), Field("displayName", rejected=True), Field("mimeType"))
    file_data = Shape(api_name, Field("displayName", rejected=True), Field("fileUri"), Field("mimeType"))
    function_call = Shape(
        api_name,
        Field("id"),
        Field("args"),
        Field("name"),
        Field("partialArgs", rejected=True),
        Field("willContinue", rejected=True),
    )
    part = Shape(
        api_name,
        Field("mediaResolution"),
        Field("codeExecutionResult"),
        Field("executableCode"),
        either("fileData", file_data),
        either("functionCall", function_call),
        Field("functionResponse"),
        either("inlineData", blob),
        Field("text"),
        Field("thought"),
        Field("thoughtSignature"),
        Field("videoMetadata"),
        only_mldev("toolCall"),
        only_mldev("toolResponse"),
        only_mldev("partMetadata"),
    )
    function_declaration = Shape(
        api_name,
        Field("description"),
        Field("name"),
        Field("parameters"),
        Field("parametersJsonSchema"),
        Field("response"),
        Field("responseJsonSchema"),
        Field("behavior", rejected=True),
    )
    tool = Shape(
        api_name,
        only_vertex("retrieval"),
        Field("computerUse"),
        only_mldev("fileSearch"),
        Field("googleSearch"),
        Field("googleMaps"),
        Field("codeExecution"),
        only_vertex("enterpriseWebSearch"),
        either("functionDeclarations", _map_list(_same), _map_list(function_declaration)),
        Field("googleSearchRetrieval"),
        only_vertex("parallelAiSearch"),
        Field("urlContext"),
        only_mldev("mcpServers", _map_list(_same)),
    )
    function_calling_config = Shape(
        api_name,
        Field("allowedFunctionNames"),
        Field("mode"),
        Field("streamFunctionCallArguments", rejected=True),
    )
    tool_config = Shape(
        api_name,
        Field("retrievalConfig"),
        either("functionCallingConfig", function_calling_config),
        only_mldev("includeServerSideToolInvocations"),
    )

    def system_instruction(value: Any) -> dict[str, Any]:
        return Dialect(api_name, part, Shape(api_name), Shape(api_name)).convert_content(_as_content(value))

    def tools(value: Any) -> Any:
        if not isinstance(value, list):
            raise PayloadError("tools is required and must be an array of Tools")
        return [tool(item) for item in value]

    lifted = Shape(
        api_name,
        Field("systemInstruction", system_instruction),
        Field("safetySettings", _map_list(_same)),
        Field("tools", tools),
        Field("toolConfig", tool_config),
        only_vertex("labels"),
        Field("cachedContent"),
        only_vertex("modelArmorConfig"),
        Field("serviceTier"),
    )
    generation = Shape(
        api_name,
        Field("temperature"),
        Field("topP"),
        Field("topK"),
        Field("candidateCount"),
        Field("maxOutputTokens"),
        Field("stopSequences"),
        Field("responseLogprobs"),
        Field("logprobs"),
        Field("presencePenalty"),
        Field("frequencyPenalty"),
        Field("seed"),
        Field("responseMimeType"),
        Field("responseSchema"),
        Field("responseJsonSchema"),
        only_vertex("routingConfig"),
        only_vertex("modelSelectionConfig", target="modelConfig"),
        Field("responseModalities"),
        Field("mediaResolution"),
        Field("speechConfig", _speech_config),
        only_vertex("audioTimestamp"),
        Field("thinkingConfig"),
        Field("imageConfig"),
        only_mldev("enableEnhancedCivicAnswers"),
    )
    return Dialect(api_name=api_name, part=part, config=generation, lifted=lifted)


MLDEV = _make_dialect(mldev=True)
VERTEX = _make_dialect(mldev=False)


def build_body(payload: dict[str, Any], dialect: Dialect) -> dict[str, Any]:
    """``generateContentParametersTo{Mldev,Vertex}``: the JSON body, in wire key order."""
    body: dict[str, Any] = {}
    if payload.get("contents") is not None:
        body["contents"] = [dialect.convert_content(c) for c in _contents(payload["contents"])]
    config = payload.get("config")
    if config is not None:
        body.update(dialect.lifted(config))
        body["generationConfig"] = dialect.config(config)
    return body


def model_resource(model_name: Any, vertex: bool) -> str:
    """The SDK's ``tModel``: the model path segment of the request URL."""
    if not model_name or not isinstance(model_name, str):
        raise PayloadError("model is required and must be a string")
    if ".." in model_name or "?" in model_name or "&" in model_name:
        raise PayloadError("invalid model parameter")
    if vertex:
        if model_name.startswith(("publishers/", "projects/", "models/")):
            return model_name
        if "/" in model_name:
            publisher, name = model_name.split("/")[:2]
            return f"publishers/{publisher}/models/{name}"
        return f"publishers/google/models/{model_name}"
    if model_name.startswith(("models/", "tunedModels/")):
        return model_name
    return f"models/{model_name}"


def join_url(base_url: str, api_version: str, *segments: str) -> str:
    """``ApiClient.constructUrl``: base (one trailing slash dropped), version when non-empty, then the path."""
    base = base_url[:-1] if base_url.endswith("/") else base_url
    pieces = [base]
    if api_version:
        pieces.append(api_version)
    pieces.extend(segment for segment in segments if segment)
    return "/".join(pieces)


def merged_headers(model: Model, options: dict[str, Any]) -> dict[str, str]:
    """SDK defaults patched with pi-ai's headers (User-Agent, model and caller headers), lowercased and joined.

    The record merge is case-sensitive (``User-Agent`` replaces the SDK's ``User-Agent``); the later ``Headers``
    object folds names case-insensitively and joins repeats with ``", "``.
    """
    record: dict[str, str] = {
        "User-Agent": SDK_LABEL,
        "x-goog-api-client": SDK_LABEL,
        "Content-Type": "application/json",
    }
    extra: dict[str, Any] = {"User-Agent": PI_USER_AGENT}
    extra.update(model.get("headers") or {})
    extra.update(options.get("headers") or {})
    for key, value in extra.items():
        if value is not None:
            record[key] = value
    headers: dict[str, str] = {}
    for key, value in record.items():
        name = key.lower()
        headers[name] = f"{headers[name]}, {value}" if name in headers else str(value)
    return headers


def finish_headers(headers: dict[str, str]) -> dict[str, str]:
    return dict(sorted(headers.items()))


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The request google-generative-ai's client sends: ``POST {baseUrl}/models/{id}:streamGenerateContent``
    (google-vertex's client, in providers.google_vertex, shares the body and the URL helpers)."""
    options = options or {}
    resource = model_resource(payload.get("model"), vertex=False)
    body = build_body(payload, MLDEV)
    base_url = model.get("baseUrl")
    if base_url:
        url = join_url(base_url, "", STREAM_PATH.format(model=resource))
    else:
        url = join_url(
            GEMINI_DEFAULT_BASE_URL, GEMINI_DEFAULT_API_VERSION, STREAM_PATH.format(model=resource)
        )
    headers = merged_headers(model, options)
    headers["x-goog-api-key"] = "<redacted>"
    return {"method": "POST", "url": url, "headers": finish_headers(headers), "body": body}
