// Pi 1.6 openai-responses / azure-openai-responses corners: pi-ai 1.6's own streamSimple on hand-built transcripts,
// with the options Pi's coding agent adds (timeout, identity, no headers); onPayload and fetch captured.
// Run next to the 1.6 oracle's node_modules: node gen_synthetic16.mjs > synthetic16_cases.json
import os from "node:os";

const { getModel, streamSimple } = await import("@earendil-works/pi-ai/compat");
const { PI_ATTRIBUTION } = await import("@earendil-works/pi-ai");
for (const k of Object.keys(process.env)) if (/^(PI_|OPENAI_|AZURE_|XAI_|CLOUDFLARE_|COPILOT_|OPENCODE_|META_)/.test(k)) delete process.env[k];

let captured = null;
globalThis.fetch = async (input, init) => {
  const req = new Request(input, init);
  const headers = {};
  for (const [k, v] of req.headers) headers[k] = v;
  captured = { method: req.method, url: req.url, headers, body: await req.text() };
  throw new Error("captured");
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const platform = [[os.release(), "<os-release>"], [process.versions.node, "<node-version>"], [os.arch(), "<arch>"], [os.platform(), "<platform>"]]
  .map(([needle, placeholder]) => [new RegExp(escape(needle), "gi"), placeholder]);
const normalise = (value) => platform.reduce((out, [pattern, placeholder]) => out.replace(pattern, placeholder), value);

const ts = 1750000000000;
const usage0 = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const asst = (provider, api, model, content, extra = {}) => ({ role: "assistant", content, api, provider, model, usage: usage0, stopReason: "toolUse", timestamp: ts, ...extra });
const user = (content) => ({ role: "user", content, timestamp: ts });
const result = (toolCallId, toolName, content, extra = {}) => ({ role: "toolResult", toolCallId, toolName, content, isError: false, timestamp: ts, ...extra });
const sys = (content, extra = {}) => ({ role: "system", content, ...extra, timestamp: ts });
const img = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };

const prefer = { type: "json_schema", strict: "prefer" };
const readTool = { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] }, constrainedSampling: prefer };
const bashTool = { name: "bash", description: "Run", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }, constrainedSampling: prefer };
const readTool2 = { ...readTool, description: "Read a file (v2)" };
const grammarTool = { name: "apply_patch", description: "Patch", parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] }, constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /.+/" } } };
const untypedPrefer = { name: "loose", description: "L", parameters: { type: "object", properties: { value: { description: "anything" } }, required: ["value"] }, constrainedSampling: prefer };
const untypedRequire = { ...untypedPrefer, name: "strictloose", constrainedSampling: { type: "json_schema", strict: "require" } };
const enumOnly = { name: "pick", description: "P", parameters: { type: "object", properties: { v: { enum: ["a", "b"] } } }, constrainedSampling: prefer };

const identity = { userAgent: "detailed", version: "1.6.0", attribution: PI_ATTRIBUTION };
const agent = { timeoutMs: 300000, headers: {}, identity };

const cases = [];
async function run(name, provider, id, context, options, overrides = undefined) {
  const model = { ...getModel(provider, id), ...(overrides ?? {}) };
  let payload, error, finalError;
  captured = null;
  try {
    const s = streamSimple(model, structuredClone(context), { ...agent, maxRetryDelayMs: 60000, ...options, onPayload: (p) => { payload = JSON.parse(JSON.stringify(p)); return undefined; } });
    const r = await s.result();
    finalError = r.errorMessage;
    if (!payload) error = r.errorMessage;
  } catch (e) { error = e.message; }
  const c = { name, model: `${provider}/${id}`, context, options: { ...agent, ...options } };
  if (overrides) c.modelOverrides = overrides;
  if (payload) c.payload = payload; else c.error = error;
  if (payload) {
    if (captured) {
      const h = {};
      for (const [k, v] of Object.entries(captured.headers)) h[k] = normalise(v);
      if (h.authorization) h.authorization = h.authorization.replace(/ .*/, " <redacted>");
      if (h["api-key"]) h["api-key"] = "<redacted>";
      c.wire = { method: captured.method, url: captured.url, headers: h, body: JSON.parse(captured.body) };
    } else c.wireError = finalError;
  }
  cases.push(c);
}
const key = { apiKey: "sk-test", sessionId: "s1" };
const OR = (model) => ["openai", "openai-responses", model];

