"""The transcript's reading-order model: what a person reads, entry by entry, for the Markdown and HTML exports.

Pi's own `export-html` shows one path of the tree at a time: user text and images, assistant text, thinking and
tool calls with their results (per tool: a bash command, a file path with its content or diff, else the
arguments as JSON), bash executions, custom messages Pi displays, compaction and branch summaries, model changes,
the session's totals (messages, tool calls, tokens, cost), with timestamps. This model shows the same, plus what
a single path cannot: each turn's model, tokens and cost; history that an earlier compaction hid from the model
(marked, not dropped); and with `branches="all"` the whole tree, abandoned branches as groups at the point they
left the active conversation, so every entry of the file is shown exactly once.

The model is plain dicts and lists (the templates only lay it out); filters (`--no-tools`, `--only`, ...) work
on it after it is built, so they can only remove what they name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from pi_tools.js.values import js_to_string, js_truthy
from pi_tools.messages.roles import default_registry
from pi_tools.output.words import counted
from pi_tools.session.context import PI_085_RULES, ContextError, ContextRules
from pi_tools.session.tree import PI_085_VOCABULARY, PathCycleError, SessionTree, Vocabulary

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

Item = dict[str, Any]
LONG_LINES = 20
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n\r")
ONLY = ("user", "assistant")
_UTC_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z")
BRANCHES = ("active", "all")


@dataclass
class TranscriptOptions:
    """What to show: which part of the tree, and what to leave out."""

    leaf: str | None = None
    branches: str = "active"
    tools: bool = True
    thinking: bool = True
    only: str | None = None
    pi: PiVersion | None = None
    """The Pi version whose context the transcript marks (None: Pi 0.85's)."""


# --- small formatters -----------------------------------------------------------------------------------------


def format_tokens(count: Any) -> str:
    """1234 → 1.2k, 56789 → 57k, 1.2M (as Pi's export shows token counts)."""
    if isinstance(count, bool) or not isinstance(count, (int, float)) or count != count:
        return "0"
    if count < 1000:
        return str(int(count))
    if count < 10000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def format_time(entry: Any, message: Any = None) -> str:
    """The entry's ISO timestamp as `YYYY-MM-DD HH:MM:SS UTC`; the message's epoch milliseconds otherwise."""
    stamp = entry.get("timestamp") if isinstance(entry, dict) else None
    if isinstance(stamp, str) and _UTC_STAMP.fullmatch(stamp):
        return f"{stamp[:10]} {stamp[11:19]} UTC"  # what Pi writes: no parsing needed
    if isinstance(stamp, str):
        try:
            moment = datetime.fromisoformat(stamp)
        except ValueError:
            moment = None
        if moment is not None:
            if moment.tzinfo is not None:
                moment = moment.astimezone(UTC)
            return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    millis = message.get("timestamp") if isinstance(message, dict) else None
    if isinstance(millis, (int, float)) and not isinstance(millis, bool) and millis == millis:
        try:
            return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        except (OverflowError, OSError, ValueError):
            pass
    return stamp if isinstance(stamp, str) else ""


def shorten_path(path: Any) -> str:
    """Home directories as `~` (as Pi's export shows paths)."""
    text = path if isinstance(path, str) else ""
    for root in ("/Users/", "/home/"):
        if text.startswith(root):
            rest = text[len(root):]
            slash = rest.find("/")
            if slash > 0:
                return "~" + rest[slash:]
    return text


def pretty_json(value: Any) -> str:
    """Indented JSON (orjson: the standard library indents in pure Python, ten times slower)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):
        pass
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return js_to_string(value)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float:
    kind = type(value)
    if kind is int:  # what sessions hold: the plain types first (called for every token count and price)
        return float(value)
    if kind is float:
        return value if value == value else 0.0
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value else 0.0


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [js_to_string(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text"]


def _images(content: Any) -> list[dict[str, Any]]:
    """Image blocks as {mime, data, bytes, inline}: only well-formed base64 of common types is ever inlined."""
    images: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return images
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "image":
            continue
        data = _str(block.get("data"))
        mime = _str(block.get("mimeType"))
        inline = mime in IMAGE_TYPES and bool(data) and _is_base64(data)
        images.append({"mime": mime, "data": data if inline else "", "bytes": len(data) * 3 // 4, "inline": inline})
    return images


def _is_base64(data: str) -> bool:
    return data.isascii() and not set(data.encode("ascii")) - _BASE64_CHARS


def text_body(text: str) -> dict[str, Any]:
    """A block of text with its line count, so long ones can be collapsed."""
    lines = text.count("\n") + 1 if text else 0
    end = text.find("\n", 0, 121)
    return {"text": text, "lines": lines, "long": lines > LONG_LINES, "first": text[:end if 0 <= end < 120 else 120]}


# --- items ------------------------------------------------------------------------------------------------------


def _skill(text: str) -> dict[str, str] | None:
    """Pi's skill invocation (`<skill name=".." location="..">\\n...\\n</skill>` then the user's words)."""
    if not text.startswith("<skill name=\""):
        return None
    head_end = text.find(">\n")
    close = text.find("\n</skill>", head_end)
    if head_end < 0 or close < 0:
        return None
    head = text[:head_end]
    name_end = head.find('"', 13)
    if name_end < 0 or '" location="' not in head[name_end:]:
        return None
    rest = text[close + len("\n</skill>"):]
    if rest and not rest.startswith("\n\n"):
        return None
    return {"name": head[13:name_end], "content": text[head_end + 2:close], "message": rest.strip()}


def _tool_summary(name: str, args: Any) -> str:
    """The one-line form Pi's export gives a call of its built-in tools (path and lines, command, pattern)."""
    args = args if isinstance(args, dict) else {}
    if name in ("read", "write", "edit"):
        path = shorten_path(args.get("file_path", args.get("path")))
        if name == "read" and ("offset" in args or "limit" in args):
            start = args.get("offset") if isinstance(args.get("offset"), int) else 1
            end = f"-{start + args['limit'] - 1}" if isinstance(args.get("limit"), int) else ""
            path += f":{start}{end}"
        return path
    if name == "bash":
        return f"$ {js_to_string(args.get('command', ''))}"
    if name == "ls":
        return shorten_path(args.get("path") or ".")
    if name in ("grep", "find"):
        return f"{js_to_string(args.get('pattern', ''))} in {shorten_path(args.get('path') or '.')}"
    return ""


