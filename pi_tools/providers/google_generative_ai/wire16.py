"""The HTTP request @google/genai 2.32 (bundled with Pi 1.6) sends for a pi-ai Gemini payload.

The body is built as by the 1.52 SDK (``wire.py``: the model in the URL, ``systemInstruction``/``tools``/
``toolConfig`` lifted out of ``config``, the rest as ``generationConfig``), with 2.32's converter tables: a
function call's fields in the order args, id, name on the Gemini API; Vertex converts function responses
(id, name, parts, response) and passes function declarations through; new fields (``labels`` and ``store`` on the
Gemini API, ``continuationToken``, ``audioTranscriptionConfig``, ...); refusals in new words. ``config`` fields no
converter knows (pi-ai's ``automaticContinuation``) are dropped. The headers are the SDK's, under Pi 1.6's identity
(``providers.identity16``), the model's and the caller's.
"""

from __future__ import annotations

from typing import Any

from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.google_generative_ai.wire import (
    GEMINI_DEFAULT_API_VERSION,
    GEMINI_DEFAULT_BASE_URL,
    STREAM_PATH,
    Converter,
    Dialect,
    Field,
    Shape,
    _as_content,
    _map_list,
    _same,
    _speech_config,
    build_body,
    finish_headers,
    join_url,
    model_resource,
)
from pi_tools.providers.identity16 import identity_headers, merge_headers

SDK_LABEL = "google-genai-sdk/2.32.0 gl-node/v<node-version>"
_REFUSAL = "{name} parameter is only supported in {api}."
_ONLY_VERTEX = "Gemini Enterprise Agent Platform mode, not in Gemini Developer API mode"
_ONLY_MLDEV = "Gemini Developer API mode, not in Gemini Enterprise Agent Platform mode"


def _make_dialect(mldev: bool) -> Dialect:
    """The SDK's generateContent request converters (2.32) for one backend."""
    refused_here = _ONLY_VERTEX if mldev else _ONLY_MLDEV

    def shape(*fields: Field) -> Shape:
        return Shape(refused_here, *fields, refusal=_REFUSAL)

    def only_mldev(name: str, convert: Converter = _same) -> Field:
        return Field(name, convert) if mldev else Field(name, rejected=True)

    def only_vertex(name: str, convert: Converter = _same, target: str | None = None) -> Field:
        return Field(name, rejected=True) if mldev else Field(name, convert, target)

    def either(name: str, mldev_convert: Converter, vertex_convert: Converter = _same) -> Field:
        return Field(name, mldev_convert if mldev else vertex_convert)

    function_call = shape(Field("args"), Field("id"), Field("name"), Field("partialArgs", rejected=True),
                          Field("willContinue", rejected=True))
    response_part = shape(Field("fileData"), Field("inlineData"), Field("mediaProcessing", rejected=True))
    function_response = shape(Field("id"), Field("name"), Field("parts", _map_list(response_part)),
                              Field("response"), Field("scheduling"), Field("willContinue", rejected=True))
    part = shape(
        Field("mediaResolution"),
        only_mldev("toolCall"),
        only_mldev("toolResponse"),
        Field("audioTranscription"),
        Field("codeExecutionResult"),
        Field("executableCode"),
        Field("fileData"),
        either("functionCall", function_call),
        either("functionResponse", _same, function_response),
        Field("inlineData"),
        Field("text"),
        Field("thought"),
        Field("thoughtSignature"),
        Field("videoMetadata"),
        only_mldev("partMetadata"),
        Field("mediaProcessing"),
        Field("speechMetadata"),
    )
    tool = shape(
        only_vertex("retrieval"),
        Field("googleMaps"),
        Field("mcpServers", _map_list(_same)),
        Field("codeExecution"),
        Field("computerUse"),
        only_vertex("enterpriseWebSearch"),
        only_vertex("exaAiSearch"),
        Field("functionDeclarations", _map_list(_same)),
        Field("googleSearch"),
        Field("googleSearchRetrieval"),
        only_vertex("parallelAiSearch"),
        Field("urlContext"),
        only_mldev("fileSearch"),
    )
    function_calling_config = shape(Field("allowedFunctionNames"), Field("mode"),
                                    Field("streamFunctionCallArguments", rejected=True))
    tool_config = shape(
        either("functionCallingConfig", function_calling_config),
        Field("retrievalConfig"),
        only_mldev("includeServerSideToolInvocations"),
    )

    def system_instruction(value: Any) -> dict[str, Any]:
        return Dialect(refused_here, part, shape(), shape()).convert_content(_as_content(value))

    def tools(value: Any) -> Any:
        if not isinstance(value, list):
            raise PayloadError("tools is required and must be an array of Tools")
        return [tool(item) for item in value]

    lifted = shape(
        Field("serviceTier"),
        Field("systemInstruction", system_instruction),
        Field("safetySettings", _map_list(_same)),
        Field("tools", tools),
        Field("toolConfig", tool_config),
        Field("labels"),
        Field("cachedContent"),
        only_vertex("modelArmorConfig"),
        Field("continuationToken"),
        only_vertex("generationOutputConfig", target="outputConfig"),
        only_mldev("store"),
    )
    generation = shape(
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
        Field("audioTranscriptionConfig"),
        Field("imageConfig"),
        only_mldev("enableEnhancedCivicAnswers"),
    )
    return Dialect(api_name=refused_here, part=part, config=generation, lifted=lifted)


MLDEV = _make_dialect(mldev=True)
VERTEX = _make_dialect(mldev=False)


def merged_headers(model: Model, options: dict[str, Any]) -> dict[str, str]:
    """The SDK's default headers under pi-ai's (identity, model, caller: merged case-insensitively first), as
    the SDK's record merge and ``Headers`` object leave them (lowercased, repeats joined)."""
    record: dict[str, str] = {
        "User-Agent": SDK_LABEL,
        "x-goog-api-client": SDK_LABEL,
        "Content-Type": "application/json",
    }
    extra = merge_headers(identity_headers(model, options), model.get("headers"), options.get("headers")) or {}
    for key, value in extra.items():
        record[key] = value
    headers: dict[str, str] = {}
    for key, value in record.items():
        name = key.lower()
        headers[name] = f"{headers[name]}, {value}" if name in headers else str(value)
    return headers


def build_wire(model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The request google-generative-ai's client sends: ``POST {baseUrl}/models/{id}:streamGenerateContent``."""
    options = options or {}
    resource = model_resource(payload.get("model"), vertex=False)
    body = build_body(payload, MLDEV)
    base_url = model.get("baseUrl")
    if base_url:
        url = join_url(base_url, "", STREAM_PATH.format(model=resource))
    else:
        url = join_url(GEMINI_DEFAULT_BASE_URL, GEMINI_DEFAULT_API_VERSION, STREAM_PATH.format(model=resource))
    headers = merged_headers(model, options)
    headers["x-goog-api-key"] = "<redacted>"
    return {"method": "POST", "url": url, "headers": finish_headers(headers), "body": body}