// A transcript Pi 1.6 writes: the leading system message, later ones changing sections and tools.
const evolving = (model) => [
  sys("", { sections: { preamble: "You are pi.", cwd: "<cwd>/w</cwd>" }, toolsAdded: [readTool, bashTool] }),
  user("list files"),
  asst(...OR(model), [
    { type: "thinking", thinking: "t", thinkingSignature: "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[]}" },
    { type: "toolCall", id: "call_1|fc_1", name: "bash", arguments: { command: "ls" }, namespace: "ns" },
  ], { providerThinkingLevel: "low" }),
  result("call_1|fc_1", "bash", [{ type: "text", text: "a\nb" }]),
  sys("Extra rule.", { sections: { cwd: "<cwd>/x</cwd>", docs: null }, toolsAdded: [grammarTool], toolsRemoved: [{ name: "bash" }] }),
  asst(...OR(model), [{ type: "text", text: "Listed." }], { stopReason: "stop", providerThinkingLevel: "high" }),
  user("patch it"),
  asst(...OR(model), [{ type: "toolCall", id: "call_2|ctc_2", name: "apply_patch", arguments: { patch: "*** Begin" } }]),
  result("call_2|ctc_2", "apply_patch", [{ type: "text", text: "   \n" }]),
  sys("", { toolsAdded: [bashTool, readTool2], toolsRemoved: [{ name: "read" }] }),
  sys("", {}),
  asst(...OR(model), [{ type: "text", text: "Patched." }], { stopReason: "stop" }),
  user([{ type: "text", text: "and this" }, img]),
];
for (const model of ["gpt-5.6-sol", "gpt-5.4", "gpt-5.1"]) {
  for (const reasoning of [undefined, "high"]) {
    await run(`evolving ${model} ${reasoning}`, "openai", model, { messages: evolving(model) }, { ...key, ...(reasoning ? { reasoning } : {}) });
  }
}
await run("evolving tool search", "openai", "gpt-5.6-sol", { messages: evolving("gpt-5.6-sol") }, key,
  { compat: { supportsStrictMode: true, supportsOpenAIGrammarTools: true, supportsToolSearch: true, supportsMidConvoSystemMessages: true } });
await run("evolving tool search collapsed", "openai", "gpt-5.6-sol", { messages: evolving("gpt-5.6-sol") }, key,
  { compat: { supportsToolSearch: true } });
await run("evolving other model", "openai", "gpt-5.6-sol", { messages: evolving("gpt-5.4") }, { ...key, reasoning: "low" });
for (const reasoning of [undefined, "low", "max"]) {
  await run(`configuration update gpt-6-luna ${reasoning}`, "openai", "gpt-6-luna", { messages: evolving("gpt-6-luna") }, { ...key, ...(reasoning ? { reasoning } : {}) });
}
await run("chatgpt sign in gpt-6-luna", "openai", "gpt-6-luna", { messages: evolving("gpt-6-luna") }, { apiKey: "eyJhbGciOi.sign-in", sessionId: "s1", reasoning: "high", temperature: 0.3, cacheRetention: "long" });
await run("chatgpt sign in gpt-5.1", "openai", "gpt-5.1", { systemPrompt: "Be brief.", tools: [readTool], messages: [user("hi")] }, { apiKey: "oauth-token", sessionId: "s1", temperature: 0.3, cacheRetention: "long" });
await run("chatgpt sign in explicit cache", "openai", "gpt-5.6-luna", { systemPrompt: "Be brief.", messages: [user("hi")] }, { apiKey: "oauth-token", sessionId: "s1", cacheRetention: "none" });
await run("sk key other base url", "openai", "gpt-5.1", { messages: [user("hi")] }, { apiKey: "oauth-token", sessionId: "s1", temperature: 0.3 }, { baseUrl: "https://proxy.example/v1" });
await run("prompt cache key disabled", "openai", "gpt-5.1", { messages: [user("hi")] }, key, { compat: { promptCacheKeyMode: "disabled" } });
await run("sampling by level", "openai", "gpt-5.1", { messages: [user("hi")] }, { ...key, reasoning: "high" }, { samplingParamsByThinkingLevel: { high: { top_p: 0.5 }, off: { top_p: 0.9 } }, samplingParams: { top_k: 3 } });

