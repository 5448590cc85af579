"""Damage a session file the way real files get damaged, for the differential fuzzer (scripts/fuzz_oracle.py).

Every operator takes a Random and a Session (raw lines) and changes it in place, returning what it did, or
None where it does not apply. Operators come in two families: on the bytes of lines (torn, spliced, flipped,
dropped, duplicated lines, BOM, CRLF, NUL, invalid UTF-8) and on the JSON of one entry (wrong field types,
junk values, odd ids and versions, deep nesting, odd timestamps, malformed content blocks, swapped roles and
types, foreign providers, odd thinking levels). JSON is re-written by a serialiser of this module, which keeps
number texts verbatim (1e400, -0, 20-digit integers reach the reference as written) and never recurses, so
values nested thousands of levels deep pass through.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class Raw(str):
    """JSON text written as it is (a number's own spelling, or a pre-built deep value)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


def parse_line(line: bytes) -> Any:
    """The line's JSON value with every number kept as its text; raises ValueError if it is not JSON."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("not UTF-8") from exc
    try:
        return json.loads(text, parse_float=Raw, parse_int=Raw, parse_constant=_reject_constant)
    except RecursionError as exc:
        raise ValueError("too deep to edit") from exc


def _string(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as its \\udxxx escape, as JSON.stringify does
        return json.dumps(value, ensure_ascii=True)
    return json.dumps(value, ensure_ascii=False)


def dump(value: Any) -> str:
    """JSON text of a value (compact, key order kept), iteratively."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Raw):
            out.append(str(item))
        elif isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, str):
            out.append(_string(item))
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, int):
            out.append(str(item))
        elif isinstance(item, float):
            out.append(repr(item))
        elif isinstance(item, dict):
            pieces: list[Any] = [_Token("{")]
            for index, (key, member) in enumerate(item.items()):
                if index:
                    pieces.append(_Token(","))
                pieces += [_Token(_string(str(key)) + ":"), member]
            pieces.append(_Token("}"))
            stack.extend(reversed(pieces))
        elif isinstance(item, list):
            pieces = [_Token("[")]
            for index, member in enumerate(item):
                if index:
                    pieces.append(_Token(","))
                pieces.append(member)
            pieces.append(_Token("]"))
            stack.extend(reversed(pieces))
        else:
            raise TypeError(type(item))
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def encode(value: Any) -> bytes:
    return dump(value).encode("utf-8")


@dataclass
class Session:
    """A session file as raw lines (no newline characters) and whether the file ends with a newline."""

    lines: list[bytes]
    final_newline: bool = True
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_bytes(cls, data: bytes) -> Session:
        final = data.endswith(b"\n")
        body = data[:-1] if final else data
        return cls(body.split(b"\n") if body else [], final)

    def to_bytes(self) -> bytes:
        return b"\n".join(self.lines) + (b"\n" if self.final_newline and self.lines else b"")

    def objects(self) -> list[tuple[int, Any]]:
        """(index, parsed object) of every line that is a JSON object."""
        found = []
        for index, line in enumerate(self.lines):
            if not line.startswith(b"{"):
                continue
            try:
                value = parse_line(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append((index, value))
        return found

    def ids(self) -> list[Any]:
        return [obj.get("id") for _, obj in self.objects() if "id" in obj]


# ------------------------------------------------------------------------------------------------------------
# Value pools

JUNK_SCALARS: list[Any] = [
    None, True, False, Raw("0"), Raw("1"), Raw("-1"), Raw("0.5"), Raw("-0"), Raw("1e21"), Raw("1e400"),
    Raw("-1e400"), Raw("1.5e-7"), Raw("9007199254740993"), Raw("123456789012345678901234567890"), Raw("3.0"),
    Raw("2"), Raw("42"), "", " ", "0", "1", "true", "null", "undefined", "NaN", "Infinity", "[object Object]",
    "__proto__", "constructor", "toString", "hasOwnProperty", "\ud83d", "\udc00x", "😀", "a\u0000b", "\u2028",
    "x" * 3000, "ü" * 40, "text", "image", "toolCall", "thinking", "user", "assistant", "off", "high",
]
JUNK_COMPOUND: list[Any] = [
    [], [None], [Raw("1"), Raw("2")], ["a", "b"], {}, {"type": "text"}, {"type": "text", "text": None},
    {"a": Raw("1")}, {"__proto__": {"x": Raw("1")}}, [{"type": "text", "text": "t"}], {"toString": "x"},
    {"length": Raw("3")}, {"0": "a", "length": Raw("1")},
]
ODD_IDS: list[Any] = [
    None, True, False, Raw("0"), Raw("1"), Raw("1.0"), Raw("-0"), Raw("1e3"), "", " ", "1", "0", "true", "null",
    "undefined", "__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "\ud83d", "😀",
    "id with spaces", "x" * 300, [], ["a"], {}, {"id": "a"},
]
ODD_VERSIONS: list[Any] = [
    None, True, False, Raw("0"), Raw("1"), Raw("2"), Raw("3"), Raw("3.0"), Raw("3.5"), Raw("4"), Raw("99"),
    Raw("-1"), Raw("1e400"), Raw("2.9999999999999999"), "3", "2", "1", "", "three", [Raw("3")], {}, [],
    {"valueOf": Raw("3")},
]
ROLES = ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary",
         "hookMessage", "system", "developer", "tool", "", "User", "wizard"]
