// Ask Pi itself for the system prompt and tool definitions it sends from a working directory.
//
// Usage: node scripts/pi_prompt.mjs ORACLE_DIR CWD AGENT_DIR
//   ORACLE_DIR  an oracle folder whose node_modules holds that Pi version (/tmp/oracle for 0.85, /tmp/oracle16 for 1.6)
//   CWD         the working directory the session runs in (Pi reads AGENTS.md/CLAUDE.md walking up from it)
//   AGENT_DIR   Pi's agent folder (an empty one: no global AGENTS.md, settings, skills or extensions)
// PI_PACKAGE_DIR in the environment is where Pi says its docs are installed.
// Prints {"systemPrompt": ..., "tools": [{name, description, parameters}]}: what Pi's agent holds after
// createAgentSession, i.e. what it hands pi-ai's streamSimple as context.systemPrompt and context.tools.
// Used by scripts/regen_pi_prompt.py (the data files and goldens) and tests/providers/test_pi_prompt.py.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [oracle, cwd, agentDir] = process.argv.slice(2);
const entry = path.join(oracle, "node_modules/@earendil-works/pi-coding-agent/dist/index.js");
const { createAgentSession, SessionManager, SettingsManager } = await import(pathToFileURL(entry).href);
const { session } = await createAgentSession({
	cwd,
	agentDir,
	sessionManager: SessionManager.inMemory(cwd),
	settingsManager: SettingsManager.inMemory(),
});
const tools = session.agent.state.tools.map((tool) => ({
	name: tool.name,
	description: tool.description,
	parameters: tool.parameters,
}));
process.stdout.write(JSON.stringify({ systemPrompt: session.systemPrompt, tools }));