const held = [
  user("go"),
  asst(...OR("gpt-5.4"), [{ type: "toolCall", id: "call_h|fc_h", name: "read", arguments: { path: "a" } }, { type: "toolCall", id: "call_i|fc_i", name: "read", arguments: { path: "b" } }]),
  sys("Mid-batch note.", { toolsAdded: [grammarTool] }),
  result("call_h|fc_h", "read", [{ type: "text", text: "A" }]),
  asst("anthropic", "anthropic-messages", "claude-sonnet-4-5", [
    { type: "thinking", thinking: "foreign plan", thinkingSignature: "sig" },
    { type: "text", text: "ok" },
    { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "c" } },
  ]),
  result("toolu_1", "read", [{ type: "text", text: " " }, img]),
  asst(...OR("gpt-5.4"), [
    { type: "toolCall", id: "call_j|ctc_j", name: "read", arguments: { path: "d" } },
    { type: "toolCall", id: "call_k|fc_k", name: "apply_patch", arguments: { patch: "p" } },
    { type: "toolCall", id: "call_l|ctc_l", name: "apply_patch", arguments: { patch: "q" }, namespace: "n" },
  ]),
  result("call_j|ctc_j", "read", [{ type: "text", text: "" }]),
  result("call_k|fc_k", "apply_patch", [{ type: "text", text: "\t" }, { type: "text", text: "" }]),
  result("call_l|ctc_l", "apply_patch", [img]),
];
const heldCtx = { systemPrompt: "S", tools: [readTool], messages: held };
await run("held system gpt-5.4", "openai", "gpt-5.4", heldCtx, { ...key, reasoning: "medium" });
await run("held system gpt-5.1", "openai", "gpt-5.1", heldCtx, key);
await run("held system gpt-4 text only", "openai", "gpt-4.1", heldCtx, key);
await run("untyped prefer", "openai", "gpt-5.1", { systemPrompt: "S", tools: [untypedPrefer, enumOnly, readTool], messages: [user("x")] }, key);
await run("untyped require", "openai", "gpt-5.1", { systemPrompt: "S", tools: [untypedRequire], messages: [user("x")] }, key);
await run("only system", "openai", "gpt-5.6-sol", { messages: [sys("Only.", { toolsAdded: [readTool] })] }, key);
await run("empty", "openai", "gpt-5.1", { messages: [] }, key);

// providers
await run("copilot in place", "github-copilot", "gpt-5.6-sol", { messages: evolving("gpt-5.6-sol") }, key);
await run("copilot trailing system", "github-copilot", "gpt-5.6-sol", { messages: [...held, sys("Later.")] }, key);
await run("copilot user last", "github-copilot", "gpt-6-luna", { systemPrompt: "S", messages: [user("hi")] }, key);
await run("opencode", "opencode", "gpt-5.6-sol", { messages: evolving("gpt-5.6-sol") }, { ...key, reasoning: "high" });
await run("opencode caller header", "opencode", "gpt-5.1", { messages: [user("hi")] }, { ...key, headers: { "X-OpenCode-Session": "mine" } });
await run("opencode-go", "opencode-go", "gpt-6-luna", { messages: [user("hi")] }, { ...key, reasoning: "high" });
await run("xai", "xai", "grok-4.3", { systemPrompt: "S", messages: [user("hi")] }, { ...key, cacheRetention: "long" });
await run("meta", "meta", "muse-spark-1.3", { systemPrompt: "S", messages: [user("hi")] }, { ...key, reasoning: "high" });
await run("cloudflare gateway", "cloudflare-ai-gateway", "gpt-4.1", { systemPrompt: "S", messages: [user("hi")] }, { ...key, env: { CLOUDFLARE_ACCOUNT_ID: "acc", CLOUDFLARE_GATEWAY_ID: "gw" } });
await run("cache none", "openai", "gpt-5.6-sol", { messages: [user("hi")] }, { ...key, cacheRetention: "none" });
await run("identity short", "openai", "gpt-5.1", { messages: [user("hi")] }, { ...key, identity: { userAgent: "short" } });