TYPES = ["message", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info",
         "model_change", "thinking_level_change", "session", "mystery", "", "Message"]
BLOCK_TYPES = ["text", "image", "toolCall", "thinking", "redacted_thinking", "tool_use", "toolResult",
               "function_call", "", "TEXT", None, Raw("1")]
PROVIDERS = [("anthropic", "anthropic-messages", "claude-sonnet-4-5"), ("openai", "openai-responses", "gpt-5.1"),
             ("google", "google-generative-ai", "gemini-2.5-flash"),
             ("mistral", "mistral-conversations", "mistral-medium-latest"),
             ("groq", "openai-completions", "openai/gpt-oss-120b"),
             ("amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
             ("deepseek", "openai-completions", "deepseek-v4-flash"),
             ("openai-codex", "openai-codex-responses", "gpt-5.1-codex"), ("unknown", "unknown-api", "m"),
             ("", "", ""), (None, None, None)]
THINKING_LEVELS: list[Any] = ["off", "minimal", "low", "medium", "high", "xhigh", "turbo", "", "OFF", "High",
                              None, True, Raw("3"), Raw("0"), [], {}, " high"]
MIME_TYPES: list[Any] = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "IMAGE/PNG",
                         "image/svg+xml", "", "text/plain", None, Raw("1"), "image/jpg", "image/png; q=1"]


def timestamp_forms() -> list[Any]:
    """Entry timestamps real and damaged files hold (scripts/probe_v8_dates.py probes many more)."""
    from probe_v8_dates import string_forms

    return [*string_forms()[::3], Raw("1754042400000"), Raw("1754042400000.7"), Raw("-1"), Raw("0"),
            Raw("8.64e15"), Raw("8640000000000001"), Raw("1e400"), True, False, None, [Raw("2025")],
            ["2025-08-01"], [], {}, ["2025", "08"], Raw("-62198755200000")]


# ------------------------------------------------------------------------------------------------------------
# Choosing where to damage

INTERESTING = {"id", "parentId", "timestamp", "message", "content", "role", "type", "text", "thinking",
               "arguments", "toolCallId", "toolName", "usage", "version", "summary", "firstKeptEntryId",
               "tokensBefore", "fromId", "thinkingLevel", "provider", "modelId", "model", "api", "data",
               "mimeType", "isError", "stopReason", "thinkingSignature", "textSignature", "command", "output",
               "exitCode", "cancelled", "truncated", "fullOutputPath", "excludeFromContext", "customType",
               "display", "details", "input", "cacheRead", "cacheWrite", "totalTokens", "cost", "name",
               "redacted", "signature", "errorMessage", "responseId", "cwd", "parentSession"}


