"""The sessions of the Pi 1.6 openai-completions expectations (run: python sessions.py, writes *.jsonl here).

Their assistant turns are moonshotai/kimi-k3's (a model that keeps system messages and tool additions in place),
so the other targets see a cross-model transcript: thinking dropped, tool-call ids normalised.
"""
import json
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
T = "2026-12-02T16:52:59.5{:02d}Z"
IMG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
def tool(name, desc, props=None, req=None):
    return {"name": name, "description": desc, "parameters": {"type": "object", "properties": props or {"x": {"type": "string"}}, "required": req or ["x"]}}
def usage():
    return {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
def session(name, msgs):
    lines = [{"type": "session", "version": 3, "id": str(uuid.uuid5(uuid.NAMESPACE_DNS, name)), "timestamp": T.format(0), "cwd": "/tmp/x"}]
    parent = None
    for i, m in enumerate(msgs):
        eid = f"e{i:07d}"
        lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": T.format(i % 99), "message": m})
        parent = eid
    with open(HERE / f"{name}.jsonl", "w") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
def asst(content, provider="moonshotai", model="kimi-k3", api="openai-completions", stop="toolUse"):
    return {"role": "assistant", "content": content, "api": api, "provider": provider, "model": model, "usage": usage(), "stopReason": stop, "timestamp": 1796230000000}
ts = 1796230000000
def sysmsg(content="", sections=None, added=None, removed=None):
    m = {"role": "system", "content": content}
    if sections is not None:
        m["sections"] = sections
    if added:
        m["toolsAdded"] = added
    if removed:
        m["toolsRemoved"] = removed
    m["timestamp"] = ts
    return m
def user(content): return {"role": "user", "content": content, "timestamp": ts}
def result(cid, name, content, err=False): return {"role": "toolResult", "toolCallId": cid, "toolName": name, "content": content, "isError": err, "timestamp": ts}

# 1. system messages mid-conversation, tool additions/removals, empty text parts, blank tool output, images
session("s1_midconvo", [
    sysmsg("", {"preamble": "You are pi.", "cwd": "<cwd>/tmp/x</cwd>"}, [tool("bash", "Run bash"), tool("read", "Read a file")]),
    user([{"type": "text", "text": ""}, {"type": "text", "text": "look at this"}, {"type": "image", "data": IMG, "mimeType": "image/png"}]),
    asst([{"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning_content"}, {"type": "text", "text": "ok"}, {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"x": "ls"}}]),
    result("call_1", "bash", [{"type": "text", "text": "   \n  "}]),
    asst([{"type": "toolCall", "id": "call_2", "name": "read", "arguments": {"x": "a.png"}}, {"type": "toolCall", "id": "call_3", "name": "read", "arguments": {"x": "b"}}]),
    result("call_2", "read", [{"type": "text", "text": " "}, {"type": "image", "data": IMG, "mimeType": "image/png"}]),
    sysmsg("", {"cwd": "<cwd>/tmp/y</cwd>"}, [tool("write", "Write a file")]),
    result("call_3", "read", []),
    user([{"type": "text", "text": ""}]),
    user("next"),
    asst([{"type": "text", "text": "   "}, {"type": "text", "text": "done"}], stop="stop"),
    sysmsg("Extra note.", {"preamble": None}, None, [{"name": "bash"}]),
    user("and now"),
    asst([{"type": "toolCall", "id": "call_4", "name": "write", "arguments": {"x": "y"}}]),
    result("call_4", "write", [{"type": "text", "text": "written"}]),
    sysmsg("", None, [tool("bash", "Run bash again")]),
    user("final"),
])

# 2. a foreign model's history (thinking dropped), no mid system messages
session("s2_foreign", [
    sysmsg("You are pi.", None, [tool("bash", "Run bash")]),
    user("hi"),
    asst([{"type": "thinking", "thinking": "secret", "thinkingSignature": "sig"}, {"type": "text", "text": "hello"}, {"type": "toolCall", "id": "toolu_01|item_abcdefghijklmnopqrstuvwxyz0123456789", "name": "bash", "arguments": {"x": "pwd"}}], provider="anthropic", model="claude-sonnet-4-5", api="anthropic-messages"),
    result("toolu_01|item_abcdefghijklmnopqrstuvwxyz0123456789", "bash", [{"type": "text", "text": ""}]),
    asst([{"type": "thinking", "thinking": ""}, {"type": "text", "text": ""}], provider="anthropic", model="claude-sonnet-4-5", api="anthropic-messages", stop="stop"),
    user([{"type": "text", "text": "again"}]),
])

# 3. only tool history, no tools left (tools: [] only where required)
session("s3_notools", [
    sysmsg("You are pi.", None, [tool("bash", "Run bash")]),
    user("hi"),
    asst([{"type": "toolCall", "id": "call_9", "name": "bash", "arguments": {"x": "pwd"}}]),
    result("call_9", "bash", [{"type": "text", "text": "/"}]),
    sysmsg("", None, None, [{"name": "bash"}]),
    user("bye"),
])

# 4. ends with a system message (Copilot's initiator), image in user
session("s4_trailing_system", [
    sysmsg("You are pi.", None, [tool("bash", "Run bash")]),
    user([{"type": "text", "text": "hi"}, {"type": "image", "data": IMG, "mimeType": "image/png"}]),
    asst([{"type": "text", "text": "hello"}], stop="stop"),
    user("go"),
    sysmsg("", {"extra": "More rules."}, [tool("read", "Read")]),
])
# 5. a system message held between a tool call and its results; an orphan call
session("s5_held", [
    sysmsg("You are pi.", None, [tool("bash", "Run bash")]),
    user("hi"),
    asst([{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"x": "1"}}, {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"x": "2"}}]),
    sysmsg("", {"extra": "Between."}, [tool("read", "Read")]),
    result("c1", "bash", [{"type": "text", "text": "one"}]),
    user("next"),
])