def _tool_call(block: dict[str, Any]) -> Item:
    name = js_to_string(block.get("name"))
    args = block.get("arguments")
    call: Item = {"kind": "tool", "name": name, "id": js_to_string(block.get("id")), "summary": _tool_summary(name, args),
                  "code": None, "args": None, "result": None}
    arguments = args if isinstance(args, dict) else {}
    if name == "bash" and isinstance(arguments.get("command"), str):
        call["code"] = text_body(arguments["command"])
    elif name == "write" and isinstance(arguments.get("content"), str):
        call["code"] = text_body(arguments["content"])
    elif name not in ("read", "ls", "edit") or not arguments:
        call["args"] = text_body(pretty_json(args if args is not None else {}))
    elif name == "edit":
        call["args"] = text_body(pretty_json(args))
    return call


def tool_result(entry: dict[str, Any], message: dict[str, Any]) -> Item:
    """A tool result as shown beside its call: text, images, and an edit's diff when its details hold one."""
    details = message.get("details")
    diff = details.get("diff") if isinstance(details, dict) and isinstance(details.get("diff"), str) else None
    return {
        "entryId": js_to_string(entry.get("id", "")), "time": format_time(entry, message), "label": None,
        "isError": message.get("isError") is True, "body": text_body("\n".join(_text_blocks(message.get("content")))),
        "images": _images(message.get("content")),
        "diff": [{"kind": "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx", "text": line}
                 for line in diff.split("\n")] if diff is not None else None,
    }


def _attach_result(call: Item, result: Item) -> None:
    call["result"] = result
    if result["diff"] is not None and call["name"] == "edit":
        call["args"] = None  # the diff shows the change; Pi's export shows it instead of the arguments