// azure
const env = { AZURE_OPENAI_RESOURCE_NAME: "res" };
const AZ = (model) => ["azure", "azure-openai-responses", model];
const azureTranscript = [
  sys("Be brief.", { toolsAdded: [readTool, grammarTool] }),
  user("hi"),
  asst(...AZ("gpt-5.1"), [
    { type: "thinking", thinking: "", thinkingSignature: "{\"type\":\"reasoning\",\"id\":\"rs_a\",\"summary\":[]}" },
    { type: "text", text: "a", textSignature: "{\"v\":1,\"id\":\"msg_a\",\"phase\":\"commentary\"}" },
    { type: "toolCall", id: "call_1|fc_1", name: "read", arguments: { path: "a" } },
  ]),
  result("call_1|fc_1", "read", [{ type: "text", text: "A" }]),
  sys("Later rule.", { toolsAdded: [bashTool] }),
  asst(...AZ("gpt-5.2"), [{ type: "toolCall", id: "call_2|fc_2", name: "bash", arguments: { command: "x" } }]),
  result("call_2|fc_2", "bash", [{ type: "text", text: "B" }]),
  asst("azure-openai-responses", "azure-openai-responses", "gpt-5.1", [{ type: "toolCall", id: "call_3|fc_3", name: "bash", arguments: { command: "y" } }]),
  result("call_3|fc_3", "bash", [{ type: "text", text: "C" }]),
  asst(...OR("gpt-5.1"), [{ type: "toolCall", id: "call_4|fc_4", name: "read", arguments: { path: "z" } }]),
  result("call_4|fc_4", "read", [{ type: "text", text: "D" }]),
  user("more"),
];
for (const reasoning of [undefined, "high"]) {
  await run(`azure gpt-5.1 ${reasoning}`, "azure", "gpt-5.1", { messages: azureTranscript }, { ...key, env, ...(reasoning ? { reasoning } : {}) });
}
await run("azure gpt-4.1 context", "azure", "gpt-4.1", { systemPrompt: "S", tools: [readTool, untypedPrefer], messages: [user("hi")] }, { ...key, env });
await run("azure in place", "azure", "gpt-5.6-sol", { messages: azureTranscript }, { ...key, env, reasoning: "max" },
  { compat: { supportsOpenAIGrammarTools: true, supportsMidConvoSystemMessages: true, supportsAdditionalTools: true } });
await run("azure tool search", "azure", "gpt-5.6-sol", { messages: azureTranscript }, { ...key, env },
  { compat: { supportsMidConvoSystemMessages: true, supportsToolSearch: true } });
await run("azure cache key disabled", "azure", "gpt-5.1", { messages: [user("hi")] }, { ...key, env }, { compat: { promptCacheKeyMode: "disabled" } });
await run("azure deployment map and base url", "azure", "gpt-5.1", { messages: [user("hi")] }, { ...key, env: { AZURE_OPENAI_BASE_URL: "https://x.cognitiveservices.azure.com/openai", AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5.1=my-dep, other=o", AZURE_OPENAI_API_VERSION: "2025-04-01-preview" } });
await run("azure no base url", "azure", "gpt-5.1", { messages: [user("hi")] }, key);
await run("azure no key", "azure", "gpt-5.1", { messages: [user("hi")] }, { sessionId: "s1", env });
await run("azure temperature headers", "azure", "gpt-4.1", { messages: [user("hi")] }, { ...key, env, temperature: 0.2, maxTokens: 5, headers: { "X-Extra": "1" } });

process.stdout.write(JSON.stringify(cases, null, 1) + "\n");
