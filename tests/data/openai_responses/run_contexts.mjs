const { getModel, streamSimple } = await import("@earendil-works/pi-ai/compat");
for (const k of Object.keys(process.env)) if (/^(PI_|OPENAI_|MISTRAL_)/.test(k)) delete process.env[k];
globalThis.fetch = async () => { throw new Error("captured"); };
const fs = await import("node:fs");
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = [];
for (const c of cases) {
  const [provider, ...rest] = c.model.split("/");
  const model = getModel(provider, rest.join("/"));
  let payload, error;
  try {
    const s = streamSimple(model, c.context, { ...c.options, onPayload: (p) => { payload = JSON.parse(JSON.stringify(p)); throw new Error("stop"); } });
    const r = await s.result();
    if (!payload) error = r.errorMessage;
  } catch (e) { if (!payload) error = e.message; }
  out.push(payload ? { payload } : { error });
}
process.stdout.write(JSON.stringify(out));