def random_path(rng: random.Random, root: Any, stop: float = 0.3) -> list[Any]:
    """A path from `root` to some member (keys and indices), walking down with a bias to the fields Pi reads."""
    path: list[Any] = []
    node = root
    while isinstance(node, (dict, list)) and node:
        if path and rng.random() < stop:
            break
        if isinstance(node, dict):
            keys = list(node)
            preferred = [k for k in keys if k in INTERESTING]
            key = rng.choice(preferred if preferred and rng.random() < 0.8 else keys)
        else:
            key = rng.randrange(len(node))
        path.append(key)
        node = node[key]
    return path


def get_at(root: Any, path: list[Any]) -> Any:
    for key in path:
        root = root[key]
    return root


def set_at(root: Any, path: list[Any], value: Any) -> Any:
    if not path:
        return value
    get_at(root, path[:-1])[path[-1]] = value
    return root


def delete_at(root: Any, path: list[Any]) -> None:
    parent = get_at(root, path[:-1])
    del parent[path[-1]]


def _entry(rng: random.Random, session: Session, want: Callable[[dict[str, Any]], bool] | None = None,
           header: bool = False) -> tuple[int, dict[str, Any]] | None:
    objects = [(i, o) for i, o in session.objects() if (header or o.get("type") != "session") and (want is None or want(o))]
    return rng.choice(objects) if objects else None


def _put(session: Session, index: int, value: Any) -> None:
    session.lines[index] = encode(value)


def _blocks(entry: dict[str, Any]) -> list[Any] | None:
    message = entry.get("message")
    if isinstance(message, dict) and isinstance(message.get("content"), list):
        return message["content"]
    if isinstance(entry.get("content"), list):
        return entry["content"]
    return None


def _junk(rng: random.Random, current: Any = None) -> Any:
    pool = JUNK_SCALARS + JUNK_COMPOUND
    for _ in range(10):
        value = rng.choice(pool)
        if type(value) is not type(current) or value != current:
            return _fresh(value)
    return None


def _fresh(value: Any) -> Any:
    """A copy of a pooled value (operators edit values in place later)."""
    if isinstance(value, (dict, list)):
        return parse_line(encode(value))
    return value


def _deep(rng: random.Random, inner: Any) -> Raw:
    depth = rng.choice([600, 800, 1000, 1001, 1100, 1200])
    if rng.random() < 0.5:
        return Raw("[" * depth + dump(inner) + "]" * depth)
    key = _string(rng.choice(["a", "type", "text", "content", "0"]))
    return Raw(("{" + key + ":") * depth + dump(inner) + "}" * depth)


# ------------------------------------------------------------------------------------------------------------
# Line operators


def tear(rng: random.Random, s: Session) -> str | None:
    if not s.lines:
        return None
    index = len(s.lines) - 1 if rng.random() < 0.5 else rng.randrange(len(s.lines))
    line = s.lines[index]
    if len(line) < 2:
        return None
    cut = rng.randrange(1, len(line))
    s.lines[index] = line[:cut]
    if index == len(s.lines) - 1 and rng.random() < 0.7:
        s.final_newline = False
    return f"tear line {index + 1} at {cut}"


def splice(rng: random.Random, s: Session) -> str | None:
    if len(s.lines) < 2:
        return None
    i = rng.randrange(len(s.lines) - 1)
    j = rng.randrange(i + 1, len(s.lines))
    if rng.random() < 0.5:
        s.lines[i] = s.lines[i] + s.lines[j]
        del s.lines[j]
        return f"join line {i + 1} and {j + 1}"
    a = rng.randrange(len(s.lines[i]) + 1)
    b = rng.randrange(len(s.lines[j]) + 1)
    s.lines[i] = s.lines[i][:a] + s.lines[j][b:]
    return f"splice line {i + 1}[:{a}] + line {j + 1}[{b}:]"


