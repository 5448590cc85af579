// Records pi-ai 1.6's transcript functions on cases.json: node record.mjs cases.json PI_AI_1_6_DIST/index.js > node_answers.json
import fs from "node:fs";
const ai = await import(process.argv[3]);
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = cases.map(({messages}) => ({
  current: ai.getCurrentSystemMessage(messages) ?? null,
  prompt: ai.getCurrentSystemPrompt(messages),
  collapsed: ai.collapseSystemMessages({messages}).messages,
  tools: ai.getCurrentTools(messages),
  declared: ai.getDeclaredTools(messages),
  none: ai.resolveTranscriptTools(messages, "none"),
  additions: ai.resolveTranscriptTools(messages, "additions"),
  changes: ai.resolveTranscriptTools(messages, "changes"),
  updates: messages.filter(m=>m.role==="system").map(m=>ai.renderSystemMessageUpdate(m)),
  texts: messages.filter(m=>m.role==="system").map(m=>ai.getSystemMessageText(m)),
}));
process.stdout.write(JSON.stringify(out));
