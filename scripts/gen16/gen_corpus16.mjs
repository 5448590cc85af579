#!/usr/bin/env node
/**
 * Generate realistic Pi 1.6 session files, written by Pi 1.6.0's own SessionManager (public exports of
 * @earendil-works/pi-coding-agent and pi-ai 1.6.0), for differential tests against the 1.6 oracle.
 *
 *   node gen_corpus16.mjs --seed 1 --count 40 --out DIR [--prefix g16_]
 *
 * Every byte is a function of the seed: the clock (Date), SessionManager's entry ids (crypto.randomUUID) and the
 * session ids (uuidv7, crypto.getRandomValues) are replaced by seeded ones before Pi is imported; nothing else
 * in the files comes from the machine. The entries are appended the way Pi 1.6's agent session appends them
 * (see README.md for the list of constructs and where Pi writes each one).
 */

import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { syncBuiltinESMExports } from "node:module";

// ------------------------------------------------------------------------------------------------------------
// Seeded randomness

class Rng {
	constructor(seed) {
		let s = seed >>> 0;
		const split = () => {
			s = (s + 0x9e3779b9) >>> 0;
			let z = s;
			z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
			z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
			return (z ^ (z >>> 16)) >>> 0;
		};
		this.a = split();
		this.b = split();
		this.c = split();
		this.d = split();
		for (let i = 0; i < 12; i++) this.u32();
	}
	u32() {
		// sfc32
		const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
		this.d = (this.d + 1) >>> 0;
		this.a = this.b ^ (this.b >>> 9);
		this.b = (this.c + (this.c << 3)) >>> 0;
		this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
		this.c = (this.c + t) >>> 0;
		return t;
	}
	random() {
		return this.u32() / 4294967296;
	}
	int(lo, hi) {
		return lo + Math.floor(this.random() * (hi - lo + 1));
	}
	chance(p) {
		return this.random() < p;
	}
	choice(items) {
		return items[Math.floor(this.random() * items.length)];
	}
	weighted(pairs) {
		const total = pairs.reduce((sum, [w]) => sum + w, 0);
		let x = this.random() * total;
		for (const [w, value] of pairs) {
			x -= w;
			if (x < 0) return value;
		}
		return pairs[pairs.length - 1][1];
	}
	sample(items, n) {
		const copy = [...items];
		this.shuffle(copy);
		return copy.slice(0, Math.min(n, copy.length));
	}
	shuffle(items) {
		for (let i = items.length - 1; i > 0; i--) {
			const j = Math.floor(this.random() * (i + 1));
			[items[i], items[j]] = [items[j], items[i]];
		}
		return items;
	}
	hex(n) {
		let out = "";
		while (out.length < n) out += this.u32().toString(16).padStart(8, "0");
		return out.slice(0, n);
	}
	str(n, alphabet = ALNUM) {
		let out = "";
		for (let i = 0; i < n; i++) out += alphabet[Math.floor(this.random() * alphabet.length)];
		return out;
	}
	b64(nbytes) {
		const bytes = Buffer.alloc(nbytes);
		for (let i = 0; i < nbytes; i++) bytes[i] = this.u32() & 0xff;
		return bytes.toString("base64");
	}
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64CHARS = `${ALNUM}+/`;

// ------------------------------------------------------------------------------------------------------------
// Determinism: replace the clock and the id sources before Pi is loaded

const clock = { ms: 1_790_000_000_000 };
const RealDate = Date;
class SeededDate extends RealDate {
	constructor(...args) {
		if (args.length === 0) super(clock.ms);
		else super(...args);
	}
	static now() {
		return clock.ms;
	}
}
globalThis.Date = SeededDate;

let idRng = new Rng(1);
crypto.randomUUID = () => {
	const h = idRng.hex(32);
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[idRng.u32() & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
syncBuiltinESMExports();
globalThis.crypto.getRandomValues = (array) => {
	const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
	for (let i = 0; i < bytes.length; i++) bytes[i] = idRng.u32() & 0xff;
	return array;
};

const pi = await import("@earendil-works/pi-coding-agent");
const ai = await import("@earendil-works/pi-ai");
const { SessionManager } = pi;

// ------------------------------------------------------------------------------------------------------------
// Text material (the same kind of material as ../shared/oracle/gen_corpus.py)

const PROJECT_FILES = [
	"src/index.ts", "src/server.ts", "src/db/schema.sql", "src/utils/retry.ts", "README.md", "package.json",
	"tests/retry.test.ts", "pyproject.toml", "app/main.py", "app/models.py", "Makefile", "docs/setup.md",
	"src/components/Button.tsx", "cmd/api/main.go", "internal/cache/lru.go", "Cargo.toml", "src/lib.rs",
];
const USER_PROMPTS = [
	"Can you look at {file} and explain what it does?",
	"The tests in {file} are failing with a timeout. Please investigate.",
	"Refactor {file} so the retry logic is configurable.",
	"Add a unit test for the edge case where the input list is empty.",
	"Why does `npm run build` print a warning about circular imports?",
	"Please rename the function `fetchAll` to `loadAll` everywhere.",
	"Summarize the changes you made so far.",
	"Run the linter and fix whatever it reports in {file}.",
	"Check whether {file} handles unicode correctly: naïve café — 日本語 — emoji 🚀.",
	"Use grep to find every TODO in the repo and list them.",
	"Let's try a different approach: keep the cache but drop the lock.",
	"ok",
	"Continue.",
	"Is this safe? `rm -rf $BUILD_DIR/*` when BUILD_DIR is unset scares me.",
	"Search the issue tracker for anything about flaky retry tests.",
];
const ASSISTANT_TEXTS = [
	"I'll start by reading {file} to understand the current structure.",
	"The failure comes from an unawaited promise in the retry loop; the timer keeps the process alive.",
	"Done. I changed {file} so the retry count comes from the options object, defaulting to 3.",
	"Here's what I found:\n\n1. The cache is never invalidated.\n2. The lock is held across an `await`.\n3. Errors are swallowed in `catch {}`.",
	"```ts\nexport async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  let last: unknown;\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch (e) { last = e; }\n  }\n  throw last;\n}\n```",
	"All 42 tests pass now.",
	"I couldn't reproduce the warning; could you paste the full output?",
	"Let me check the other usages before renaming.",
	"Unicode looks fine: the file is read as UTF-8 and `é` round-trips. Emoji like 🚀 are 2 UTF-16 code units.",
	"Guarding with `${BUILD_DIR:?}` makes the command fail instead of deleting from `/`.",
];
const THINKING_TEXTS = [
	"The user wants me to look at the file first. I should read it before proposing changes.",
	"Two tool calls can run in parallel here: reading the file and listing the directory.",
	"The stack trace points at line 37. The timeout is probably from the retry loop not clearing its timer.",
	"I need to be careful not to break the public API; renaming should keep an alias.",
	"",
	"Let me think about which approach is less risky. Option A keeps the lock, option B removes it.",
];
const COMMANDS = [
	["ls -la", "total 24\ndrwxr-xr-x  5 dev dev 4096 Jun  1 10:00 .\n-rw-r--r--  1 dev dev  512 Jun  1 09:58 package.json\ndrwxr-xr-x  3 dev dev 4096 Jun  1 09:58 src"],
	["npm test", "> proj@1.0.0 test\n> vitest --run\n\n ✓ tests/retry.test.ts (4 tests) 12ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)"],
	["git status --short", " M src/utils/retry.ts\n?? tests/retry.test.ts"],
	["cargo build", "   Compiling proj v0.1.0 (/home/dev/proj)\nerror[E0308]: mismatched types\n --> src/lib.rs:12:5"],
	["python -m pytest -q", "....F\nFAILED tests/test_api.py::test_empty - AssertionError: assert [] == None\n1 failed, 4 passed in 0.31s"],
	["make lint", ""],
	["grep -rn TODO src", "src/server.ts:14:// TODO: handle SIGTERM\nsrc/utils/retry.ts:3:// TODO: jitter"],
];
const FILE_SNIPPETS = {
	ts: "import { retry } from './utils/retry';\n\nexport async function main() {\n  const data = await retry(() => fetch(URL));\n  console.log(data);\n}\n",
	py: "def load(path):\n    with open(path, encoding='utf-8') as f:\n        return [line.rstrip('\\n') for line in f]\n",
	md: "# Project\n\nRun `make dev` to start.\n\n## Configuration\n\nSet `API_URL`.\n",
	json: '{\n  "name": "proj",\n  "version": "1.0.0",\n  "scripts": { "test": "vitest --run" }\n}\n',
	go: 'package main\n\nfunc main() {\n\tprintln("hello")\n}\n',
};
const SUMMARIES = [
	"## Goal\nMake the retry helper configurable.\n\n## Progress\n- Read src/utils/retry.ts\n- Added an `attempts` option\n\n## Next steps\n- Add tests for zero attempts",
	"User asked to fix failing tests. Root cause: unawaited timer in retry loop. Fixed in src/utils/retry.ts; tests pass.",
	"## Goal\nRename fetchAll -> loadAll.\n\n## Done\n- Renamed in 6 files\n- Kept a deprecated alias",
	"Explored an approach that removed the lock; it caused a race in the cache test, so we abandoned it.",
];
const CWDS = ["/home/dev/proj", "/Users/ana/code/web-app", "/home/dev/work/api server", "/srv/repos/ünïcode-prøject", "/tmp/scratch"];
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];

function fmt(rng, template) {
	return template.replaceAll("{file}", rng.choice(PROJECT_FILES));
}

function snippetFor(file) {
	const ext = file.includes(".") ? file.split(".").pop() : "";
	const key = { ts: "ts", tsx: "ts", py: "py", md: "md", json: "json", go: "go" }[ext];
	return key ? FILE_SNIPPETS[key] : `# ${file}\nline 1\nline 2\nline 3\n`;
}

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

// ------------------------------------------------------------------------------------------------------------
// Providers: which API/provider/model wrote an assistant message, its ids, signatures, prices

const PROFILES = {
	anthropic: { api: "anthropic-messages", provider: "anthropic", models: ["claude-sonnet-4-5", "claude-opus-4-8", "claude-haiku-4-5"], rates: [3, 15, 0.3, 3.75], cache: true },
	openai: { api: "openai-responses", provider: "openai", models: ["gpt-5.1", "gpt-5.6-sol"], rates: [1.25, 10, 0.125, 0], cache: true },
	google: { api: "google-generative-ai", provider: "google", models: ["gemini-2.5-flash", "gemini-2.5-pro"], rates: [0.3, 2.5, 0.075, 0], cache: false },
	deepseek: { api: "openai-completions", provider: "deepseek", models: ["deepseek-v4-pro", "deepseek-flash"], rates: [0.27, 1.1, 0.07, 0], cache: true },
	mistral: { api: "mistral-conversations", provider: "mistral", models: ["mistral-medium-latest", "devstral-medium-latest"], rates: [0.4, 2, 0, 0], cache: false },
	bedrock: { api: "bedrock-converse-stream", provider: "amazon-bedrock", models: ["anthropic.claude-sonnet-4-5-20250929-v1:0"], rates: [3, 15, 0.3, 3.75], cache: true },
	codex: { api: "openai-codex-responses", provider: "openai-codex", models: ["gpt-5.6-sol"], rates: [0, 0, 0, 0], cache: true },
	radius: { api: "pi-messages", provider: "radius", models: ["balanced"], rates: [1, 5, 0.1, 0], cache: true },
	openrouter: { api: "openai-completions", provider: "openrouter", models: ["anthropic/claude-sonnet-4.5"], rates: [3, 15, 0.3, 3.75], cache: true },
};
const MAIN = ["anthropic", "anthropic", "openai", "google", "deepseek", "mistral", "bedrock", "codex", "radius"];

function toolCallId(rng, key, name, ms, n) {
	switch (key) {
		case "anthropic":
		case "bedrock":
			return key === "anthropic" ? `toolu_01${rng.str(22)}` : `tooluse_${rng.str(22, `${ALNUM}-_`)}`;
		case "openai":
		case "codex":
			return `call_${rng.str(24)}|fc_${rng.hex(48)}`;
		case "google":
			return `${name}_${ms}_${n}`;
		case "mistral":
			return rng.str(9);
		case "openrouter":
			return `toolu_vrtx_01${rng.str(22)}`;
		default:
			return `call_0${n}_${rng.str(24)}`;
	}
}

function thinkingBlock(rng, key, text) {
	const block = { type: "thinking", thinking: text };
	if (key === "anthropic" || key === "bedrock" || key === "radius") block.thinkingSignature = rng.b64(rng.int(48, 160));
	else if (key === "openai" || key === "codex") {
		block.thinkingSignature = JSON.stringify({
			type: "reasoning",
			id: `rs_${rng.hex(48)}`,
			summary: text.trim() ? [{ type: "summary_text", text }] : [],
			encrypted_content: `gAAAAA${rng.str(rng.int(60, 140), B64CHARS)}`,
		});
	} else if (key === "google" && rng.chance(0.7)) block.thinkingSignature = rng.b64(rng.int(24, 80));
	else if (key === "deepseek") block.thinkingSignature = "reasoning_content";
	return block;
}

function textBlock(rng, key, text) {
	const block = { type: "text", text };
	if ((key === "openai" || key === "codex") && rng.chance(0.8)) {
		block.textSignature = JSON.stringify({ v: 1, id: `msg_${rng.hex(48)}`, phase: rng.choice(["commentary", "final_answer"]) });
	}
	return block;
}

function responseId(rng, key) {
	return {
		anthropic: () => `msg_01${rng.str(22)}`,
		openai: () => `resp_${rng.hex(48)}`,
		codex: () => `resp_${rng.hex(48)}`,
		google: () => rng.str(28),
		deepseek: () => crypto.randomUUID(),
		mistral: () => rng.hex(32),
		radius: () => `rsp_${rng.str(26)}`,
		openrouter: () => `gen-${rng.int(1e9, 9e9)}-${rng.str(20)}`,
		bedrock: () => undefined,
	}[key]();
}

const RAW_STOP = {
	anthropic: { stop: "end_turn", toolUse: "tool_use", length: "max_tokens" },
	bedrock: { stop: "end_turn", toolUse: "tool_use", length: "max_tokens" },
	openai: { stop: "completed", toolUse: "completed", length: "incomplete" },
	codex: { stop: "completed", toolUse: "completed", length: "incomplete" },
	google: { stop: "STOP", toolUse: "STOP", length: "MAX_TOKENS" },
	deepseek: { stop: "stop", toolUse: "tool_calls", length: "length" },
	openrouter: { stop: "stop", toolUse: "tool_calls", length: "length" },
	mistral: { stop: "stop", toolUse: "tool_calls", length: "length" },
	radius: { stop: "stop", toolUse: "tool_use", length: "length" },
};

// ------------------------------------------------------------------------------------------------------------
// Tools and the structured system prompt (what Pi 1.6 declares; see core/system-prompt.ts)

const TOOL_FACTORIES = {
	read: pi.createReadToolDefinition,
	bash: pi.createBashToolDefinition,
	edit: pi.createEditToolDefinition,
	write: pi.createWriteToolDefinition,
	grep: pi.createGrepToolDefinition,
	find: pi.createFindToolDefinition,
	ls: pi.createLsToolDefinition,
};

/** Extension / MCP tools: plain JSON-schema declarations, as extensions register them. */
const EXTENSION_TOOLS = {
	github_search_issues: {
		description: "Search issues and pull requests in a GitHub repository.",
		promptSnippet: "Search GitHub issues and pull requests",
		parameters: {
			type: "object",
			properties: {
				repo: { type: "string", description: "owner/name" },
				query: { type: "string" },
				state: { type: "string", enum: ["open", "closed", "all"] },
				limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
			},
			required: ["repo", "query"],
			additionalProperties: false,
		},
	},
	web_fetch: {
		description: "Fetch a URL and return its text content (HTML converted to markdown).",
		promptSnippet: "Fetch web pages",
		parameters: { type: "object", properties: { url: { type: "string", format: "uri" }, maxBytes: { type: "number" } }, required: ["url"] },
	},
	todo: {
		description: "Manage the session's todo list.",
		parameters: {
			type: "object",
			properties: {
				action: { type: "string", enum: ["add", "done", "list"] },
				text: { type: "string" },
				id: { anyOf: [{ type: "integer" }, { type: "null" }] },
			},
			required: ["action"],
		},
	},
	codemode: {
		description: "Run a short JavaScript program that can call the other tools as async functions.",
		promptSnippet: "Run scripts that call other tools",
		parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
		constrainedSampling: { type: "json_schema", strict: "prefer" },
	},
};

const DOCS_ROOT = "/usr/local/lib/node_modules/@earendil-works/pi-coding-agent";

class ToolRegistry {
	constructor(cwd) {
		this.defs = {};
		for (const [name, make] of Object.entries(TOOL_FACTORIES)) this.defs[name] = make(cwd);
		for (const [name, def] of Object.entries(EXTENSION_TOOLS)) this.defs[name] = { name, ...def };
	}
	declaration(name, variant = 0) {
		const def = this.defs[name];
		const tool = { name, description: def.description, parameters: def.parameters };
		if (def.constrainedSampling !== undefined) tool.constrainedSampling = def.constrainedSampling;
		if (variant) tool.description = `${def.description} (v${variant + 1})`; // an extension redefined it
		return ai.toToolDeclaration(tool);
	}
	sections(names, cwd, extra) {
		const declared = names;
		const snippets = declared.filter((n) => this.defs[n].promptSnippet).map((n) => `- ${n}: ${this.defs[n].promptSnippet}`);
		const rules = [];
		const add = (r) => {
			if (r && !rules.includes(r)) rules.push(r);
		};
		const has = (n) => declared.includes(n);
		if (has("bash") && !has("grep") && !has("find") && !has("ls")) add("Use bash for file operations like ls, rg, find");
		for (const n of declared) for (const g of this.defs[n].promptGuidelines ?? []) add(g);
		for (const g of extra.guidelines ?? []) add(g);
		add("Be concise in your responses");
		add("Show file paths clearly when working with files");
		const raw = {
			preamble: "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.",
			tools: `${snippets.length ? snippets.join("\n") : "(none)"}\n\nAdditional tools may be available.`,
			rules: rules.map((r) => `- ${r}`).join("\n"),
			docs: [
				"Pi documentation (read only when the user asks about the harness itself, its SDK, extensions, themes, skills, or TUI):",
				`- Main documentation: ${DOCS_ROOT}/README.md`,
				`- Additional docs: ${DOCS_ROOT}/docs`,
				`- Examples: ${DOCS_ROOT}/examples (extensions, custom tools, SDK)`,
				"- When reading pi docs or examples, resolve docs/... under Additional docs and examples/... under Examples, not the current working directory",
				"- When asked about: extensions (docs/extensions.md, examples/extensions/), themes (docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations (docs/sdk.md), custom providers (docs/custom-provider.md), adding models (docs/models.md), packages (docs/packages.md), environment variables (docs/environment-variables.md), MCP servers (docs/mcp.md), codemode scripts and non-LLM models such as classifiers and image models (docs/codemode.md)",
				"- Before implementing harness changes, read the relevant docs and examples in full, following related cross-references.",
			].join("\n"),
		};
		if (extra.addendum) raw.addendum = extra.addendum;
		if (extra.projectContext) {
			raw.project_context = `Project-specific instructions and guidelines:\n\n<project_instructions path="${cwd}/AGENTS.md">\n${extra.projectContext}\n</project_instructions>`;
		}
		if (extra.skills && (has("read") || has("bash"))) {
			const text = pi.formatSkillsForPrompt(extra.skills, has("read") ? "read" : "bash").trim();
			if (text) raw.skills = text;
		}
		raw.cwd = cwd;
		for (const [name, text] of Object.entries(extra.custom ?? {})) if (text) raw[name] = text;
		const sections = { preamble: raw.preamble };
		for (const [name, text] of Object.entries(raw)) if (name !== "preamble") sections[name] = `<${name}>\n${text}\n</${name}>`;
		return sections;
	}
}

function diffSections(previous, current) {
	const patch = {};
	for (const [name, text] of Object.entries(current)) if (previous[name] !== text) patch[name] = text;
	for (const name of Object.keys(previous)) if (current[name] === undefined) patch[name] = null;
	return Object.keys(patch).length > 0 ? patch : undefined;
}

// ------------------------------------------------------------------------------------------------------------
// One session, written through SessionManager the way Pi 1.6's agent session writes it

class Session {
	constructor(rng, scratch, options = {}) {
		this.rng = rng;
		this.v085 = Boolean(options.v085); // write like Pi 0.85 (no system messages, no 1.x fields)
		this.cwd = options.cwd ?? rng.choice(CWDS);
		this.registry = new ToolRegistry(this.cwd);
		this.profileKey = options.profile ?? rng.choice(MAIN);
		this.model = PROFILES[this.profileKey].models[0];
		this.thinking = rng.choice(THINKING_LEVELS);
		this.toolNames = rng.chance(0.25) ? ["read", "bash"] : ["read", "bash", "edit", "write"];
		this.toolVariant = {};
		this.extra = {};
		if (rng.chance(0.35)) this.extra.projectContext = "- Run `make test` before committing.\n- Never edit generated files under dist/.";
		if (rng.chance(0.25)) {
			this.extra.skills = [{ name: "release-notes", description: "Write release notes from the git log.", filePath: `${this.cwd}/.pi/skills/release-notes/SKILL.md`, disableModelInvocation: false }];
		}
		this.counter = 0;
		this.virtual = null;
		const parentSession = options.parentSession;
		this.sm = SessionManager.create(this.cwd, scratch, parentSession ? { parentSession } : undefined);
	}

	get profile() {
		return PROFILES[this.profileKey];
	}

	tick(lo = 200, hi = 4000) {
		clock.ms += this.rng.int(lo, hi);
		return clock.ms;
	}

	// --- setup entries (sdk.ts createAgentSession) -------------------------------------------------------
	setup() {
		this.tick(5, 40);
		this.sm.appendModelChange(this.virtual ? this.virtual.provider : this.profile.provider, this.virtual ? this.virtual.modelId : this.model);
		this.tick(0, 2);
		this.sm.appendThinkingLevelChange(this.thinking);
	}

	wantedTools() {
		return this.toolNames.map((n) => this.registry.declaration(n, this.toolVariant[n] ?? 0));
	}

	wantedSections() {
		return this.registry.sections(this.toolNames, this.cwd, this.extra);
	}

	/** Before a request: the system message Pi appends when the prompt or the tool loadout differs from what the
	 * projected transcript replays (agent-session _preparePromptAndToolLoadout + agent-loop declareToolChanges). */
	syncSystem({ content = "" } = {}) {
		if (this.v085) return null;
		const messages = this.sm.buildSessionContext().messages;
		const current = ai.getCurrentSystemMessage(messages);
		const sections = diffSections(current?.sections ?? {}, this.wantedSections());
		const changes = ai.getToolStateChanges(ai.getCurrentTools(messages), this.wantedTools());
		if (!sections && !changes.toolsAdded.length && !changes.toolsRemoved.length && !content) return null;
		this.tick(5, 30);
		const message = { role: "system", content };
		if (sections) message.sections = sections;
		message.timestamp = clock.ms;
		if (changes.toolsAdded.length) message.toolsAdded = changes.toolsAdded;
		if (changes.toolsRemoved.length) message.toolsRemoved = changes.toolsRemoved;
		return this.sm.appendMessage(message);
	}

	// --- messages ------------------------------------------------------------------------------------------
	usage(inp, out, opts = {}) {
		const rng = this.rng;
		const key = opts.key ?? this.profileKey;
		const p = PROFILES[key];
		inp = inp ?? rng.int(200, 30000);
		out = out ?? rng.int(5, 3000);
		const cacheRead = opts.cacheRead ?? (p.cache ? rng.choice([0, rng.int(0, 60000)]) : 0);
		const cacheWrite = opts.cacheWrite ?? (p.cache && (key === "anthropic" || key === "bedrock") ? rng.choice([0, rng.int(0, 5000)]) : 0);
		const [ri, ro, rcr, rcw] = p.rates;
		const cost = { input: (inp * ri) / 1e6, output: (out * ro) / 1e6, cacheRead: (cacheRead * rcr) / 1e6, cacheWrite: (cacheWrite * rcw) / 1e6 };
		cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
		const usage = { input: inp, output: out, cacheRead, cacheWrite, totalTokens: inp + out + cacheRead + cacheWrite, cost };
		if (this.v085) return usage;
		if (key === "openrouter" && rng.chance(0.7)) {
			cost.total = Math.round(cost.total * 1.05 * 1e6) / 1e6;
			cost.totalFromProvider = true;
		} else cost.totalFromProvider = false;
		if ((key === "openai" || key === "codex" || key === "deepseek") && rng.chance(0.7)) usage.reasoning = rng.int(0, out);
		if (key === "anthropic") usage.cacheWrite1h = rng.chance(0.8) ? 0 : rng.int(0, cacheWrite);
		return usage;
	}

	userMessage(text, { image = 0.08 } = {}) {
		const rng = this.rng;
		text = text ?? fmt(rng, rng.choice(USER_PROMPTS));
		let content;
		if (rng.chance(image)) content = [{ type: "text", text }, { type: "image", data: PNG_1X1, mimeType: "image/png" }];
		else content = this.v085 || rng.chance(0.3) ? text : [{ type: "text", text }];
		return { role: "user", content, timestamp: this.tick(2000, 90000) };
	}

	assistantContent({ thinking = false, text = true } = {}) {
		const rng = this.rng;
		const content = [];
		if (thinking && this.thinking !== "off") content.push(thinkingBlock(rng, this.profileKey, rng.choice(THINKING_TEXTS)));
		if (text) content.push(textBlock(rng, this.profileKey, fmt(rng, rng.choice(ASSISTANT_TEXTS))));
		return content;
	}

	toolCall(name) {
		const rng = this.rng;
		const available = this.toolNames;
		name = name ?? rng.weighted(available.map((n) => [n === "read" || n === "bash" ? 3 : 1, n]));
		const file = rng.choice(PROJECT_FILES);
		const args = {
			read: () => (rng.chance(0.7) ? { path: file } : { path: file, offset: rng.int(1, 80), limit: rng.choice([50, 200]) }),
			bash: () => ({ command: rng.choice(COMMANDS)[0] }),
			edit: () => ({ path: file, edits: [{ oldText: "attempts = 3", newText: "attempts = options.attempts ?? 3" }] }),
			write: () => ({ path: "tests/new.test.ts", content: "import { test } from 'vitest';\n\ntest('empty', () => {});\n" }),
			grep: () => ({ pattern: "TODO", path: "src", ignoreCase: true }),
			find: () => ({ pattern: "**/*.test.ts" }),
			ls: () => ({ path: rng.choice(["src", ".", "tests"]) }),
			github_search_issues: () => ({ repo: "acme/proj", query: "flaky retry", state: "open" }),
			web_fetch: () => ({ url: "https://nodejs.org/api/timers.html" }),
			todo: () => ({ action: "add", text: "write tests", id: null }),
			codemode: () => ({ code: "const files = await ls({ path: 'src' });\nreturn await read({ path: 'src/index.ts' });" }),
		}[name]();
		this.counter++;
		const call = { type: "toolCall", id: toolCallId(rng, this.profileKey, name, clock.ms, this.counter), name, arguments: args };
		if (this.profileKey === "google" && rng.chance(0.6)) call.thoughtSignature = rng.b64(rng.int(24, 60));
		if (!this.v085 && rng.chance(0.04)) {
			// The model's arguments were not a JSON object: pi-ai keeps the text in argumentsError.
			const sent = `{"path": "${file}", "limit": 50`;
			call.arguments = {};
			call.argumentsError = `Invalid JSON in tool call arguments: Unexpected end of JSON input. Arguments text: ${sent}`;
		}
		return call;
	}

	toolResult(call, forceError) {
		const rng = this.rng;
		const name = call.name;
		let isError = forceError ?? rng.chance(0.1);
		let details;
		let content;
		let nestedCalls;
		if (call.argumentsError) {
			isError = true;
			content = [{ type: "text", text: `Validation failed for tool "${name}":\n  - root: ${call.argumentsError}` }];
		} else if (isError) {
			content = [{ type: "text", text: rng.choice([`ENOENT: no such file or directory, open '${call.arguments.path ?? "x"}'`, "Command exited with code 1", "Could not find the exact text in the file."]) }];
		} else if (name === "read") {
			content = rng.chance(0.1) ? [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data: PNG_1X1, mimeType: "image/png" }] : [{ type: "text", text: snippetFor(call.arguments.path) }];
		} else if (name === "bash") {
			const out = COMMANDS.find(([c]) => c === call.arguments.command)?.[1] ?? "";
			content = [{ type: "text", text: out || "(no output)" }];
		} else if (name === "edit") {
			content = [{ type: "text", text: `Successfully replaced 1 block(s) in ${call.arguments.path}.` }];
			details = { diff: "-  attempts = 3\n+  attempts = options.attempts ?? 3", firstChangedLine: rng.int(1, 90) };
		} else if (name === "codemode") {
			content = [{ type: "text", text: snippetFor("src/index.ts") }];
			if (!this.v085) {
				const calls = [
					{ id: `nc_${rng.hex(8)}`, name: "ls", arguments: { path: "src" }, status: "ok", durationMs: rng.int(1, 30) },
					{ id: `nc_${rng.hex(8)}`, name: "read", arguments: { path: "src/index.ts" }, status: "ok", durationMs: rng.int(1, 30) },
				];
				if (rng.chance(0.4)) calls.push({ id: `nc_${rng.hex(8)}`, name: "bash", argumentsBytes: 70211, status: "error", durationMs: rng.int(1, 900), error: "Command exited with code 2" });
				if (rng.chance(0.2)) calls.push({ id: `nc_${rng.hex(8)}`, name: "grep", arguments: { pattern: "x" }, status: "unfinished" });
				nestedCalls = { calls, complete: calls.every((c) => c.status !== "unfinished" && c.arguments) };
			}
		} else if (name === "github_search_issues") {
			content = [{ type: "text", text: "#412 Flaky retry test on CI (open)\n#398 retry() ignores AbortSignal (closed)" }];
		} else {
			content = [{ type: "text", text: "src/index.ts\nsrc/server.ts\nsrc/utils/\nsrc/db/" }];
		}
		const durationMs = rng.int(3, 4000);
		const msg = { role: "toolResult", toolCallId: call.id, toolName: name, content };
		if (details) msg.details = details;
		if (nestedCalls) msg.nestedCalls = nestedCalls;
		if (this.v085 && name === "read" && rng.chance(0.1)) msg.addedToolNames = []; // 0.85 field, gone in 1.6
		msg.isError = isError;
		if (!this.v085) msg.durationMs = durationMs; // key order as Pi 1.6 writes it: isError, durationMs, timestamp
		msg.timestamp = this.tick(durationMs, durationMs + 20);
		return msg;
	}

	/** Request start -> response end: the assistant message as pi-ai finalises it (agent-loop adds thinkingLevel). */
	assistant(content, stopReason, { error, usage, model, key } = {}) {
		const rng = this.rng;
		key = key ?? this.profileKey;
		const p = PROFILES[key];
		const start = this.tick(100, 2000);
		const durationMs = rng.int(300, 40000);
		const msg = { role: "assistant", content, api: p.api, provider: p.provider, model: model ?? (key === this.profileKey ? this.model : p.models[0]) };
		msg.usage = usage ?? (stopReason === "error" ? this.usage(0, 0, { cacheRead: 0, cacheWrite: 0 }) : this.usage(undefined, undefined, { key }));
		msg.stopReason = stopReason;
		if (error) msg.errorMessage = error;
		msg.timestamp = start;
		if (stopReason !== "error" && stopReason !== "aborted") {
			const rid = responseId(rng, key);
			if (rid) msg.responseId = rid;
			if (key === "anthropic" && !this.v085 && rng.chance(0.7)) msg.responseModel = `${msg.model}-20250929`;
			if (!this.v085) msg.rawStopReason = RAW_STOP[key][stopReason] ?? stopReason;
		}
		clock.ms = start + durationMs;
		if (!this.v085) {
			msg.durationMs = durationMs;
			msg.thinkingLevel = this.thinking;
		}
		return msg;
	}

	append(message) {
		return this.sm.appendMessage(message);
	}

	// --- higher-level moves ------------------------------------------------------------------------------------
	/** One prompt: (system update) user -> (assistant tool calls -> results)* -> assistant answer. */
	turn({ tools = 0.6, rounds = 3, parallel = 0.3, thinking = 0.5, text, virtualState = 0.8, loadTools = 0, first } = {}) {
		const rng = this.rng;
		this.syncSystem();
		this.append(this.userMessage(text));
		this.routeVirtual(virtualState);
		const n = rng.chance(tools) ? rng.int(1, rounds) : 0;
		for (let r = 0; r < n; r++) {
			const content = this.assistantContent({ thinking: rng.chance(thinking), text: rng.chance(0.5) });
			const calls = [];
			for (let i = 0, k = rng.chance(parallel) ? rng.int(2, 3) : 1; i < k; i++) calls.push(this.toolCall(r === 0 && i === 0 ? first : undefined));
			const assistant = this.assistant([...content, ...calls], "toolUse", this.routedKey());
			this.append(assistant);
			for (const call of calls) this.append(this.toolResult(call));
			if (!this.v085 && rng.chance(loadTools)) this.loadExtensionTool();
		}
		this.append(this.assistant(this.assistantContent({ thinking: rng.chance(thinking) }), "stop", this.routedKey()));
	}

	/** A tool that loads more tools mid-run (an MCP connect): the agent loop declares them in a system message
	 * appended before the next request, after the results. */
	loadExtensionTool() {
		const missing = Object.keys(EXTENSION_TOOLS).filter((n) => !this.toolNames.includes(n));
		if (!missing.length) return;
		this.toolNames = [...this.toolNames, this.rng.choice(missing)];
		this.syncToolsOnly();
	}

	/** Only the tool delta (declareToolChanges with no pending prompt change): role, content, timestamp, tools. */
	syncToolsOnly() {
		if (this.v085) return;
		const messages = this.sm.buildSessionContext().messages;
		const changes = ai.getToolStateChanges(ai.getCurrentTools(messages), this.wantedTools());
		if (!changes.toolsAdded.length && !changes.toolsRemoved.length) return;
		this.tick(5, 30);
		const message = { role: "system", content: "", timestamp: clock.ms };
		if (changes.toolsAdded.length) message.toolsAdded = changes.toolsAdded;
		if (changes.toolsRemoved.length) message.toolsRemoved = changes.toolsRemoved;
		this.append(message);
	}

	routedKey() {
		return this.virtual ? { key: this.virtual.routedKey } : {};
	}

	/** Virtual model selected: the router's state is stored in a pi.virtual-model-state custom entry before the request. */
	routeVirtual(p) {
		if (!this.virtual || !this.rng.chance(p)) return;
		const v = this.virtual;
		v.routedKey = this.rng.choice(["anthropic", "openai", "google"]);
		v.turns += 1;
		this.tick(1, 20);
		this.sm.appendCustomEntry(pi.VIRTUAL_MODEL_STATE_ENTRY, {
			provider: v.provider,
			modelId: v.modelId,
			state: { lastRoute: `${PROFILES[v.routedKey].provider}/${PROFILES[v.routedKey].models[0]}`, turns: v.turns, budgetUsd: Math.round(this.rng.random() * 500) / 100 },
		});
	}

	/** Idle cache warming (cache-warmer.ts refresh): usage entries at the leaf, a few minutes apart. */
	cacheWarm(count) {
		if (this.v085) return;
		const rng = this.rng;
		const key = this.virtual?.routedKey ?? this.profileKey;
		const p = PROFILES[key];
		if (!p.cache) return; // warming only pays where the provider caches prompts
		for (let i = 0; i < count; i++) {
			clock.ms += rng.int(200000, 280000);
			const u = this.usage(rng.int(1, 12), 1, { key, cacheRead: rng.int(8000, 90000), cacheWrite: rng.chance(0.2) ? rng.int(1, 900) : 0 });
			const model = key === "anthropic" && rng.chance(0.6) ? `${this.model}-20250929` : key === this.profileKey ? this.model : p.models[0];
			this.sm.appendUsage("cache_warm", p.provider, model, u, rng.chance(0.1) ? "extension override" : undefined);
		}
	}

	/** Auto-retry after a transient error (_prepareRetry -> _omitRecoveryAttempt): the failed attempt stays in
	 * storage, a null context_edit hides it, then the retried response follows. */
	retryTurn() {
		const rng = this.rng;
		this.syncSystem();
		this.append(this.userMessage());
		this.routeVirtual(0.8);
		const failures = rng.int(1, 3);
		for (let i = 0; i < failures; i++) {
			const partial = rng.chance(0.3) ? this.assistantContent({ thinking: true, text: false }) : [];
			const id = this.append(this.assistant(partial, "error", { ...this.routedKey(), error: rng.choice([
				'529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
				'429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
				"Connection error.", "terminated", "500 Internal server error", "fetch failed",
			]) }));
			this.tick(1, 5);
			this.sm.appendContextEdit(id, null);
			clock.ms += 2000 * 2 ** i;
		}
		if (rng.chance(0.8)) this.append(this.assistant(this.assistantContent({ thinking: rng.chance(0.5) }), "stop", this.routedKey()));
	}

	/** Output-limit / context-overflow recovery: null edits for the attempt and its results, a compaction, a retry. */
	overflowRecovery() {
		const rng = this.rng;
		this.syncSystem();
		this.append(this.userMessage());
		const ids = [];
		if (rng.chance(0.5)) {
			const call = this.toolCall(this.toolNames.includes("write") ? "write" : "bash");
			ids.push(this.append(this.assistant([...this.assistantContent({ text: false, thinking: true }), call], "length", this.routedKey())));
			const r = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: "Tool call was not executed: the response hit the output token limit and its arguments may be truncated." }], isError: true, durationMs: 0, timestamp: this.tick(1, 10) };
			ids.push(this.append(r));
		} else {
			ids.push(this.append(this.assistant([], "error", { ...this.routedKey(), error: `prompt is too long: ${rng.int(200001, 260000)} tokens > 200000 maximum` })));
		}
		for (const id of ids) {
			this.tick(1, 5);
			this.sm.appendContextEdit(id, null);
		}
		this.compaction({ keep: 1 });
		this.append(this.assistant(this.assistantContent({ thinking: true }), "stop", this.routedKey()));
	}

	/** appendCompaction: systemMessage comes from the projection (Pi computes it); null = keep nothing. */
	compaction({ keep, keepNothing = false, fromHook, anywhere = false } = {}) {
		const rng = this.rng;
		let firstKept = null;
		if (anywhere) {
			// An extension's compaction (session_before_compact / a boundary draft) may keep from any entry of the
			// path, even one before an earlier compaction, which then sits inside the kept range.
			const messages = this.sm.getBranch().filter((e) => e.type === "message" && e.message.role === "user");
			firstKept = rng.choice(messages.slice(0, Math.max(1, messages.length - 1))).id;
			fromHook = true;
		} else if (!keepNothing) {
			const path = this.sm.getBranch();
			const lastComp = path.map((e) => e.type).lastIndexOf("compaction");
			const cut = path.slice(lastComp + 1).filter((e) => e.type === "message" && (e.message.role === "user" || (e.message.role === "assistant" && rng.chance(0.2))));
			if (cut.length) firstKept = cut[Math.max(0, cut.length - (keep ?? rng.int(1, 2)))].id;
			else firstKept = path[path.length - 1].id;
		}
		const details = rng.chance(0.7) ? { readFiles: rng.sample(PROJECT_FILES, 2), modifiedFiles: rng.sample(PROJECT_FILES, 1) } : undefined;
		const usage = rng.chance(0.6) ? this.usage(undefined, rng.int(300, 2000), { key: this.profileKey }) : undefined;
		clock.ms += rng.int(5000, 40000);
		return this.sm.appendCompaction(rng.choice(SUMMARIES), firstKept, rng.int(30000, 190000), details, fromHook ?? (keepNothing ? true : undefined), usage);
	}

	/** Extension context edits (_applyBoundaryDrafts): replace an earlier editable message's content. */
	extensionEdit() {
		const rng = this.rng;
		const branch = this.sm.getBranch();
		const editable = branch.filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
		if (!editable.length) return;
		// Mostly recent entries; sometimes an old one, or one an earlier edit already changed (the latest edit wins,
		// so a replacement can bring back an entry a null edit hid, and a null edit can hide a replaced one).
		const edited = new Set(branch.filter((e) => e.type === "context_edit").map((e) => e.targetId));
		const again = editable.filter((e) => edited.has(e.id));
		const target = again.length && rng.chance(0.3) ? rng.choice(again) : rng.choice(rng.chance(0.25) ? editable : editable.slice(-8));
		const role = target.type === "message" ? target.message.role : "custom";
		let replacement;
		if (rng.chance(0.15)) replacement = null;
		else if (role === "toolResult") replacement = { content: rng.choice(["[output trimmed by context-trimmer: 4200 lines]", [{ type: "text", text: "[image removed to save context]" }]]) };
		else if (role === "user") replacement = { content: rng.choice(["My API key is [REDACTED]; why does the request fail?", [{ type: "text", text: "(prompt shortened by extension)" }]]) };
		else if (role === "assistant") replacement = rng.chance(0.8) ? { content: "(earlier answer condensed)" } : null;
		else replacement = { content: rng.choice(["Plan mode is OFF.", [{ type: "text", text: "Reminder withdrawn." }]]) };
		this.tick(1, 50);
		this.sm.appendContextEdit(target.id, replacement);
	}

	bashExecution() {
		const rng = this.rng;
		const [command, output] = rng.choice(COMMANDS);
		const msg = { role: "bashExecution", command, output, exitCode: rng.choice([0, 0, 1]), cancelled: false, truncated: false, timestamp: this.tick(500, 30000) };
		if (rng.chance(0.2)) msg.excludeFromContext = true;
		this.append(msg);
	}

	customMessage() {
		const rng = this.rng;
		const type = rng.choice(["git-status", "plan-mode", "todo-reminder", "mcp-bridge"]);
		const text = rng.choice(["Working tree has 2 modified files.", "Plan mode is ON: do not edit files.", "Reminder: update the changelog."]);
		this.tick();
		this.sm.appendCustomMessageEntry(type, rng.chance(0.5) ? text : [{ type: "text", text }], rng.chance(0.6), rng.chance(0.5) ? { source: type } : undefined);
	}

	customEntry() {
		const rng = this.rng;
		this.tick(1, 100);
		this.sm.appendCustomEntry(rng.choice(["todo-state", "permission-gate"]), { items: [{ text: "write tests", done: rng.chance(0.5) }] });
	}

	switchModel() {
		const rng = this.rng;
		this.profileKey = rng.choice(Object.keys(PROFILES));
		this.model = rng.choice(this.profile.models);
		this.virtual = null;
		this.tick(100, 4000);
		this.sm.appendModelChange(this.profile.provider, this.model);
	}

	selectVirtual() {
		this.virtual = { provider: "router", modelId: this.rng.choice(["auto", "cheap-first"]), routedKey: this.profileKey, turns: 0 };
		this.tick(100, 4000);
		this.sm.appendModelChange(this.virtual.provider, this.virtual.modelId);
	}

	changeThinking() {
		this.thinking = this.rng.choice(THINKING_LEVELS.filter((l) => l !== this.thinking));
		this.tick(100, 3000);
		this.sm.appendThinkingLevelChange(this.thinking);
	}

	/** The loadout or the prompt changes (plan mode, /tools, an extension, AGENTS.md edited, skills installed...).
	 * Nothing is written now: the system message comes before the next request. */
	changeLoadout() {
		const rng = this.rng;
		const move = rng.choice(["plan", "add", "remove", "redefine", "addendum", "context", "custom"]);
		if (move === "plan" && this.toolNames.includes("edit")) {
			this.toolNames = this.toolNames.filter((n) => n !== "edit" && n !== "write");
			this.extra.addendum = "Plan mode is active: read and analyse, do not modify files.";
		} else if (move === "plan" || move === "add") {
			const missing = [...Object.keys(TOOL_FACTORIES), ...Object.keys(EXTENSION_TOOLS)].filter((n) => !this.toolNames.includes(n));
			if (missing.length) this.toolNames = [...this.toolNames, ...rng.sample(missing, rng.int(1, 2))];
			delete this.extra.addendum;
		} else if (move === "remove" && this.toolNames.length > 2) {
			this.toolNames = this.toolNames.filter((n) => n !== rng.choice(this.toolNames.slice(1)));
		} else if (move === "redefine") {
			const name = rng.choice(this.toolNames);
			this.toolVariant[name] = (this.toolVariant[name] ?? 0) + 1;
		} else if (move === "addendum") {
			this.extra.addendum = this.extra.addendum ? undefined : "Answer in British English.";
		} else if (move === "context") {
			this.extra.projectContext = this.extra.projectContext ? undefined : "- Use pnpm, not npm.\n- Tests live next to the code.";
		} else {
			this.extra.custom = { ...(this.extra.custom ?? {}), [rng.choice(["git", "reviewer"])]: rng.chance(0.8) ? `<git>\nbranch: feature/retry-${rng.int(1, 99)}\n</git>` : undefined };
		}
	}

	label() {
		const path = this.sm.getBranch();
		this.tick(100, 2000);
		this.sm.appendLabelChange(this.rng.choice(path).id, this.rng.choice(["checkpoint", "before refactor", "good state ✅", undefined]));
	}

	/** /tree: move the leaf to an earlier user message's parent (re-edit), optionally with a branch summary. */
	branchBack({ summary } = {}) {
		const rng = this.rng;
		const path = this.sm.getBranch();
		const users = path.filter((e) => e.type === "message" && e.message.role === "user");
		const target = users.length && rng.chance(0.85) ? rng.choice(users) : rng.choice(path);
		const from = target.parentId;
		this.tick(1000, 60000);
		if (summary ?? rng.chance(0.5)) {
			this.sm.branchWithSummary(from, rng.choice(SUMMARIES), rng.chance(0.5) ? { readFiles: rng.sample(PROJECT_FILES, 2), modifiedFiles: [] } : undefined, rng.chance(0.3) ? true : undefined, rng.chance(0.4) ? this.usage(undefined, 400) : undefined);
		} else if (from) this.sm.branch(from);
		else this.sm.resetLeaf();
	}

	leaves() {
		const entries = this.sm.getEntries();
		const parents = new Set(entries.map((e) => e.parentId));
		return entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
	}

	file() {
		return this.sm.getSessionFile();
	}

	/** Close and open the file again later (SessionManager.open, as `pi --session` / `--continue` do). */
	reopen() {
		const file = this.file();
		clock.ms += this.rng.int(600000, 86400000);
		this.sm = SessionManager.open(file, path.dirname(file));
		if (!this.sm.getBranch().some((e) => e.type === "thinking_level_change")) {
			this.tick(5, 30);
			this.sm.appendThinkingLevelChange(this.thinking);
		}
	}
}

