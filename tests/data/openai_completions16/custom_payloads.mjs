import fs from "node:fs";
globalThis.fetch = async () => { throw new Error("network disabled"); };
const piAi = await import(process.env.PI_AI16 ?? "/tmp/oracle16/node_modules/@earendil-works/pi-ai/dist/compat.js");
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const out = [];
for (const job of jobs) {
  let captured, called = false;
  const opts = { ...job.options, onPayload: (p) => { captured = JSON.parse(JSON.stringify(p)); called = true; throw new Error("captured"); } };
  try {
    const s = piAi.streamSimple(job.model, job.context, opts);
    const r = await s.result();
    out.push(called ? { payload: captured } : { error: r.errorMessage });
  } catch (e) { out.push(called ? { payload: captured } : { error: String(e.message) }); }
}
process.stdout.write(JSON.stringify(out));
