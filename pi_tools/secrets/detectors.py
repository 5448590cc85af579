"""A small, well-defined set of secret detectors: credentials whose shape is documented by their issuer.

Each detector names one kind of secret and matches only that shape, so a hit is very likely a real credential
and a miss means "none of these kinds", never "no secrets". Generic high-entropy strings are deliberately not
detected (their false positives would rewrite hashes, ids and base64 data). For credentials that sit inside a
larger match (a bearer token in an Authorization header, the password of a URL) only the secret itself is
reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple


@dataclass(frozen=True)
class Detector:
    """One credential shape.

    `pattern` begins with a literal wherever the shape has one: Python's regex engine then jumps between
    occurrences of that literal at memory speed, while a leading `\b` or a case-insensitive start makes it try
    every position (10 to 100 times slower on long tool outputs). What a `\b` or a keyword before the literal
    would say is checked around the match instead: `word_start` (the match, or its `lead`, does not follow a
    letter, digit or underscore), `lead` (a regex the text just before the match must end with; it becomes
    part of the reported span unless a group named `secret` narrows it), `needs` (a lower-case word the text
    must contain, tested before a case-insensitive pattern runs at all).
    """

    kind: str
    pattern: str
    word_start: bool = True
    lead: str | None = None
    needs: str | None = None


# Order matters where shapes nest: at one position the first detector that matches wins (OpenRouter's and
# Anthropic's keys also look like OpenAI's `sk-...`).
DETECTOR_TABLE: tuple[Detector, ...] = (
    Detector("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
             word_start=False),
    Detector("anthropic-api-key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    Detector("openrouter-api-key", r"sk-or-v1-[0-9a-f]{64}\b"),
    Detector("openai-api-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    Detector("aws-access-key-id", r"A(?:KIA|SIA)[0-9A-Z]{16}\b"),
    Detector("aws-secret-access-key",
             r"(?i:aws_?secret_?access_?key)\b[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
             needs="aws"),
    Detector("github-token", r"gh(?:[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})\b"),
    Detector("gitlab-token", r"gl(?:pat|dt|ft|soat|rt|cbt|ptt|oas)-[A-Za-z0-9_-]{20,}"),
    Detector("slack-token", r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    Detector("google-api-key", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    Detector("google-oauth-client-secret", r"GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
    Detector("stripe-key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    Detector("stripe-key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    Detector("huggingface-token", r"hf_[A-Za-z0-9]{34,}\b"),
    Detector("groq-api-key", r"gsk_[A-Za-z0-9]{48,}\b"),
    Detector("xai-api-key", r"xai-[A-Za-z0-9]{60,}\b"),
    Detector("npm-token", r"npm_[A-Za-z0-9]{36}\b"),
    Detector("pypi-token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    Detector("sendgrid-api-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    Detector("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}\b"),
    Detector("telegram-bot-token", r":AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", lead=r"[0-9]{8,10}"),
    Detector("azure-storage-key", r"AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)"),
    Detector("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    Detector("bearer-token", r"(?i:bearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)", word_start=False,
             lead=r"(?i:\bauthorization)[\"']?\s*[:=]\s*[\"']?", needs="bearer"),
    Detector("url-password", r"://[^\s:/@\"'<>]+:(?P<secret>(?!\[REDACTED:)[^\s@/\"'<>]+)@",
             lead=r"[a-zA-Z][a-zA-Z0-9+.-]{0,31}"),
)
# (kind, pattern) of every detector, as the module has always exposed them.
DETECTORS: tuple[tuple[str, str], ...] = tuple((d.kind, d.pattern) for d in DETECTOR_TABLE)
KINDS = tuple(dict.fromkeys(d.kind for d in DETECTOR_TABLE))
USER_KIND = "pattern"
_LEAD_WINDOW = 64
_WORD = re.compile(r"[A-Za-z0-9_]")

# Text that every detector's match contains, checked first as a necessary condition: substring tests run at
# memory speed, so the common case, a string without any of them, costs almost nothing. Every anchor is ASCII
# without quotes, backslashes or control characters, so it survives JSON escaping and can be looked for in
# serialised JSON too.
ANCHORS: tuple[str, ...] = (
    "PRIVATE KEY", "sk-", "_live_", "_test_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glptt-", "gloas-", "xox", "AIza", "GOCSPX-", "hf_",
    "gsk_", "xai-", "npm_", "pypi-", "SG.", "_v1_", ":AA", "AccountKey=", "eyJ", "://",
)
CASELESS_ANCHORS: tuple[str, ...] = ("aws", "bearer")  # detectors that match these in any case
_BYTE_ANCHORS = tuple(anchor.encode() for anchor in ANCHORS)
_BYTE_CASELESS = tuple(anchor.encode() for anchor in CASELESS_ANCHORS)


def may_hold_secrets(text: str | bytes) -> bool:
    """False when no detector can match in `text` (str, or UTF-8 / serialised JSON bytes)."""
    if isinstance(text, bytes):
        return any(a in text for a in _BYTE_ANCHORS) or _caseless_in(text.lower(), _BYTE_CASELESS)
    return any(a in text for a in ANCHORS) or _caseless_in(text.lower(), CASELESS_ANCHORS)


def _caseless_in(lowered: Any, anchors: tuple[Any, ...]) -> bool:
    return any(a in lowered for a in anchors)


class AnchorSet:
    """The anchors that occur in a large text (one pass each), to test its parts against only those.

    Scanning a 20 MB session for all anchors once and then each entry for the few that occur at all is
    several times cheaper than testing every entry for every anchor.
    """

    def __init__(self, whole: bytes) -> None:
        lowered = whole.lower()
        self.exact = tuple(a for a in _BYTE_ANCHORS if a in whole)
        self.caseless = tuple(a for a in _BYTE_CASELESS if a in lowered)

    def __bool__(self) -> bool:
        return bool(self.exact or self.caseless)

    def may_hold(self, part: bytes) -> bool:
        return any(a in part for a in self.exact) or (bool(self.caseless) and _caseless_in(part.lower(),
                                                                                            self.caseless))


class Secret(NamedTuple):
    kind: str
    start: int
    end: int


class PatternError(ValueError):
    """A user pattern (`--pattern`) that is not a valid regular expression."""


class _Compiled(NamedTuple):
    kind: str
    regex: re.Pattern[str]
    word_start: bool
    lead: re.Pattern[str] | None
    needs: str | None
    narrowed: bool


def _compile(detector: Detector) -> _Compiled:
    lead = re.compile(f"(?:{detector.lead})\\Z") if detector.lead else None
    return _Compiled(detector.kind, re.compile(detector.pattern), detector.word_start, lead, detector.needs,
                     "(?P<secret>" in detector.pattern)


class Scanner:
    """The detectors, plus user patterns (kind `pattern`); each runs on its own so its literal start is fast."""

    def __init__(self, user_patterns: Sequence[str] = ()) -> None:
        compiled = [_compile(detector) for detector in DETECTOR_TABLE]
        for pattern in user_patterns:
            try:
                compiled.append(_compile(Detector(USER_KIND, pattern, word_start=False)))
            except re.error as exc:
                raise PatternError(f"--pattern {pattern!r}: not a regular expression: {exc}") from None
        self.compiled = tuple(compiled)
        self.anchored = not user_patterns  # user patterns have no anchors: every string is scanned

    def find(self, text: str) -> list[Secret]:
        """Every detected secret in `text` as (kind, start, end), in order and without overlaps.

        Where matches of several detectors overlap, the one starting first wins, and at the same start the
        one listed first (as a single alternation of all detectors would decide).
        """
        if self.anchored and not may_hold_secrets(text):
            return []
        lowered: str | None = None
        candidates: list[tuple[int, int, int, Secret]] = []
        for index, detector in enumerate(self.compiled):
            if detector.needs is not None:
                if lowered is None:
                    lowered = text.lower()
                if detector.needs not in lowered:
                    continue
            for match in detector.regex.finditer(text):
                start = match.start()
                if detector.lead is not None:
                    lead = detector.lead.search(text, max(0, start - _LEAD_WINDOW), start)
                    if lead is None:
                        continue
                    start = lead.start()
                if detector.word_start and start > 0 and _WORD.match(text, start - 1):
                    continue
                if match.end() <= start:
                    continue
                if detector.narrowed and match.start("secret") >= 0:
                    secret = Secret(detector.kind, match.start("secret"), match.end("secret"))
                else:
                    secret = Secret(detector.kind, start, match.end())
                candidates.append((start, index, match.end(), secret))
        candidates.sort()
        found: list[Secret] = []
        position = 0
        for start, _, end, secret in candidates:
            if start >= position:
                found.append(secret)
                position = end
        return found


_DEFAULT = Scanner()
DEFAULT_SCANNER = _DEFAULT  # the detectors alone (no user patterns), as audit uses them


def find_secrets(text: str) -> list[Secret]:
    """Every detected secret in `text` as (kind, start, end), in order and without overlaps."""
    return _DEFAULT.find(text)


def scrub_text(text: str, scanner: Scanner | None = None) -> str:
    """`text` with each detected secret replaced by `[REDACTED:<kind>]`."""
    secrets = (scanner or _DEFAULT).find(text)
    if not secrets:
        return text
    pieces = []
    position = 0
    for kind, start, end in secrets:
        pieces.append(text[position:start])
        pieces.append(f"[REDACTED:{kind}]")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