def flip(rng: random.Random, s: Session) -> str | None:
    if not s.lines:
        return None
    index = rng.randrange(len(s.lines))
    line = bytearray(s.lines[index])
    if not line:
        return None
    spots = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        at = rng.randrange(len(line))
        if rng.random() < 0.5:
            line[at] ^= 1 << rng.randrange(8)
        else:
            line[at] = rng.choice(b'"{}[],:\\ 0a\x00\xff\xc3\x80tnfeE.-+')
        spots.append(at)
    s.lines[index] = bytes(line)
    return f"flip line {index + 1} at {spots}"


JUNK_LINES = [b"[]", b"42", b"null", b"0", b"false", b"true", b'"text"', b"{}", b"[1,2]", b" ", b"", b"\t",
              b'{"type":"message"}', b'{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}',
              b"{", b"}", b"// comment", b"\xef\xbb\xbf{}", b'{"id":"zz","parentId":null}']


def lines_op(rng: random.Random, s: Session) -> str | None:
    if not s.lines:
        return None
    what = rng.choice(["drop", "duplicate", "swap", "junk", "crlf", "bom", "nul", "utf8", "trailing", "blank"])
    index = rng.randrange(len(s.lines))
    if what == "drop" and len(s.lines) > 1:
        del s.lines[index]
    elif what == "duplicate":
        s.lines.insert(index + 1, s.lines[index])
    elif what == "swap" and index + 1 < len(s.lines):
        s.lines[index], s.lines[index + 1] = s.lines[index + 1], s.lines[index]
    elif what == "junk":
        s.lines.insert(index + 1, rng.choice(JUNK_LINES))
    elif what == "crlf":
        s.lines[index] += b"\r"
    elif what == "bom":
        index = 0
        s.lines[0] = b"\xef\xbb\xbf" + s.lines[0]
    elif what in ("nul", "utf8"):
        line = s.lines[index]
        quote = line.find(b'"', rng.randrange(len(line) + 1))
        at = quote + 1 if quote >= 0 else len(line)
        junk = b"\x00" if what == "nul" else rng.choice([b"\xff", b"\xc3", b"\xed\xa0\xbd", b"\xe9", b"\xf0\x9f"])
        s.lines[index] = line[:at] + junk + line[at:]
    elif what == "trailing":
        s.lines[index] += rng.choice([b" ", b"\t", b"  \r", b"\x0b"])
    elif what == "blank":
        s.lines.insert(index, rng.choice([b"", b" ", b"\r"]))
    else:
        return None
    return f"{what} line {index + 1}"


# ------------------------------------------------------------------------------------------------------------
# JSON operators


def retype(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, header=rng.random() < 0.1)
    if found is None:
        return None
    index, obj = found
    path = random_path(rng, obj)
    if not path:
        return None
    value = _junk(rng, get_at(obj, path))
    set_at(obj, path, value)
    _put(s, index, obj)
    return f"line {index + 1}: {path} = {short(value)}"


def delete_field(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, header=rng.random() < 0.1)
    if found is None:
        return None
    index, obj = found
    path = random_path(rng, obj)
    if not path:
        return None
    delete_at(obj, path)
    _put(s, index, obj)
    return f"line {index + 1}: delete {path}"


