"""`pi-tools export --pi 1.6`: system messages (prompt sections, tools), a compaction's system message, usage and
context_edit entries, and what context edits did, in transcripts and in the chat projection; exact outputs for
sessions of tests/data/pi16."""

from __future__ import annotations

import json
from typing import Any

CASES = "tests/data/pi16/cases"

E06_MD = '''\
# q1

- session: `edge-1`
- started: 2026-12-01 00:00:00 UTC
- directory: `/tmp/x`
- models: anthropic/claude-sonnet-4-5
- messages: 9 in the session; on the path shown: 3 user, 2 assistant, 1 compaction
- tool calls: 0
- tokens: ↑2 ↓2
- cost: $0.0000 for the session, as `pi-tools usage` counts it; stored on the path shown: $0.000
- shown: the active path to u3

> **Not in the model's context: history a later compaction summarised**

### System prompt · 2026-12-01 00:00:52 UTC · *not in context* · `s1`


**Prompt section `a`**

A


> **The model's context resumes here**

### User · 2026-12-01 00:00:53 UTC · `u1`


q1

### Assistant · anthropic/claude-sonnet-4-5 · ↑1 ↓1 · $0.0000 · 2026-12-01 00:00:54 UTC · `a1`

r1

> **Not in the model's context: history a later compaction summarised**

### System prompt · 2026-12-01 00:00:55 UTC · *not in context* · `s2`


**Prompt section `a`**

A2


> **The model's context resumes here**

### User · 2026-12-01 00:00:56 UTC · `u2`


q2

### Assistant · anthropic/claude-sonnet-4-5 · ↑1 ↓1 · $0.0000 · 2026-12-01 00:00:57 UTC · `a2`

r2

### Compaction · 2026-12-01 00:00:58 UTC · `k1`


*compacted from 10 tokens; the model's context keeps entries from `u1` on*

SUM

*sent before the summary, as the system prompt:*

**Prompt section `preamble`**

P


### System prompt · 2026-12-01 00:00:59 UTC · `s3`


**Prompt section `b`**

B


### User · 2026-12-01 00:00:00 UTC · `u3`


q3

'''


def test_markdown_shows_system_messages_and_the_compactions_system_prompt(cli: Any) -> None:
    run = cli("export", "--pi", "1.6", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "md")
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == E06_MD


def test_markdown_says_what_context_edits_did(cli: Any) -> None:
    run = cli("export", "--pi", "1.6", f"{CASES}/e05_comp_edits.jsonl", "-o", "-", "--format", "md")
    assert run.code == 0
    start = run.stdout.index("### Assistant · anthropic/claude-sonnet-4-5 · ↑1 ↓1 · $0.0000 · 2026-12-01 00:00:44")
    assert run.stdout[start:run.stdout.index("### Compaction")] == """\
### Assistant · anthropic/claude-sonnet-4-5 · ↑1 ↓1 · $0.0000 · 2026-12-01 00:00:44 UTC · `a2`

*the model is sent instead (context edit x1): edit in kept range*

r2

*context edit: replaces what the model is sent of a2: edit in kept range · 2026-12-01 00:00:45 UTC* `x1`

### User · 2026-12-01 00:00:46 UTC · `u3`

*not in the model's context: removed by context edit x3*


q3

"""
    assert "*context edit: removes u3 from the model's context · 2026-12-01 00:00:49 UTC* `x3`" in run.stdout
    usage = cli("export", "--pi", "1.6", f"{CASES}/e03_multi.jsonl", "-o", "-", "--format", "md").stdout
    assert "*usage: cache\\_warm anthropic/claude-sonnet-4-5 · ↑1 ↓1 · $0.0000 · 2026-12-01 00:00:32 UTC* `g1`" in usage


def test_html_shows_the_same(cli: Any) -> None:
    run = cli("export", "--pi", "1.6", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "html")
    assert run.code == 0
    assert '<article class="msg summary system" id="entry-s3">' in run.stdout
    assert '<details class="json"><summary>Prompt section b (1 line)</summary><div class="prose">B</div></details>' \
        in run.stdout
    assert "<summary>System prompt sent before the summary</summary>" in run.stdout


def test_chat_has_system_messages_and_edits_in_metadata(cli: Any) -> None:
    edits = cli("export", "--pi", "1.6", f"{CASES}/e05_comp_edits.jsonl", "-o", "-", "--format", "chat")
    assert edits.code == 0
    assert [json.loads(line) for line in edits.stdout.splitlines()] == [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "q1"}], "createdAt": 1039,
         "metadata": {"inContext": False}},
        {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "r1"}], "createdAt": 1040,
         "metadata": {"inContext": False}},
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "q2"}], "createdAt": 1042},
        {"id": "a2", "role": "assistant", "parts": [{"type": "text", "text": "r2"}], "createdAt": 1043,
         "metadata": {"contextEdit": {"by": "x1", "content": [{"type": "text", "text": "edit in kept range"}]}}},
        {"id": "u3", "role": "user", "parts": [{"type": "text", "text": "q3"}], "createdAt": 1045,
         "metadata": {"inContext": False, "contextEdit": {"by": "x3"}}},
        {"id": "k1", "role": "user", "parts": [{"type": "data-compactionSummary",
                                                "data": {"summary": "SUM", "tokensBefore": 10}}],
         "createdAt": 1796083247000},
        {"id": "u4", "role": "user", "parts": [{"type": "text", "text": "q4"}], "createdAt": 1049},
    ]
    system = cli("export", "--pi", "1.6", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "chat")
    assert system.stdout.splitlines()[-4:] == [
        '{"id":"k1","role":"system","parts":[{"type":"data-system","data":{"sections":{"preamble":"P"}}}],'
        '"createdAt":5}',
        '{"id":"k1-1","role":"user","parts":[{"type":"data-compactionSummary","data":{"summary":"SUM",'
        '"tokensBefore":10}}],"createdAt":1796083258000}',
        '{"id":"s3","role":"system","parts":[{"type":"data-system","data":{"sections":{"b":"B"}}}],'
        '"createdAt":1058}',
        '{"id":"u3","role":"user","parts":[{"type":"text","text":"q3"}],"createdAt":1059}',
    ]


def test_085_exports_16_files_as_before(cli: Any) -> None:
    """Under 0.85 a system message is an unknown role and 1.6's entries unknown entry types, as before."""
    run = cli("export", "--pi", "0.85", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "chat")
    assert '"type":"data-unknownRole"' in run.stdout and '"id":"s3","role":"system"' not in run.stdout
    assert run.stdout == cli("export", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "chat",
                             env={"PI_TOOLS_PI": "0.85"}).stdout
    newest = cli("export", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format", "chat", env={"PI_TOOLS_PI": ""})
    assert newest.stdout == cli("export", "--pi", "1.6", f"{CASES}/e06_comp_sys.jsonl", "-o", "-", "--format",
                                "chat").stdout != run.stdout  # no choice: the newest