def _usage(message: dict[str, Any]) -> dict[str, Any] | None:
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    cost = _dict(usage.get("cost"))
    parts = [f"{mark}{format_tokens(usage.get(key))}" for mark, key in
             (("↑", "input"), ("↓", "output"), ("R", "cacheRead"), ("W", "cacheWrite")) if _number(usage.get(key))]
    total = _number(cost.get("total")) if "total" in cost else sum(
        (_number(cost.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")), 0.0)
    return {"tokens": " ".join(parts) or "0 tokens", "cost": f"${total:.4f}"}


def system_view(message: dict[str, Any]) -> Item:
    """Pi 1.6's system message as a reader sees it: its text, each prompt section it sets (by name), and the
    tools it adds (names) and removes."""
    sections = message.get("sections")
    return {
        "kind": "system", "body": text_body("\n".join(_text_blocks(message.get("content")))),
        "sections": [{"name": js_to_string(name), "body": text_body(js_to_string(text))}
                     for name, text in sections.items()] if isinstance(sections, dict) else [],
        "toolsAdded": _tool_names(message.get("toolsAdded")), "toolsRemoved": _tool_names(message.get("toolsRemoved")),
    }


def _tool_names(tools: Any) -> list[str]:
    if not isinstance(tools, list):
        return []
    return [js_to_string(tool.get("name")) if isinstance(tool, dict) else js_to_string(tool) for tool in tools]


def _message_item(entry: dict[str, Any], message: Any, roles: frozenset[str] = frozenset()) -> Item:
    base: Item = {"id": js_to_string(entry.get("id", "")), "time": format_time(entry, message), "notes": []}
    if not isinstance(message, dict):
        return {**base, "kind": "unknown", "what": "message", "preview": None,
                "body": text_body(pretty_json(message))}
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        texts = "\n".join(_text_blocks(content))
        skill = _skill(texts)
        return {**base, "kind": "user", "body": text_body(skill["message"] if skill else texts),
                "skill": skill, "images": _images(content)}
    if role == "assistant":
        blocks: list[Item] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                text = js_to_string(block.get("text"))
                if text.strip():
                    blocks.append({"kind": "text", "body": text_body(text)})
            elif kind == "thinking":
                thought = _str(block.get("thinking"))
                if thought.strip() or block.get("redacted"):
                    blocks.append({"kind": "thinking", "body": text_body(thought), "redacted": bool(block.get("redacted"))})
            elif kind == "toolCall":
                blocks.append(_tool_call(block))
            elif kind == "image":
                blocks.append({"kind": "images", "images": _images([block])})
        provider, model = message.get("provider"), message.get("model")
        stop = message.get("stopReason")
        return {**base, "kind": "assistant", "blocks": blocks,
                "model": "/".join(js_to_string(v) for v in (provider, model) if isinstance(v, str)) or None,
                "usage": _usage(message), "stopReason": js_to_string(stop) if stop is not None else None,
                "error": (message["errorMessage"] if isinstance(message.get("errorMessage"), str) else "")
                if stop in ("error", "aborted") else None}
    if role == "toolResult":
        call: Item = {"kind": "tool", "name": js_to_string(message.get("toolName")), "id": js_to_string(
            message.get("toolCallId")), "summary": "", "code": None, "args": None, "result": None}
        _attach_result(call, tool_result(entry, message))
        return {**base, "kind": "tool_result", "call": call}
    if role == "bashExecution":
        exit_code = message.get("exitCode")
        return {**base, "kind": "bash", "command": js_to_string(message.get("command")),
                "body": text_body(js_to_string(message.get("output", ""))),
                "exitCode": exit_code if isinstance(exit_code, (int, float)) and not isinstance(exit_code, bool) else None,
                "cancelled": message.get("cancelled") is True, "truncated": message.get("truncated") is True,
                "notes": _role_notes(message)}
    if role == "custom":
        return {**base, "kind": "custom", "customType": js_to_string(message.get("customType")),
                "body": text_body("\n".join(_text_blocks(content))), "images": _images(content),
                "notes": _role_notes(message), "displayed": js_truthy(message.get("display"))}
    if role == "branchSummary":
        return {**base, "kind": "branch_summary", "body": text_body(js_to_string(message.get("summary"))),
                "fromId": js_to_string(message.get("fromId")) if "fromId" in message else None}
    if role == "compactionSummary":
        return {**base, "kind": "compaction", "body": text_body(js_to_string(message.get("summary"))),
                "tokensBefore": format_tokens(message.get("tokensBefore")), "firstKept": None}
    if type(role) is str and role in roles:  # a role of pi-ai the version knows beside the registry's: system
        return {**base, **system_view(message)}
    spec = default_registry().get(role)
    preview = spec.preview(message) if spec is not None else None
    return {**base, "kind": "unknown", "what": f"message role {js_to_string(role)}", "preview": preview,
            "body": text_body(pretty_json(message))}


def _role_notes(message: dict[str, Any]) -> list[str]:
    spec = default_registry().get(message.get("role"))
    notes = []
    if spec is not None:
        hidden = spec.model_hidden(message)
        if hidden:
            notes.append(f"not sent to the model ({hidden})")
        unseen = spec.tui_hidden(message)
        if unseen:
            notes.append(f"not shown in Pi's interface ({unseen})")
    return notes


def entry_item(entry: Any, labels: dict[Any, Any], vocabulary: Vocabulary = PI_085_VOCABULARY) -> Item:
    """One entry as the reader sees it (`vocabulary`: the entry types and roles the Pi version knows; others are
    shown as they are stored)."""
    if not isinstance(entry, dict):
        return {"kind": "unknown", "id": "", "time": "", "notes": [], "what": "line that is not an entry", "preview": None, "label": None,
                "body": text_body(pretty_json(entry))}
    entry_type = entry.get("type")
    entry_id = entry.get("id", "")
    if entry_type == "message":
        item = _message_item(entry, entry.get("message"), vocabulary.roles)
    else:
        item = {"id": js_to_string(entry_id), "time": format_time(entry), "notes": []}
        if entry_type == "compaction":
            item.update(kind="compaction", body=text_body(js_to_string(entry.get("summary"))),
                        tokensBefore=format_tokens(entry.get("tokensBefore")),
                        firstKept=js_to_string(entry.get("firstKeptEntryId")))
            system = entry.get("systemMessage")
            if vocabulary.roles and isinstance(system, dict) and js_truthy(system):  # Pi 1.6's: sent before it
                item["system"] = system_view(system)
        elif entry_type == "branch_summary":
            item.update(kind="branch_summary", body=text_body(js_to_string(entry.get("summary"))),
                        fromId=js_to_string(entry.get("fromId")) if "fromId" in entry else None)
        elif entry_type == "custom_message":
            content = entry.get("content")
            item.update(kind="custom", customType=js_to_string(entry.get("customType")),
                        body=text_body("\n".join(_text_blocks(content))), images=_images(content),
                        notes=[] if entry.get("display") else ["not shown in Pi's interface (display:false)"],
                        displayed=js_truthy(entry.get("display")))
        elif entry_type == "model_change":
            item.update(kind="meta", what="model", text=f"{js_to_string(entry.get('provider'))}/"
                                                        f"{js_to_string(entry.get('modelId'))}")
        elif entry_type == "thinking_level_change":
            item.update(kind="meta", what="thinking level", text=js_to_string(entry.get("thinkingLevel")))
        elif entry_type == "label":
            label = entry.get("label")
            item.update(kind="meta", what="label", text=(f"{js_to_string(label)!s} on {js_to_string(entry.get('targetId'))}"
                                                         if label else f"cleared on {js_to_string(entry.get('targetId'))}"))
        elif entry_type == "session_info":
            item.update(kind="meta", what="session name", text=js_to_string(entry.get("name")))
        elif entry_type == "custom":
            item.update(kind="meta", what="extension data", text=js_to_string(entry.get("customType")))
        elif entry_type == "usage" and entry_type in vocabulary.entry_types:
            item.update(kind="meta", what="usage", text=_usage_entry_text(entry))
        elif entry_type == "context_edit" and entry_type in vocabulary.entry_types:
            replacement = entry.get("replacement")
            target = js_to_string(entry.get("targetId"))
            item.update(kind="meta", what="context edit",
                        text=f"removes {target} from the model's context" if replacement is None else
                        f"replaces what the model is sent of {target}: "
                        + " ".join(" ".join(_text_blocks(_dict(replacement).get("content"))).split()))
        else:
            item.update(kind="unknown", what=f"entry type {js_to_string(entry_type)}", preview=None,
                        body=text_body(pretty_json(entry)))
    label = labels.get(entry_id) if isinstance(entry_id, str) else None
    item["label"] = js_to_string(label) if label else None
    return item


def _usage_entry_text(entry: dict[str, Any]) -> str:
    """A usage entry (Pi 1.6: cache warming, ...): its kind, model, tokens and cost."""
    model = "/".join(js_to_string(entry.get(key)) for key in ("provider", "model") if isinstance(entry.get(key), str))
    usage = _usage(entry)
    text = " ".join(part for part in (js_to_string(entry.get("kind")), model) if part)
    if usage is not None:
        text += f" · {usage['tokens']} · {usage['cost']}"
    note = entry.get("note")
    return text + (f" · {note}" if isinstance(note, str) and note else "")


# --- reading order ----------------------------------------------------------------------------------------------


def _first_words(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ""
    message = entry.get("message")
    if isinstance(message, dict):
        text = " ".join(_text_blocks(message.get("content"))) or js_to_string(message.get("role"))
    else:
        text = js_to_string(entry.get("summary") or entry.get("type"))
    text = " ".join(text.split())
    return text[:80] + ("…" if len(text) > 80 else "")


def _branch_order(tree: SessionTree, active: set[int]) -> Iterator[Any]:
    """Every entry once, depth first: abandoned branches as groups where they leave, then the way on.

    Yields entries and ("open", info) / ("close",) markers; iterative, since sessions are deep.
    """
    children = tree.children_by_entry()
    stack: list[tuple[str, Any]] = []

    def schedule(kids: list[Any]) -> None:
        if not kids:
            return
        main = next((kid for kid in kids if id(kid) in active), kids[0])
        stack.append(("node", main))
        for other in reversed([kid for kid in kids if kid is not main]):
            stack.append(("close", None))
            stack.append(("node", other))
            stack.append(("open", other))

    schedule(children.get(None, []))
    while stack:
        op, value = stack.pop()
        if op == "node":
            yield value
            schedule(children.get(id(value), []))
        elif op == "open":
            yield ("open", {"abandoned": id(value) not in active, "stray": False, "from": js_to_string(value.get("parentId") or ""),
                            "first": _first_words(value)})
        else:
            yield ("close",)


def _reading_order(tree: SessionTree, options: TranscriptOptions, path: list[Any]) -> list[Any]:
    if options.branches == "active":
        return list(path)
    active = {id(entry) for entry in path}
    order = list(_branch_order(tree, active))
    seen = {id(x) for x in order if not isinstance(x, tuple)}
    stray = [entry for entry in tree.entries if id(entry) not in seen]
    if stray:
        order.append(("open", {"abandoned": True, "from": "", "stray": True,
                               "first": "entries outside the tree (a parent cycle, or lines that are not entries)"}))
        order.extend(stray)
        order.append(("close",))
    return order


def _attach_results(order: list[Any], items: list[Item | None]) -> None:
    """Results shown beside their calls: those following the call's message directly (other results between).

    A result anywhere else (after a branch point, a user message, or with no call) keeps an item of its own.
    """
    for index, item in enumerate(items):
        if item is None or item["kind"] != "assistant":
            continue
        waiting = {block["id"]: block for block in item["blocks"] if block["kind"] == "tool"}
        cursor = index + 1
        while waiting and cursor < len(order):
            result_item = items[cursor]
            if result_item is None or result_item["kind"] != "tool_result":
                break
            call = waiting.pop(result_item["call"]["id"], None)
            if call is not None:
                _attach_result(call, {**result_item["call"]["result"], "label": result_item.get("label")})
                items[cursor] = None  # shown with its call
            cursor += 1


def _stats(entries: list[Any]) -> dict[str, Any]:
    counts = {"user": 0, "assistant": 0, "toolResult": 0, "custom": 0, "compaction": 0, "branchSummary": 0}
    tool_calls = 0
    tokens = {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0}
    cost = 0.0
    models: dict[str, None] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type")
        if kind == "message" and isinstance(entry.get("message"), dict):
            message = entry["message"]
            role = message.get("role")
            if type(role) is str and role in counts:  # a damaged role may be any JSON value
                counts[role] += 1
            if role == "assistant":
                if isinstance(message.get("model"), str):
                    provider = message.get("provider")
                    models[f"{provider}/{message['model']}" if isinstance(provider, str) else message["model"]] = None
                usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
                for key in tokens:
                    tokens[key] += _number(usage.get(key))
                prices = _dict(usage.get("cost"))
                cost += sum((_number(prices.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")), 0.0)
                content = message.get("content")
                tool_calls += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "toolCall") \
                    if isinstance(content, list) else 0
        elif kind == "compaction":
            counts["compaction"] += 1
        elif kind == "branch_summary":
            counts["branchSummary"] += 1
        elif kind == "custom_message":
            counts["custom"] += 1
    names = {"user": ("user", "user"), "assistant": ("assistant", "assistant"),
             "toolResult": ("tool result", "tool results"), "custom": ("custom", "custom"),
             "compaction": ("compaction", "compactions"), "branchSummary": ("branch summary", "branch summaries")}
    return {
        "messages": ", ".join(counted(n, *names[k]) for k, n in counts.items() if n) or "0",
        "toolCalls": tool_calls,
        "tokens": " ".join(f"{mark}{format_tokens(tokens[key])}" for mark, key in
                           (("↑", "input"), ("↓", "output"), ("R", "cacheRead"), ("W", "cacheWrite")) if tokens[key])
                  or "0",
        "cost": f"${cost:.3f}",
        "models": ", ".join(models) or "unknown",
    }


def build_transcript(tree: SessionTree, options: TranscriptOptions | None = None) -> dict[str, Any]:
    """The reading-order model of one session (raises ContextError for a leaf that is not there or a cycle)."""
    options = options or TranscriptOptions()
    if options.branches not in BRANCHES:
        raise ValueError(f"branches must be one of {', '.join(BRANCHES)}")
    if options.only is not None and options.only not in ONLY:
        raise ValueError(f"only must be one of {', '.join(ONLY)}")
    leaf: Any = tree.leaf_id if options.leaf is None else options.leaf
    if options.leaf is not None and options.leaf not in tree.by_id:
        raise ContextError(f"Entry {options.leaf} not found")
    try:
        path = tree.path(leaf)
    except PathCycleError as exc:
        raise ContextError(str(exc)) from None
    rules = options.pi.context if options.pi is not None else PI_085_RULES
    hidden = hidden_by_compaction(path, rules)
    notes = context_notes(tree, path, rules)
    order = _reading_order(tree, options, path)
    labels = tree.labels
    items: list[Item | None] = []
    for element in order:
        if isinstance(element, tuple):
            items.append({"kind": "open", **element[1]} if element[0] == "open" else {"kind": "close"})
            continue
        item = entry_item(element, labels, rules.vocabulary)
        item["hidden"] = id(element) in hidden
        said = notes.get(id(element))
        if said:
            item["notes"] = [*item["notes"], said]
        items.append(item)
    _attach_results(order, items)
    kept = [item for item in items if item is not None]
    kept = apply_filters(kept, options)
    shown = path if options.branches == "active" else tree.entries
    header = tree.header if isinstance(tree.header, dict) else {}
    leaf_id = path[-1].get("id") if path and isinstance(path[-1], dict) else None
    return {
        "source": tree.source,
        "title": session_title(tree),
        "header": {"id": js_to_string(header.get("id", "")), "cwd": js_to_string(header.get("cwd", "")),
                   "time": format_time(header), "version": js_to_string(header.get("version", ""))},
        "leafId": js_to_string(leaf_id) if leaf_id is not None else "",
        "branches": options.branches,
        "stats": _stats(shown),
        "leaves": len(tree.leaves()),
        "rows": _with_context_markers(kept),
        "left_out": _left_out(options),
    }


TITLE_CHARS = 80
"""A title taken from the first user message is cut to this many characters (with an ellipsis)."""


def session_title(tree: SessionTree) -> str:
    """The page's title: the session's name (its latest `session_info` entry), else its first user message in
    the file with whitespace collapsed and cut to TITLE_CHARS, else its id (what a reader knows a session by;
    the id stays in the header)."""
    if tree.name and tree.name.strip():
        return tree.name.strip()
    for entry in tree.entries:
        message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        raw = "\n".join(_text_blocks(message.get("content")))
        skill = _skill(raw)  # a skill invocation: the user's own words after it, else the skill's name
        text = " ".join((skill["message"] or f"/skill:{skill['name']}" if skill is not None else raw).split())
        if text:
            return text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS - 1].rstrip() + "…"
    header = tree.header if isinstance(tree.header, dict) else {}
    return js_to_string(header.get("id", "session"))


def context_notes(tree: SessionTree, path: list[Any], rules: ContextRules = PI_085_RULES) -> dict[int, str]:
    """What the version's projection does to entries of the context beyond keeping them (Pi 1.6: context edits,
    older compactions inside the kept range), as a note per entry (none under 0.85)."""
    if not rules.context_edits:
        return {}
    try:
        selected = rules.context_entries(path)
        projected = rules.projected(selected, tree.materialize)
    except (ContextError, StopIteration, ValueError):
        return {}
    notes: dict[int, str] = {}
    for entry, (edit, messages, drawn) in zip(selected, projected, strict=True):
        if edit is not None:
            by = js_to_string(edit.get("id"))
            if not messages:
                notes[id(entry)] = f"not in the model's context: removed by context edit {by}"
            else:
                sent = " ".join(" ".join(" ".join(_text_blocks(m.get("content"))) for m in messages
                                         if isinstance(m, dict)).split())
                notes[id(entry)] = f"the model is sent instead (context edit {by}): {sent}"
        elif drawn and not messages:
            notes[id(entry)] = "gives the model nothing: an older compaction inside the latest one's kept range"
    return notes


def hidden_by_compaction(path: list[Any], rules: ContextRules = PI_085_RULES) -> set[int]:
    """Entries before the latest compaction on the path that the model no longer sees (history, not context)."""
    last = max((i for i, e in enumerate(path) if isinstance(e, dict) and e.get("type") == "compaction"), default=-1)
    if last < 0:
        return set()
    try:
        selected = {id(entry) for entry in rules.context_entries(path)}
    except (StopIteration, ValueError):
        return set()
    return {id(entry) for entry in path[:last] if id(entry) not in selected}


def _with_context_markers(items: list[Item]) -> list[Item]:
    """A marker where each run of entries hidden by a compaction starts and ends."""
    out: list[Item] = []
    inside = False
    for item in items:
        hidden = bool(item.get("hidden"))
        if hidden and not inside:
            out.append({"kind": "marker", "hidden": True,
                        "text": "Not in the model's context: history a later compaction summarised"})
        elif inside and not hidden and item["kind"] not in ("open", "close"):
            out.append({"kind": "marker", "hidden": False, "text": "The model's context resumes here"})
        if item["kind"] not in ("open", "close"):
            inside = hidden
        out.append(item)
    return out


def _left_out(options: TranscriptOptions) -> list[str]:
    said = []
    if not options.tools:
        said.append("tool calls and results")
    if not options.thinking:
        said.append("thinking")
    if options.only:
        said.append(f"everything but {options.only} messages")
    return said


def apply_filters(items: list[Item], options: TranscriptOptions) -> list[Item]:
    """--no-tools, --no-thinking and --only: remove exactly what they name (structure markers stay)."""
    drop_block: Callable[[Item], bool] = lambda block: (  # noqa: E731
        (not options.tools and block["kind"] == "tool") or (not options.thinking and block["kind"] == "thinking"))
    out = []
    for item in items:
        kind = item["kind"]
        if kind in ("open", "close"):
            out.append(item)
            continue
        if options.only is not None and kind != options.only:
            continue
        if not options.tools and kind == "tool_result":
            continue
        if kind == "assistant" and (not options.tools or not options.thinking):
            item = {**item, "blocks": [b for b in item["blocks"] if not drop_block(b)]}
        out.append(item)
    return out