def add_field(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    holders = [obj] + [v for v in (obj.get("message"),) if isinstance(v, dict)]
    blocks = _blocks(obj) or []
    holders += [b for b in blocks if isinstance(b, dict)]
    holder = rng.choice(holders)
    key = rng.choice(sorted(INTERESTING) + ["__proto__", "constructor", "toJSON", "valueOf"])
    value = _junk(rng)
    holder[key] = value
    _put(s, index, obj)
    return f"line {index + 1}: add {key} = {short(value)}"


def odd_id(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    ids = [i for i in s.ids() if i is not None]
    field_name = rng.choice(["id", "parentId", "parentId", "firstKeptEntryId", "fromId", "targetId", "id"])
    choice = rng.random()
    if choice < 0.3 and ids:
        value = _fresh(rng.choice(ids))  # a duplicate, a cycle, a jump
    elif choice < 0.45 and ids:
        # The same id with another JSON type: 1 vs "1", true vs 1, 0 vs false.
        partner = rng.choice([Raw("1"), True, Raw("0"), False, "1", Raw("1.0")])
        other = _entry(rng, s)
        if other is None:
            return None
        other_index, other_obj = other
        other_obj["id"] = partner
        _put(s, other_index, other_obj)
        if other_index == index:
            obj = other_obj
        value = rng.choice([Raw("1"), True, "1", Raw("1.0"), Raw("0"), False])
        field_name = "parentId"
    else:
        value = _fresh(rng.choice(ODD_IDS))
    obj[field_name] = value
    _put(s, index, obj)
    return f"line {index + 1}: {field_name} = {short(value)}"


def odd_version(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: o.get("type") == "session", header=True)
    if found is None:
        return None
    index, obj = found
    value = _fresh(rng.choice(ODD_VERSIONS))
    if rng.random() < 0.15:
        obj.pop("version", None)
        value = "<deleted>"
    else:
        obj["version"] = value
    if rng.random() < 0.3:
        obj[rng.choice(["id", "cwd", "timestamp", "type", "parentSession"])] = _junk(rng)
    _put(s, index, obj)
    return f"header line {index + 1}: version = {short(value)}"


def deep_nesting(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    path = random_path(rng, obj, stop=0.2)
    if not path:
        return None
    current = get_at(obj, path)
    value = _deep(rng, current if rng.random() < 0.5 else _junk(rng))
    set_at(obj, path, value)
    _put(s, index, obj)
    return f"line {index + 1}: {path} nested {value.count('[') or value.count('{')} deep"


def odd_timestamp(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    value = _fresh(rng.choice(timestamp_forms()))
    message = obj.get("message")
    if isinstance(message, dict) and rng.random() < 0.3:
        message["timestamp"] = value
        where = "message.timestamp"
    else:
        obj["timestamp"] = value
        where = "timestamp"
    _put(s, index, obj)
    return f"line {index + 1}: {where} = {short(value)}"


def bad_block(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: _blocks(o) is not None or isinstance(o.get("message"), dict))
    if found is None:
        return None
    index, obj = found
    blocks = _blocks(obj)
    message = obj.get("message") if isinstance(obj.get("message"), dict) else obj
    what = rng.choice(["item", "text", "type", "arguments", "content", "image", "thinking", "signature", "empty",
                       "toolcall-id", "name"])
    if what == "content" or blocks is None:
        value = _fresh(rng.choice([{"type": "text", "text": "x"}, "plain", Raw("5"), None, {}, [[]], [None],
                                   {"0": {"type": "text", "text": "t"}}, [], True, [{"type": "text"}]]))
        message["content"] = value
        _put(s, index, obj)
        return f"line {index + 1}: content = {short(value)}"
    if not blocks:
        blocks.append({"type": "text", "text": "added"})
    at = rng.randrange(len(blocks))
    block = blocks[at]
    if what == "item" or not isinstance(block, dict):
        value = _fresh(rng.choice(["text", Raw("1"), None, [], [{"type": "text", "text": "x"}], True, "",
                                   {"text": "no type"}]))
        blocks[at] = value
    elif what == "text":
        value = _fresh(rng.choice([None, Raw("1"), {}, [], True, "", " ", "\ud83d", {"text": "t"}, ["a"]]))
        block["text"] = value
    elif what == "type":
        value = rng.choice(BLOCK_TYPES)
        block["type"] = value
    elif what == "arguments":
        value = _fresh(rng.choice([None, "{}", "not json", Raw("1"), [], ["a"], {"a": None}, True, "",
                                   {"__proto__": Raw("1")}, {"toString": "x"}]))
        block["arguments"] = value
        block.setdefault("type", "toolCall")
    elif what == "image":
        block.clear()
        block.update({"type": "image", "data": _fresh(rng.choice(["iVBORw0KGgo=", "", None, Raw("5"), [], "%%%"])),
                      "mimeType": rng.choice(MIME_TYPES)})
        value = block
    elif what == "thinking":
        block.clear()
        block.update({"type": "thinking", "thinking": _fresh(rng.choice([None, "", " ", "t", Raw("1"), []])),
                      **({"thinkingSignature": _fresh(rng.choice(["", "sig", "{}", "[]", "null", "{\"id\":1}",
                                                                  None, Raw("1")]))}
                         if rng.random() < 0.6 else {}),
                      **({"redacted": _fresh(rng.choice([True, False, None, "yes"]))} if rng.random() < 0.3 else {})})
        value = block
    elif what == "signature":
        key = rng.choice(["thinkingSignature", "textSignature", "thoughtSignature", "signature"])
        value = _fresh(rng.choice(["", "x", "{}", "{\"v\":1}", "[1]", "null", "1", None, Raw("1"), {"a": 1}]))
        block[key] = value
    elif what == "toolcall-id":
        value = _fresh(rng.choice(ODD_IDS + ["call|item", "a" * 80, "fc_1|rs_2", "call_1|"]))
        block["id"] = value
    elif what == "name":
        value = _fresh(rng.choice([None, "", Raw("1"), "bash", "a b", "x" * 100, []]))
        block["name"] = value
    else:
        blocks.clear()
        value = []
    _put(s, index, obj)
    return f"line {index + 1}: block {at} {what} = {short(value)}"


def tool_result(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: isinstance(o.get("message"), dict) and o["message"].get("role") == "toolResult")
    if found is None:
        return None
    index, obj = found
    message = obj["message"]
    key = rng.choice(["content", "content", "toolCallId", "toolName", "isError", "details"])
    value = _fresh(rng.choice([{"type": "text", "text": "x"}, "text", None, Raw("1"), [], [None], {},
                               [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], True, "yes", Raw("0")]
                              + ([_fresh(rng.choice(ODD_IDS))] if key == "toolCallId" else [])))
    message[key] = value
    _put(s, index, obj)
    return f"line {index + 1}: toolResult.{key} = {short(value)}"


def junk_number(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: isinstance(o.get("message"), dict) or "tokensBefore" in o)
    if found is None:
        return None
    index, obj = found
    message = obj.get("message")
    value = _fresh(rng.choice([Raw("-1"), Raw("1e400"), Raw("-0"), Raw("0.5"), Raw("1e21"), "100", None, True,
                               Raw("9007199254740993"), [], {}, Raw("2000000"), Raw("99999999")]))
    if isinstance(message, dict) and message.get("role") == "assistant" and rng.random() < 0.8:
        usage = message.get("usage")
        if not isinstance(usage, dict) or rng.random() < 0.2:
            message["usage"] = _junk(rng)
            _put(s, index, obj)
            return f"line {index + 1}: usage = {short(message['usage'])}"
        key = rng.choice(["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"])
        usage[key] = value
        _put(s, index, obj)
        return f"line {index + 1}: usage.{key} = {short(value)}"
    if "tokensBefore" in obj:
        obj["tokensBefore"] = value
        _put(s, index, obj)
        return f"line {index + 1}: tokensBefore = {short(value)}"
    if isinstance(message, dict):
        key = rng.choice(["exitCode", "timestamp"])
        message[key] = value
        _put(s, index, obj)
        return f"line {index + 1}: message.{key} = {short(value)}"
    return None


def swap_role(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: isinstance(o.get("message"), dict))
    if found is None:
        return None
    index, obj = found
    role = rng.choice(ROLES)
    obj["message"]["role"] = role
    _put(s, index, obj)
    return f"line {index + 1}: role = {role}"


def swap_type(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    kind = rng.choice(TYPES)
    obj["type"] = kind
    _put(s, index, obj)
    return f"line {index + 1}: type = {kind}"


def foreign_model(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: (isinstance(o.get("message"), dict) and o["message"].get("role") == "assistant")
                   or o.get("type") == "model_change")
    if found is None:
        return None
    index, obj = found
    provider, api, model = rng.choice(PROVIDERS)
    if obj.get("type") == "model_change":
        obj["provider"], obj["modelId"] = provider, model
    else:
        message = obj["message"]
        message["provider"], message["api"], message["model"] = provider, api, model
        if rng.random() < 0.3:
            message["stopReason"] = rng.choice(["error", "aborted", "length", "toolUse", "stop", "", None])
    _put(s, index, obj)
    return f"line {index + 1}: model = {provider}/{model} ({api})"


def thinking_level(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s, lambda o: o.get("type") == "thinking_level_change")
    value = _fresh(rng.choice(THINKING_LEVELS))
    if found is None:
        last = _entry(rng, s)
        if last is None:
            return None
        index, obj = last
        entry = {"type": "thinking_level_change", "id": "f1zz0001", "parentId": obj.get("id"),
                 "timestamp": "2026-01-01T00:00:00.000Z", "thinkingLevel": value}
        s.lines.insert(index + 1, encode(entry))
        return f"insert thinking_level_change after line {index + 1}: {short(value)}"
    index, obj = found
    obj["thinkingLevel"] = value
    _put(s, index, obj)
    return f"line {index + 1}: thinkingLevel = {short(value)}"


def unicode_junk(rng: random.Random, s: Session) -> str | None:
    found = _entry(rng, s)
    if found is None:
        return None
    index, obj = found
    strings: list[list[Any]] = []
    stack: list[tuple[list[Any], Any]] = [([], obj)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((path + [k], v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + [i], v) for i, v in enumerate(node))
        elif isinstance(node, str) and not isinstance(node, Raw) and path:
            strings.append(path)
    if not strings:
        return None
    path = rng.choice(strings)
    text = get_at(obj, path)
    junk = rng.choice(["\ud83d", "\ude00", "😀", "\u200b", "\u202e", "e\u0301", "\u2028", "\x00", "\x7f", "𝕏" * 30,
                       "\\", '"', "</script>", "\r\n"])
    at = rng.randrange(len(text) + 1)
    set_at(obj, path, text[:at] + junk + text[at:])
    _put(s, index, obj)
    return f"line {index + 1}: {path} += {short(junk)}"


OPERATORS: list[tuple[Callable[[random.Random, Session], str | None], float]] = [
    (tear, 1.0), (splice, 1.0), (flip, 1.0), (lines_op, 1.5), (retype, 3.0), (delete_field, 1.5),
    (add_field, 1.0), (odd_id, 2.0), (odd_version, 1.5), (deep_nesting, 1.5), (odd_timestamp, 2.0),
    (bad_block, 3.0), (tool_result, 1.0), (junk_number, 1.5), (swap_role, 1.0), (swap_type, 1.0),
    (foreign_model, 1.0), (thinking_level, 1.0), (unicode_junk, 1.0),
]


def damage(rng: random.Random, session: Session, count: int) -> list[str]:
    """Apply `count` operators that apply (weighted choice); what each did."""
    done: list[str] = []
    functions, weights = zip(*OPERATORS, strict=True)
    attempts = 0
    while len(done) < count and attempts < count * 10:
        attempts += 1
        operator = rng.choices(functions, weights)[0]
        note = operator(rng, session)
        if note is not None:
            done.append(f"{operator.__name__}: {note}")
    return done


def short(value: Any, limit: int = 60) -> str:
    text = dump(value) if not isinstance(value, Raw) or len(value) < 200 else f"<{len(value)} chars of JSON>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
