// Synthetic openai-responses / mistral-conversations cases: pi-ai's own streamSimple, onPayload + fetch captured.
const { getModel, streamSimple } = await import("@earendil-works/pi-ai/compat");
for (const k of Object.keys(process.env)) if (/^(PI_|OPENAI_|MISTRAL_|XAI_|CLOUDFLARE_|COPILOT_)/.test(k)) delete process.env[k];

let captured = null;
globalThis.fetch = async (input, init) => {
  const req = new Request(input, init);
  const headers = {};
  for (const [k, v] of req.headers) headers[k] = v;
  captured = { method: req.method, url: req.url, headers, body: await req.text() };
  throw new Error("captured");
};

const ts = 1750000000000;
const usage0 = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const asst = (provider, api, model, content, extra = {}) => ({ role: "assistant", content, api, provider, model, usage: usage0, stopReason: "toolUse", timestamp: ts, ...extra });
const user = (content) => ({ role: "user", content, timestamp: ts });
const result = (toolCallId, toolName, content, extra = {}) => ({ role: "toolResult", toolCallId, toolName, content, isError: false, timestamp: ts, ...extra });
const img = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };
const OR = ["openai", "openai-responses"];

const readTool = { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] } };
const bashTool = { name: "bash", description: "Run", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
const strictTool = { name: "edit", description: "Edit", parameters: { type: "object", properties: { path: { type: "string" }, note: { type: "string" }, opt: { type: ["string", "null"] }, tags: { type: "array", items: { type: "object", properties: { k: { type: "string" } } } }, mode: { anyOf: [{ type: "string" }, { type: "integer" }] } }, required: ["path"] }, constrainedSampling: { type: "json_schema" } };
const softStrictTool = { name: "soft", description: "S", parameters: { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } }, constrainedSampling: { type: "json_schema" } };
const badStrictTool = { name: "weird", description: "W", parameters: { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } }, constrainedSampling: { type: "json_schema", strict: "require" } };
const grammarTool = { name: "apply_patch", description: "Patch", parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] }, constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /.+/" } } };
const regexTool = { name: "pick", description: "Pick", parameters: { type: "object", properties: { v: { type: "string" } }, required: ["v"] }, constrainedSampling: { type: "grammar", variants: { openai_lark: "  ", openai_regex: "^[ab]$" } } };
const badGrammarTool = { name: "g2", description: "G", parameters: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] }, constrainedSampling: { type: "grammar", variants: { openai_lark: "x" } } };
const noVariantGrammarTool = { name: "g3", description: "G", parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a"] }, constrainedSampling: { type: "grammar", variants: {} } };

const cases = [];
async function run(name, provider, id, context, options, overrides = undefined) {
  const model = { ...getModel(provider, id), ...(overrides ?? {}) };
  let payload, error, finalError;
  captured = null;
  try {
    const s = streamSimple(model, structuredClone(context), { ...options, onPayload: (p) => { payload = JSON.parse(JSON.stringify(p)); return undefined; } });
    const r = await s.result();
    finalError = r.errorMessage;
    if (!payload) error = r.errorMessage;
  } catch (e) { error = e.message; }
  const c = { name, model: `${provider}/${id}`, context, options };
  if (overrides) c.modelOverrides = overrides;
  if (payload) c.payload = payload; else c.error = error;
  if (payload) {
    if (captured) {
      const h = { ...captured.headers };
      for (const k of Object.keys(h)) if (k === "user-agent" || k.startsWith("x-stainless")) delete h[k];
      if (h.authorization) h.authorization = h.authorization.replace(/ .*/, " <redacted>");
      if (h["api-key"]) h["api-key"] = "<redacted>";
      c.wire = { method: captured.method, url: captured.url, headers: h, body: JSON.parse(captured.body) };
      if (JSON.stringify(c.wire.body) !== captured.body) c.wire.bodyText = captured.body;
    } else c.wireError = finalError;
  }
  cases.push(c);
}
const key = { apiKey: "dummy", sessionId: "s1" };
const api = process.argv[2];

if (api === "openai-responses") {
  const replay = [
    user("hi \ud83d\ude00 there \ud800"),
    asst(...OR, "gpt-5.1", [
      { type: "thinking", thinking: "", thinkingSignature: "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[],\"encrypted_content\":\"e\\ud800x\",\"2\":1,\"b\":2,\"1\":3}" },
      { type: "text", text: "a", textSignature: JSON.stringify({ v: 1, id: "msg_" + "x".repeat(70), phase: "final_answer" }) },
      { type: "text", text: "b", textSignature: JSON.stringify({ v: 2, id: "msg_v2" }) },
      { type: "text", text: "c", textSignature: JSON.stringify({ v: 1, id: "msg_c", phase: "other" }) },
      { type: "text", text: "d", textSignature: "" },
      { type: "toolCall", id: "call_1|fc_1", name: "apply_patch", arguments: { patch: "*** Begin" }, namespace: "ns1" },
      { type: "toolCall", id: "call_2|ctc_2", name: "apply_patch", arguments: { patch: "x\ud800" } },
      { type: "toolCall", id: "call_3|fc_3", name: "read", arguments: { path: "a" }, namespace: "ns" },
      { type: "toolCall", id: "call_4", name: "read", arguments: { path: "b" } },
    ]),
    result("call_1|fc_1", "apply_patch", [{ type: "text", text: "done" }]),
    result("call_2|ctc_2", "apply_patch", [img]),
    result("call_3|fc_3", "read", [{ type: "text", text: "A" }, img, { type: "text", text: "B" }]),
    result("call_4", "read", []),
    asst(...OR, "gpt-5", [
      { type: "thinking", thinking: "t", thinkingSignature: "{\"type\":\"reasoning\",\"id\":\"rs_2\",\"summary\":[]}" },
      { type: "text", text: "e", textSignature: "msg_legacy" },
      { type: "toolCall", id: "call_5|fc_5", name: "read", arguments: { path: "c" }, namespace: "ns" },
      { type: "toolCall", id: "call_6|item_6", name: "read", arguments: { path: "d" } },
    ]),
    result("call_5|fc_5", "read", [{ type: "text", text: "C" }]),
    asst("anthropic", "anthropic-messages", "claude-sonnet-4-5", [
      { type: "thinking", thinking: "plan", thinkingSignature: "sig" },
      { type: "text", text: "ok", textSignature: "zzz" },
      { type: "toolCall", id: "toolu_\ud83d\ude00.x|y+z__", name: "bash", arguments: { command: "ls" } },
      { type: "toolCall", id: "call_7|fc_7", name: "bash", arguments: { command: "pwd" } },
      { type: "toolCall", id: "plain-id-" + "q".repeat(80) + "___", name: "bash", arguments: { command: "x" } },
    ]),
    result("toolu_\ud83d\ude00.x|y+z__", "bash", [{ type: "text", text: "out" }]),
    user([]),
    user([{ type: "text", text: "look" }, img]),
  ];
  const tools = [readTool, bashTool, grammarTool];
  const ctx = (extra = {}) => ({ systemPrompt: "Be brief.", messages: replay, tools, ...extra });
  for (const reasoning of [undefined, "minimal", "low", "high", "xhigh"]) await run(`replay gpt-5.1 ${reasoning}`, "openai", "gpt-5.1", ctx(), { ...key, ...(reasoning ? { reasoning } : {}) });
  await run("replay gpt-5 off", "openai", "gpt-5", ctx(), key);
  await run("replay gpt-5 medium", "openai", "gpt-5", ctx(), { ...key, reasoning: "medium" });
  await run("gpt-4.1 non reasoning", "openai", "gpt-4.1", ctx(), { ...key, reasoning: "high" });
  await run("gpt-4 text only", "openai", "gpt-4", ctx(), key);
  await run("gpt-5.2 xhigh", "openai", "gpt-5.2", ctx(), { ...key, reasoning: "xhigh" });
  await run("cache long option", "openai", "gpt-5.1", ctx(), { ...key, cacheRetention: "long" });
  await run("cache long env", "openai", "gpt-5.1", ctx(), { ...key, env: { PI_CACHE_RETENTION: "long" } });
  await run("cache none", "openai", "gpt-5.1", ctx(), { ...key, cacheRetention: "none" });
  await run("explicit cache none", "openai", "gpt-5.6-luna", ctx(), { ...key, cacheRetention: "none" });
  await run("explicit cache long", "openai", "gpt-5.6-luna", ctx(), { ...key, cacheRetention: "long", reasoning: "max" });
  await run("explicit cache short", "openai", "gpt-5.6-luna", ctx(), key);
  await run("long session id", "openai", "gpt-5.1", ctx(), { apiKey: "k", sessionId: "\ud83d\ude00".repeat(70) });
  await run("bad header value", "openai", "gpt-5.1", ctx(), { ...key, headers: { "X-A": " v\u00e9 ", "X-B": "x\nb" } });
  await run("latin1 header value", "openai", "gpt-5.1", ctx(), { ...key, headers: { "X-A": " v\u00e9\t" } });
  await run("empty session id", "openai", "gpt-5.1", ctx(), { apiKey: "k", sessionId: "" });
  await run("no session", "openai", "gpt-5.1", ctx(), { apiKey: "k" });
  await run("options", "openai", "gpt-5.1", ctx(), { ...key, temperature: 0.5, maxTokens: 5, toolChoice: "required", samplingParams: { top_p: 0.9, store: true } });
  await run("tool choice object", "openai", "gpt-5.1", ctx(), { ...key, toolChoice: { type: "function", name: "read" } });
  await run("auth header instead of key", "openai", "gpt-5.1", ctx(), { sessionId: "s1", headers: { Authorization: "Bearer abc", "X-Extra": "1" } });
  await run("no api key", "openai", "gpt-5.1", ctx(), { sessionId: "s1" });
  await run("blank auth header", "openai", "gpt-5.1", ctx(), { sessionId: "s1", headers: { authorization: "  " } });
  await run("null header", "openai", "gpt-5.1", ctx(), { ...key, headers: { "User-Agent": null, session_id: "override" } });
  await run("strict tools", "openai", "gpt-5.1", ctx({ tools: [readTool, strictTool, softStrictTool, regexTool] }), key);
  await run("strict tools no strict compat", "opencode", "gpt-5", ctx({ tools: [readTool, strictTool] }), key);
  await run("strict required impossible", "openai", "gpt-5.1", ctx({ tools: [badStrictTool] }), key);
  await run("strict required unsupported", "opencode", "gpt-5", ctx({ tools: [badStrictTool] }), key);
  await run("bad grammar tool", "openai", "gpt-5.1", ctx({ tools: [badGrammarTool] }), key);
  await run("grammar no variant", "openai", "gpt-5.1", ctx({ tools: [noVariantGrammarTool] }), key);
  await run("grammar unsupported model", "openai", "gpt-4.1", ctx(), key);
  await run("duplicate tools", "openai", "gpt-5.1", ctx({ tools: [readTool, bashTool, { ...readTool, description: "second" }] }), key);
  await run("empty tools no system", "openai", "gpt-5.1", { messages: replay, tools: [] }, key);
  const badArgs = [user("x"), asst(...OR, "gpt-5.1", [{ type: "toolCall", id: "c|fc", name: "apply_patch", arguments: { patch: 3 } }])];
  await run("grammar call bad args", "openai", "gpt-5.1", { messages: badArgs, tools }, key);
  for (const [i, sig] of ["{", "not json at all, really not json", "{\"type\":\"reasoning\"} trailing garbage here", "{\"a\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 16]}", "{\"a\":\"\\q\"}", "[tru]", "{\"k\":01}", "{\"long\":\"" + "y".repeat(30) + "\",\"x\":-}", "123", "null", "\"str\"", "{\"a\":1e+}", "{\"a\":\"x\ny\"}", "NaN", "{\"a\":\"\\u12\"}", "{\"a\":\"abc"].entries()) {
    const msgs = [user("x"), asst(...OR, "gpt-5.1", [{ type: "thinking", thinking: "", thinkingSignature: sig }, { type: "text", text: "t" }])];
    await run(`signature ${i}`, "openai", "gpt-5.1", { messages: msgs }, key);
  }
  // deferred tools
  const deferredMsgs = [
    user("load"),
    asst(...OR, "gpt-5.4", [{ type: "toolCall", id: "c1|fc_1", name: "bash", arguments: { command: "x" } }]),
    result("c1|fc_1", "bash", [{ type: "text", text: "ok" }], { addedToolNames: ["read", "apply_patch", "nope", "bash"] }),
    asst(...OR, "gpt-5.4", [{ type: "toolCall", id: "c2|fc_2", name: "read", arguments: { path: "p" }, namespace: "n" }]),
    result("c2|fc_2", "read", [{ type: "text", text: "ok" }], { addedToolNames: ["read", "edit"] }),
  ];
  const dctx = { systemPrompt: "S", messages: deferredMsgs, tools: [readTool, bashTool, grammarTool, strictTool] };
  await run("deferred additional tools", "openai", "gpt-5.4", dctx, { ...key, reasoning: "high" });
  await run("deferred tool search", "openai", "gpt-5.4", dctx, key, { compat: { supportsToolSearch: true, supportsOpenAIGrammarTools: true, supportsStrictMode: true } });
  await run("deferred other model", "openai", "gpt-5.1", dctx, key);
  // providers
  await run("xai", "xai", "grok-4.3", ctx(), { ...key, cacheRetention: "long" });
  await run("xai reasoning", "xai", "grok-4.5", ctx(), { ...key, reasoning: "low" });
  await run("opencode", "opencode", "gpt-5", ctx(), { ...key, reasoning: "minimal" });
  await run("opencode grok", "opencode", "grok-4.6", ctx(), key);
  await run("copilot", "github-copilot", "gpt-5-mini", ctx(), { ...key, reasoning: "minimal" });
  await run("copilot off", "github-copilot", "gpt-5.4", ctx(), key);
  await run("copilot user last", "github-copilot", "grok-4.5", { messages: [user("hi")] }, key);
  await run("copilot images", "github-copilot", "gpt-5.4", { messages: [user([{ type: "text", text: "see" }, img]), asst(...OR, "gpt-5.4", [{ type: "text", text: "ok" }], { stopReason: "stop" })] }, key);
  await run("openrouter affinity", "openai", "gpt-5.1", ctx(), key, { baseUrl: "https://openrouter.ai/api/v1/" });
  await run("cloudflare gateway env", "cloudflare-ai-gateway", "gpt-5.1", ctx(), { ...key, env: { CLOUDFLARE_ACCOUNT_ID: "acc", CLOUDFLARE_GATEWAY_ID: "" } });
  await run("cloudflare gateway no env", "cloudflare-ai-gateway", "gpt-4.1", ctx(), key);
  await run("base url with query", "openai", "gpt-5.1", ctx(), key, { baseUrl: "https://proxy.example/v1?a=1+2&b=%7E&a=3&c=&d=\u00e9 x" });
  await run("base url plain host", "openai", "gpt-5.1", ctx(), key, { baseUrl: "HTTPS://Proxy.Example:443" });
  await run("developer role off", "openai", "gpt-5.1", ctx(), key, { compat: { supportsDeveloperRole: false, supportsMaxOutputTokens: false } });
  await run("no long retention", "openai", "gpt-5.1", ctx(), { ...key, cacheRetention: "long" }, { compat: { supportsLongCacheRetention: false }, headers: { "X-Model": "m" } });
  await run("thinking map effort", "openai", "gpt-5.1", ctx(), { ...key, reasoning: "low" }, { thinkingLevelMap: { off: "minimal", low: "medium-ish" } });
}

if (api === "azure-openai-responses") {
  const replay = [
    user("hi"),
    asst("azure-openai-responses", "azure-openai-responses", "gpt-5.1", [
      { type: "thinking", thinking: "", thinkingSignature: "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[]}" },
      { type: "text", text: "a", textSignature: JSON.stringify({ v: 1, id: "msg_a", phase: "commentary" }) },
      { type: "toolCall", id: "call_1|fc_1", name: "read", arguments: { path: "a" } },
    ]),
    result("call_1|fc_1", "read", [{ type: "text", text: "A" }]),
    asst(...OR, "gpt-5.1", [
      { type: "text", text: "b", textSignature: "msg_b" },
      { type: "toolCall", id: "call_2|fc_2", name: "apply_patch", arguments: { patch: "p" } },
    ]),
    result("call_2|fc_2", "apply_patch", [{ type: "text", text: "ok" }]),
    asst("anthropic", "anthropic-messages", "claude-sonnet-4-5", [{ type: "toolCall", id: "toolu_1|x", name: "bash", arguments: { command: "ls" } }]),
  ];
  const tools = [readTool, bashTool, grammarTool, { ...readTool, description: "dup" }];
  const ctx = (extra = {}) => ({ systemPrompt: "Be brief.", messages: replay, tools, ...extra });
  const res = { AZURE_OPENAI_RESOURCE_NAME: "myres" };
  for (const reasoning of [undefined, "low", "xhigh"]) await run(`azure gpt-5.1 ${reasoning}`, "azure-openai-responses", "gpt-5.1", ctx(), { ...key, env: res, ...(reasoning ? { reasoning } : {}) });
  await run("azure gpt-5 off", "azure-openai-responses", "gpt-5", ctx(), { ...key, env: res });
  await run("azure o3 high", "azure-openai-responses", "o3", ctx(), { ...key, env: res, reasoning: "high" });
  await run("azure gpt-4.1", "azure-openai-responses", "gpt-4.1", ctx(), { ...key, env: res, cacheRetention: "none", temperature: 0.1, maxTokens: 3, toolChoice: "auto", samplingParams: { top_p: 1 } });
  await run("azure base url cognitive", "azure-openai-responses", "gpt-5.1", ctx(), { ...key, env: { AZURE_OPENAI_BASE_URL: " https://foo.cognitiveservices.azure.com/openai/ ", AZURE_OPENAI_API_VERSION: "2025-04-01-preview", AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-4=x, gpt-5.1 = my-deploy=extra ,bad" } });
  await run("azure base url proxy", "azure-openai-responses", "gpt-5.1", ctx(), { ...key, env: { AZURE_OPENAI_BASE_URL: "https://proxy.example.com/az/?q=1", AZURE_OPENAI_RESOURCE_NAME: "ignored" }, headers: { "X-Extra": "1" } });
  await run("azure host openai v1 responses", "azure-openai-responses", "gpt-5.1", ctx(), { ...key, env: { AZURE_OPENAI_BASE_URL: "https://r.openai.azure.com/openai/v1/responses?x=1" } });
  await run("azure model base url", "azure-openai-responses", "gpt-5.1", ctx(), key, { baseUrl: "https://r2.ai.azure.com" });
  await run("azure no base url", "azure-openai-responses", "gpt-5.1", ctx(), key);
  await run("azure no api key", "azure-openai-responses", "gpt-5.1", ctx(), { env: res });
  await run("azure strict tools", "azure-openai-responses", "gpt-4.1", ctx({ tools: [readTool, strictTool] }), { ...key, env: res });
}

if (api === "mistral-conversations") {
  const msgs = [
    user("hi \ud800 there"),
    user([{ type: "text", text: "" }, img, { type: "text", text: "b" }]),
    user([img]),
    user([]),
    asst("mistral", "mistral-conversations", "magistral-medium-latest", [
      { type: "thinking", thinking: "  \n" },
      { type: "thinking", thinking: "real thought \ud83d\ude00" },
      { type: "text", text: "\ufeff" },
      { type: "text", text: " answer " },
      { type: "toolCall", id: "abc-def-ghi", name: "read", arguments: { path: "a" } },
      { type: "toolCall", id: "abcdefghi", name: "read", arguments: null },
    ]),
    result("abc-def-ghi", "read", [{ type: "text", text: "  A  " }, img, { type: "text", text: "B" }]),
    result("abcdefghi", "read", [img], { isError: true }),
    asst("openai", "openai-responses", "gpt-5.1", [
      { type: "thinking", thinking: "cross thought", thinkingSignature: "{}" },
      { type: "text", text: "   " },
      { type: "toolCall", id: "call_1|fc_1", name: "bash", arguments: { command: "ls" } },
      { type: "toolCall", id: "abc-def-ghi", name: "bash", arguments: { command: "pwd" } },
      { type: "toolCall", id: "!!!", name: "bash", arguments: {} },
    ]),
    result("call_1|fc_1", "bash", [], { isError: true }),
    result("abc-def-ghi", "bash", [{ type: "text", text: "" }, img]),
    asst("mistral", "mistral-conversations", "magistral-medium-latest", [{ type: "text", text: " " }], { stopReason: "stop" }),
    user("end"),
  ];
  const tools = [readTool, bashTool];
  const ctx = (extra = {}) => ({ systemPrompt: "Be brief \ud800.", messages: msgs, tools, ...extra });
  for (const id of ["magistral-medium-latest", "mistral-medium-latest", "mistral-small-latest", "mistral-medium-3.5", "mistral-small-2603", "devstral-medium-latest", "pixtral-12b", "zai-glm-5-2"]) {
    for (const reasoning of [undefined, "minimal", "high", "xhigh"]) await run(`${id} ${reasoning}`, "mistral", id, ctx(), { ...key, ...(reasoning ? { reasoning } : {}) });
  }
  await run("options", "mistral", "mistral-medium-latest", ctx(), { ...key, temperature: 0.2, maxTokens: 10, toolChoice: "any", samplingParams: { topP: 1 } });
  for (const toolChoice of ["auto", "none", "required", { type: "function", function: { name: "read", extra: 1 } }]) await run(`toolChoice ${JSON.stringify(toolChoice)}`, "mistral", "mistral-medium-latest", ctx(), { ...key, toolChoice });
  await run("cache none", "mistral", "mistral-medium-latest", ctx(), { ...key, cacheRetention: "none" });
  await run("cache long", "mistral", "mistral-medium-latest", ctx(), { ...key, cacheRetention: "long", env: { PI_CACHE_RETENTION: "long" } });
  await run("empty session", "mistral", "mistral-medium-latest", ctx(), { apiKey: "k", sessionId: "" });
  await run("no api key", "mistral", "mistral-medium-latest", ctx(), { sessionId: "s1" });
  await run("header overrides", "mistral", "mistral-medium-latest", ctx(), { ...key, headers: { "X-Affinity": "mine", "User-Agent": null, Accept: "application/json" } });
  await run("model headers", "mistral", "mistral-medium-latest", ctx(), { ...key, headers: { "x-b": "2" } }, { headers: { "x-affinity": null, "X-B": "1" }, baseUrl: "https://proxy.example/mistral//?q=1" });
  await run("strict tools", "mistral", "mistral-medium-latest", ctx({ tools: [readTool, strictTool, softStrictTool] }), key);
  await run("strict required impossible", "mistral", "mistral-medium-latest", ctx({ tools: [badStrictTool] }), key);
  await run("no tools no system", "mistral", "mistral-medium-latest", { messages: msgs, tools: [] }, key);
  await run("duplicate tools", "mistral", "mistral-medium-latest", ctx({ tools: [readTool, readTool] }), key);
}
process.stdout.write(JSON.stringify(cases));