// ------------------------------------------------------------------------------------------------------------
// Scenarios

function fresh(rng, scratch, options = {}) {
	if (rng.chance(0.15)) {
		// a fork (/fork, /clone): the header names the session it came from
		const ms = clock.ms - rng.int(3600000, 86400000 * 5);
		const stamp = new Date(ms).toISOString().replace(/[:.]/g, "-");
		options = { ...options, parentSession: `/home/dev/.pi/agent/sessions/--home-dev-proj--/${stamp}_${ai.uuidv7(ms)}.jsonl` };
	}
	const s = new Session(rng, scratch, options);
	if (options.virtual) {
		s.virtual = { provider: "router", modelId: "auto", routedKey: s.profileKey, turns: 0 };
	}
	s.setup();
	return s;
}

const SCENARIOS = {
	newsession(rng, scratch) {
		const s = fresh(rng, scratch);
		for (let i = rng.int(2, 5); i > 0; i--) {
			s.turn();
			if (rng.chance(0.35)) s.cacheWarm(rng.int(1, 3));
			if (rng.chance(0.2)) s.changeThinking();
			if (rng.chance(0.2)) s.reopen(); // `pi --continue` later: nothing is written until the next prompt
		}
		if (rng.chance(0.5)) s.cacheWarm(rng.int(1, 4)); // the leaf is a usage entry
		return s;
	},
	tools(rng, scratch) {
		const s = fresh(rng, scratch);
		for (let i = rng.int(3, 5); i > 0; i--) {
			s.turn({ tools: 0.95, rounds: 4, parallel: 0.5, loadTools: 0.25 });
			if (rng.chance(0.5)) s.changeLoadout();
		}
		if (!s.toolNames.includes("codemode")) s.toolNames = [...s.toolNames, "codemode"];
		s.turn({ tools: 1, rounds: 2, first: "codemode" }); // a codemode script: nestedCalls on its result
		return s;
	},
	retry(rng, scratch) {
		const s = fresh(rng, scratch);
		s.turn({ tools: 0.5 });
		for (let i = rng.int(2, 3); i > 0; i--) {
			if (rng.chance(0.6)) s.retryTurn();
			else s.overflowRecovery();
			if (rng.chance(0.6)) s.turn({ tools: 0.6 });
		}
		if (rng.chance(0.4)) {
			// aborted by the user (Escape): no retry, no edit
			s.syncSystem();
			s.append(s.userMessage());
			s.append(s.assistant(s.assistantContent({ text: true }), "aborted", { error: "Request was aborted" }));
			s.turn();
		}
		return s;
	},
	compaction(rng, scratch) {
		const s = fresh(rng, scratch);
		for (let round = rng.int(2, 3); round > 0; round--) {
			for (let i = rng.int(2, 3); i > 0; i--) {
				s.turn({ tools: 0.6 });
				if (rng.chance(0.3)) s.changeLoadout();
				if (rng.chance(0.25)) s.extensionEdit();
			}
			if (rng.chance(0.3)) s.syncSystem(); // a system message right before the compaction (kept range drops it)
			const extension = round === 1 && rng.chance(0.5);
			s.compaction({ keepNothing: !extension && rng.chance(0.3), anywhere: extension });
			if (rng.chance(0.3)) s.cacheWarm(1);
		}
		s.turn();
		if (rng.chance(0.4)) s.compaction({ keepNothing: rng.chance(0.5) }); // leaf on a compaction
		return s;
	},
	branching(rng, scratch) {
		const s = fresh(rng, scratch);
		for (let i = rng.int(2, 4); i > 0; i--) s.turn({ tools: 0.5 });
		for (let b = rng.int(2, 3); b > 0; b--) {
			if (rng.chance(0.4)) s.label();
			if (rng.chance(0.4)) s.changeLoadout(); // the new branch replays an older system state
			s.branchBack();
			for (let i = rng.int(1, 2); i > 0; i--) {
				s.turn({ tools: 0.5 });
				if (rng.chance(0.3)) s.extensionEdit();
				if (rng.chance(0.3)) s.cacheWarm(1);
			}
		}
		if (rng.chance(0.3)) {
			s.tick(1000, 5000);
			s.sm.resetLeaf(); // re-edit the very first prompt: a second root, which gets its own system message
			s.turn();
		}
		if (rng.chance(0.5)) {
			s.sm.branch(rng.choice(s.leaves())); // back to an older leaf: the file's last entry decides
			s.turn({ tools: 0.3 });
		}
		return s;
	},
	warm(rng, scratch) {
		const s = fresh(rng, scratch, { profile: rng.choice(["anthropic", "openai", "openrouter", "bedrock"]) });
		for (let i = rng.int(2, 4); i > 0; i--) {
			s.turn({ tools: 0.4 });
			s.cacheWarm(rng.int(1, 6));
		}
		if (rng.chance(0.5)) s.extensionEdit();
		return s;
	},
	/** Extensions that edit the context (a trimmer, a redactor, plan mode): replacements and omissions of user,
	 * assistant, tool-result and custom messages, edits of edited entries, and a compaction between them. */
	edits(rng, scratch) {
		const s = fresh(rng, scratch);
		for (let round = 2; round > 0; round--) {
			for (let i = rng.int(2, 3); i > 0; i--) {
				if (rng.chance(0.5)) s.customMessage();
				s.turn({ tools: 0.7, parallel: 0.4 });
				for (let k = rng.int(1, 2); k > 0; k--) s.extensionEdit();
			}
			if (round === 2) s.compaction({ keepNothing: rng.chance(0.2), keep: 2 });
		}
		if (rng.chance(0.4)) s.cacheWarm(1);
		return s;
	},
	virtual(rng, scratch) {
		const s = fresh(rng, scratch, { virtual: true });
		for (let i = rng.int(3, 5); i > 0; i--) {
			s.turn({ tools: 0.6, virtualState: 0.7 });
			if (rng.chance(0.3)) s.cacheWarm(1);
		}
		if (rng.chance(0.5)) {
			s.switchModel();
			s.turn();
		}
		return s;
	},
	mixed(rng, scratch) {
		const s = fresh(rng, scratch);
		if (rng.chance(0.3)) s.selectVirtual();
		const moves = [
			[5, () => s.turn({ tools: 0.6, parallel: 0.4, loadTools: 0.1 })],
			[1, () => s.switchModel()],
			[0.6, () => s.selectVirtual()],
			[1, () => s.changeThinking()],
			[1, () => s.changeLoadout()],
			[1, () => s.bashExecution()],
			[1, () => s.customMessage()],
			[0.5, () => s.customEntry()],
			[0.5, () => s.label()],
			[0.4, () => { s.tick(); s.sm.appendSessionInfo(rng.choice(["Fix retry tests", "Refactor cache"])); }],
			[0.8, () => s.retryTurn()],
			[0.4, () => s.overflowRecovery()],
			[0.7, () => s.compaction({ keepNothing: rng.chance(0.25) })],
			[0.8, () => s.extensionEdit()],
			[0.8, () => s.cacheWarm(rng.int(1, 2))],
			[0.7, () => s.branchBack()],
		];
		for (let i = rng.int(8, 14); i > 0; i--) rng.weighted(moves)();
		s.turn();
		if (rng.chance(0.3)) s.cacheWarm(1);
		return s;
	},
	/** A session Pi 0.85 wrote, resumed by Pi 1.6 (SessionManager.open): a thinking_level_change when the branch
	 * has none, then one full system message before the next user message, then 1.6 as usual. */
	resumed085(rng, scratch) {
		const s = new Session(rng, scratch, { v085: true });
		s.tick(5, 40);
		s.sm.appendModelChange(s.profile.provider, s.model);
		const hadThinking = rng.chance(0.5);
		if (hadThinking) s.sm.appendThinkingLevelChange(s.thinking);
		for (let i = rng.int(2, 4); i > 0; i--) {
			s.turn({ tools: 0.6 });
			if (rng.chance(0.2)) s.bashExecution();
		}
		if (rng.chance(0.4)) s.compaction(); // a 0.85 compaction: no systemMessage
		if (rng.chance(0.3)) {
			s.branchBack({ summary: true });
			s.turn();
		}
		clock.ms += rng.int(86400000, 86400000 * 30); // days later, with Pi 1.6
		s.v085 = false;
		s.reopen();
		for (let i = rng.int(1, 3); i > 0; i--) {
			s.turn({ tools: 0.6 });
			if (rng.chance(0.3)) s.cacheWarm(1);
			if (rng.chance(0.2)) s.retryTurn();
		}
		if (rng.chance(0.4)) {
			s.compaction({ keepNothing: rng.chance(0.3) });
			s.turn();
		}
		return s;
	},
};

