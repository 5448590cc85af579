// Records pi-ai 1.6's estimate and maxTokens clamp (window 200000 and 40000, 64000 asked) for every conformance16 llm list: node record_estimates.mjs > estimates.json
import fs from "node:fs";
const d = "/tmp/oracle16/node_modules/@earendil-works/pi-ai/dist/";
const est = await import(d + "utils/estimate.js");
const so = await import(d + "api/simple-options.js");
const tr = await import(d + "utils/transcript.js");
const c = await import(d + "compat.js");
const out = {};
for (const f of fs.readdirSync("/work/shared/conformance16/expected")) {
  const doc = JSON.parse(fs.readFileSync("/work/shared/conformance16/expected/" + f, "utf8"));
  if (!doc.llm) continue;
  const ctx = tr.normalizeContext(doc.inputs.systemPrompt === null ? {messages: doc.llm} : {systemPrompt: doc.inputs.systemPrompt, messages: doc.llm, ...(doc.inputs.tools ? {tools: doc.inputs.tools} : {})});
  const m = c.getModel("anthropic", "claude-sonnet-4-5");
  const small = {...m, contextWindow: 40000};
  out[f] = [est.estimateContextTokens(ctx).tokens, so.clampMaxTokensToContext(m, ctx, 64000), so.clampMaxTokensToContext(small, ctx, 64000)];
}
process.stdout.write(JSON.stringify(out));