const ORDER = ["newsession", "tools", "retry", "compaction", "branching", "resumed085", "edits", "warm", "mixed", "virtual", "mixed", "branching", "compaction", "resumed085"];

// ------------------------------------------------------------------------------------------------------------

function parseArgs(argv) {
	const opts = { seed: 1, count: 40, out: undefined, prefix: "g16_" };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const value = () => {
			if (i + 1 >= argv.length) usage(`${arg} needs a value`);
			return argv[++i];
		};
		if (arg === "--seed") opts.seed = Number(value());
		else if (arg === "--count") opts.count = Number(value());
		else if (arg === "--out") opts.out = value();
		else if (arg === "--prefix") opts.prefix = value();
		else if (arg === "-h" || arg === "--help") usage();
		else usage(`unknown argument: ${arg}`);
	}
	if (!opts.out) usage("--out DIR is required");
	if (!Number.isInteger(opts.seed) || opts.seed < 0) usage("--seed must be a non-negative integer");
	if (!Number.isInteger(opts.count) || opts.count < 1) usage("--count must be a positive integer");
	return opts;
}

function usage(message) {
	if (message) console.error(`gen_corpus16: ${message}`);
	console.error("usage: node gen_corpus16.mjs --seed N --count N --out DIR [--prefix g16_]");
	process.exit(message ? 2 : 0);
}

function main() {
	const opts = parseArgs(process.argv.slice(2));
	fs.mkdirSync(opts.out, { recursive: true });
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gen16-"));
	const master = new Rng(opts.seed);
	idRng = new Rng(master.u32());
	clock.ms = 1_790_000_000_000 + (master.u32() % 2_000_000) * 1000;
	try {
		for (let i = 0; i < opts.count; i++) {
			const name = ORDER[i % ORDER.length];
			const rng = new Rng(master.u32());
			clock.ms += rng.int(3600000, 86400000 * 2); // sessions start later and later (uuidv7 ids stay monotonic)
			const session = SCENARIOS[name](rng, scratch);
			const file = session.file();
			const target = path.join(opts.out, `${opts.prefix}${String(i).padStart(3, "0")}_${name}.jsonl`);
			fs.copyFileSync(file, target);
			fs.rmSync(file);
		}
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
	console.error(`wrote ${opts.count} sessions to ${opts.out}`);
}

main();
