"""Secret detectors: credentials whose shape is documented by their issuer or by the scanners people use.

Three sources, one engine. pi-tools' own detectors (the table below) cover the keys of every provider in Pi's
catalog; gitleaks' default rules (pi_tools/secrets/gitleaks_rules.py, generated from gitleaks' MIT-licensed
config/gitleaks.toml, Copyright (c) 2019 Zachary Rice) and the kinds of detect-secrets' default plugins
(Yelp/detect-secrets, Apache-2.0; their patterns are ported into the table, no code is) cover everything else
those scanners find. Each detector names one kind and matches only that shape, so a hit is very likely a real
credential and a miss means "none of these kinds", never "no secrets". Generic high-entropy detection (gitleaks'
generic-api-key) is opt-in (`Scanner(entropy=True)`): its false positives would rewrite hashes, ids and base64
data, so it also never reports hex digests or UUIDs. For credentials that sit inside a larger match (a bearer
token in an Authorization header, the password of a URL, a key assigned to a keyword) only the secret itself
is reported.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from pi_tools.secrets.gitleaks_rules import GLOBAL_ALLOWED, GLOBAL_STOPWORDS
from pi_tools.secrets.gitleaks_rules import RULES as GITLEAKS_RULES


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
    # Gated detectors (gitleaks' rules and the ones added with them) run only where one of their `keywords`
    # (lower case, matched in any case) or `anchors` (exact) occurs; the secret is the `secret` group, else
    # the first group that matched, else the match. A secret below `entropy` bits per character, matching an
    # `allowed` regex or containing a stopword is a placeholder, not a credential. `mixed`: the secret must hold
    # a letter and a digit (an assigned value such as `your-key-here` is not a key).
    keywords: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    entropy: float | None = None
    allowed: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    mixed: bool = False
    opt_in: bool = False

    @property
    def gated(self) -> bool:
        return bool(self.keywords or self.anchors)


# The next line's variable name after an empty assignment (`KEY=\nOTHER_KEY=`), which gitleaks drops with an
# allowlist on the whole match that pi-tools does not port (it tests secrets alone).
_NEXT_NAME = (r"^[A-Za-z_.-]+=?$",)

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
    Detector("github-token", r"g(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})\b"),
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
    Detector("url-password", r"://[^\s:/@\"'<>]*:(?P<secret>(?!\[REDACTED:)[^\s@/\"'<>]+)@",
             lead=r"[a-zA-Z][a-zA-Z0-9+.-]{0,31}"),
    Detector("basic-auth-header", r"(?i:basic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
             word_start=False, lead=r"(?i:\bauthorization)[\"']?\s*[:=]\s*[\"']?", keywords=("basic",)),
    Detector("discord-webhook-url",
             r"/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}(?![A-Za-z0-9_-])",
             lead=r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com", anchors=("/api/webhooks/",)),
    Detector("google-oauth-access-token", r"ya29\.[0-9A-Za-z_-]{20,}", anchors=("ya29.",)),
    # Keys of providers in Pi's catalog that the scanners below do not know by shape.
    Detector("cerebras-api-key", r"csk-[a-z0-9]{48}\b", anchors=("csk-",)),
    Detector("nvidia-api-key", r"nvapi-[A-Za-z0-9_-]{64}(?![A-Za-z0-9_-])", anchors=("nvapi-",)),
    Detector("fireworks-api-key", r"fw_[A-Za-z0-9]{24}\b", anchors=("fw_",)),
    Detector("together-api-key", r"tgp_v1_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", anchors=("tgp_v1_",)),
    Detector("vercel-ai-gateway-key", r"vck_[A-Za-z0-9]{40,}\b", anchors=("vck_",)),
    Detector("github-copilot-token", r"tid=[0-9a-f]{32};exp=[0-9]+;[^\s\"'\\]+", anchors=("tid=",)),
    # Any provider's key given to its environment variable (ANTHROPIC_API_KEY=..., "ZAI_API_KEY": "...",
    # export HF_TOKEN=...): covers the keys without a documented shape (Mistral, Z.ai, Baseten, Azure, ...).
    Detector("provider-api-key",
             r"[A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN)[\"']?[ \t]*[:=][ \t]*[\"']?"
             r"(?P<secret>[A-Za-z0-9_~+/-][A-Za-z0-9._~+/=:-]{15,})",
             anchors=("_API_KEY", "_TOKEN"), mixed=True,
             allowed=(r"^(?:sk-)?(?:your|my|test|fake|dummy|example|placeholder|xxx|\*)", r"(?i)x{6}|\.\.\.")),
    # The same for any other secret given to an environment variable or setting named as one (detect-secrets'
    # KeywordDetector, narrowed to the names that say "secret" and values that look generated).
    Detector("env-secret",
             r"[A-Z][A-Z0-9_]*_(?:SECRET|SECRET_KEY|PASSWORD|PASSWD|ACCESS_KEY)[\"']?[ \t]*[:=][ \t]*[\"']?"
             r"(?P<secret>[A-Za-z0-9_~+/-][A-Za-z0-9._~+/=:!@#%^&*-]{11,})",
             anchors=("_SECRET", "_PASSWORD", "_PASSWD", "_ACCESS_KEY"), mixed=True, entropy=3.0,
             allowed=(r"^(?:your|my|test|fake|dummy|example|placeholder|change|xxx|\*)", r"(?i)x{6}|\.\.\.")),
    # A password, secret or API key assigned in a YAML, .env, ini, JSON or shell line, whatever the case of its
    # name (`password: hunter22x`, `PASSWORD=...`, `"api_key": "..."`, `db_password = ...`), which the two
    # detectors above miss (they want an upper-case NAME_ prefix) and gitleaks finds only with its opt-in
    # generic-api-key. The value decides: it must look typed or generated (a letter and a digit, no spaces),
    # and code and placeholders are not secrets: `${PASSWORD}`, `$VAR`, `<your-key>`, `{{ vault }}`,
    # `%(pw)s`, `changeme1`, `your_api_key`, `sk-...`, `****`, an upper-case variable name (`"MY_API_KEY"`),
    # a dotted path or a call (`process.env.KEY`, `os.environ["KEY"]`, `config.apiKey`).
    Detector("assigned-secret",
             r"(?i:[A-Za-z0-9_-]*?(?:password|passwd|secret(?:[_-]?key)?|api[_-]?key|access[_-]?key|access[_-]?token|"
             r"auth[_-]?token|refresh[_-]?token))[\"']?[ \t]*[:=][ \t]*"
             r"(?:\"([^\"\s]{8,200})\"|'([^'\s]{8,200})'|([^\s\"'`,;(){}\[\]<>]{8,200})(?![^\s\"'`,;(){}\[\]<>]))",
             keywords=("password", "passwd", "secret", "apikey", "api_key", "api-key", "access_key", "access-key",
                       "accesskey", "access_token",
                       "access-token", "auth_token", "auth-token", "refresh_token", "refresh-token"),
             mixed=True,
             allowed=(r"^[$<{%*`(\[]", r"\.\.\.|x{4}|\*{3}|\$\{|\{\{|\(|\)",
                      r"(?i)^(?:your|my|the|a|an)[_-]",
                      r"(?i)^(?:example|sample|changeme|change[_-]me|placeholder|dummy|fake|test|redacted|todo|none|"
                      r"null|undefined|xxx|secret|password|passwd|token|key|api[_-]?key)(?:[_-]|\d|$)",
                      r"^[A-Z][A-Z0-9_]*$", r"^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$",
                      r"^(?:sk|pk|rk)-(?:ant-|or-|proj-)?\.{3}")),
    # detect-secrets' default plugins, where gitleaks has no rule of the same kind.
    Detector("artifactory-api-key", r"AKC[a-zA-Z0-9]{10,}\b", anchors=("AKC",), entropy=3.0),
    Detector("cloudant-password",
             r"(?i:cloudant)[\w.-]{0,20}(?:pass(?:word)?|pwd|api_?key)?[\"']?\s*[:=]+\s*[\"']?"
             r"(?P<secret>[0-9a-f]{64}|[a-z]{24})(?![0-9a-z])", keywords=("cloudant",)),
    Detector("discord-bot-token", r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27,38}\b",
             keywords=("discord",)),
    Detector("ibm-cloud-iam-key",
             r"(?i:ibm[\w.-]{0,20}(?:api_?key|iam|password|pwd|token|key))[\"']?\s*[:=]+\s*[\"']?"
             r"(?P<secret>[a-zA-Z0-9_-]{44})(?![a-zA-Z0-9_-])", keywords=("ibm",)),
    Detector("ibm-cos-hmac-secret",
             r"(?i:secret[-_]?(?:access)?[-_]?key)[\"']?\s*[:=]+\s*[\"']?(?P<secret>[a-f0-9]{48})(?![a-f0-9])",
             keywords=tuple(dict.fromkeys(f"secret{a}{b}{c}key" for a in ("", "-", "_") for b in ("", "access")
                                          for c in ("", "-", "_")))),
    Detector("mailchimp-api-key", r"-us[0-9]{1,2}\b", lead=r"[0-9a-f]{32}",
             anchors=tuple(f"-us{digit}" for digit in range(10))),
    Detector("softlayer-api-key",
             r"(?i:softlayer|sl)[\w.-]{0,20}(?i:api_?key|key|token)?[\"']?\s*[:=]+\s*[\"']?(?P<secret>[a-z0-9]{64})\b",
             keywords=("softlayer",)),
    Detector("square-oauth-secret", r"sq0csp-[0-9A-Za-z_-]{43}(?![0-9A-Za-z_-])", anchors=("sq0csp-",)),
    *(Detector(rule_id, regex, word_start=False, keywords=keywords, anchors=anchors, entropy=entropy,
               allowed=(*allowed, *GLOBAL_ALLOWED, *(_NEXT_NAME if opt_in else ())),
               stopwords=(*stopwords, *GLOBAL_STOPWORDS), opt_in=opt_in)
      for rule_id, regex, keywords, anchors, entropy, allowed, stopwords, opt_in in GITLEAKS_RULES),
)
# (kind, pattern) of every detector on by default, as the module has always exposed them.
DETECTORS: tuple[tuple[str, str], ...] = tuple((d.kind, d.pattern) for d in DETECTOR_TABLE if not d.opt_in)
KINDS = tuple(dict.fromkeys(d.kind for d in DETECTOR_TABLE if not d.opt_in))
ENTROPY_KINDS = tuple(dict.fromkeys(d.kind for d in DETECTOR_TABLE if d.opt_in))
USER_KIND = "pattern"
_LEAD_WINDOW = 64
_WORD = re.compile(r"[A-Za-z0-9_]")

# Text that every ungated detector's match contains, checked first as a necessary condition: substring tests run at
# memory speed, so the common case, a string without any of them, costs almost nothing. Every anchor is ASCII
# without quotes, backslashes or control characters, so it survives JSON escaping and can be looked for in
# serialised JSON too. Gated detectors add their own keywords (any case) and anchors (exact).
_OWN_ANCHORS: tuple[str, ...] = (
    "PRIVATE KEY", "sk-", "_live_", "_test_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glptt-", "gloas-", "xox", "AIza", "GOCSPX-", "hf_",
    "gsk_", "xai-", "npm_", "pypi-", "SG.", "_v1_", ":AA", "AccountKey=", "eyJ", "://",
)
_OWN_CASELESS: tuple[str, ...] = ("aws", "bearer")  # detectors that match these in any case


_OWN_GATE = frozenset((*_OWN_ANCHORS, *_OWN_CASELESS))


def _gates(opt_in: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    exact = dict.fromkeys(_OWN_ANCHORS)
    caseless = dict.fromkeys(_OWN_CASELESS)
    for detector in DETECTOR_TABLE:
        if detector.opt_in and not opt_in:
            continue
        exact.update(dict.fromkeys(detector.anchors))
        caseless.update(dict.fromkeys(detector.keywords))
    return tuple(exact), tuple(caseless)


ANCHORS, CASELESS_ANCHORS = _gates(False)
# Anchors so short or common that a line holding one is usually no secret (`SK` in TASK, `sk-` in a package name,
# `://` in any URL): a line wakes on them only where this regex (Rust's, in polars) also matches its raw JSON
# text. Each is a necessary condition of its detectors' matches: JSON escaping only lengthens a run of the
# characters they allow, and a line with a `\\u` or `\\/` escape is always scanned.
LINE_PATTERNS: dict[str, str] = {
    "SK": r"SK[0-9a-fA-F]{32}",
    "sk-": r"sk-[A-Za-z0-9_-]{20}",
    "://": r"://[^\s:/@\"'<>]*:[^\s@/\"'<>]+@",
}
_BIG = 4096  # above this many characters, one Aho-Corasick pass (polars) beats a substring test per anchor


class Gate:
    """The anchors a scanner's detectors need: `holds` says whether a text may hold a secret at all,
    `present` which anchors it holds (to run only the detectors gated on them)."""

    def __init__(self, exact: tuple[str, ...], caseless: tuple[str, ...]) -> None:
        self.exact = exact
        self.caseless = caseless
        self.exact_set = frozenset(exact)
        self.exact_bytes = tuple(a.encode() for a in exact)
        self.caseless_bytes = tuple(a.encode() for a in caseless)

    def holds(self, text: str | bytes) -> bool:
        """False when no detector gated by these anchors can match in `text`."""
        if len(text) > _BIG:
            return bool(self.holds_many([text])[0])
        if isinstance(text, bytes):
            return any(a in text for a in self.exact_bytes) or _caseless_in(text.lower(), self.caseless_bytes)
        return any(a in text for a in self.exact) or _caseless_in(text.lower(), self.caseless)

    def holds_many(self, texts: Sequence[str | bytes]) -> list[bool]:
        """`holds` of each text, in Aho-Corasick passes over all of them (polars' contains_any), a few MB at a
        time so that the copies polars needs stay small next to the file."""
        result: list[bool] = []
        for chunk in _chunks(texts):
            result.extend(self._holds_chunk(chunk))
        return result

    def _holds_chunk(self, texts: Sequence[str | bytes]) -> list[bool]:
        import polars as pl

        series = pl.Series([t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in texts],
                           dtype=pl.String)
        found = (series.str.contains_any([a for a in self.exact if a not in LINE_PATTERNS])
                 | series.str.contains_any(list(self.caseless), ascii_case_insensitive=True)
                 | series.str.contains("|".join(f"(?:{LINE_PATTERNS[a]})" for a in self.exact if a in LINE_PATTERNS)))
        return [bool(value) for value in found]

    def present(self, text: str, within: frozenset[str] | None = None) -> frozenset[str]:
        """The anchors (exact) and keywords (lower case) that occur in `text`; only those of `within` (the ones
        a larger text holding `text` was found to hold) are looked for when it is given."""
        if within is not None:
            if not within:
                return within
            lowered = text.lower() if not within.isdisjoint(self.caseless) else text
            return frozenset(a for a in within if a in (text if a in self.exact_set else lowered))
        if len(text) <= _BIG:
            lowered = text.lower()
            return frozenset([*(a for a in self.exact if a in text), *(k for k in self.caseless if k in lowered)])

        return self.present_many([text])[0]

    def present_many(self, texts: Sequence[str | bytes]) -> list[frozenset[str]]:
        """`present` of each text, in two Aho-Corasick passes over all of them (polars' extract_many)."""
        result: list[frozenset[str]] = []
        for chunk in _chunks(texts):
            result.extend(self._present_chunk(chunk))
        return result

    def _present_chunk(self, texts: Sequence[str | bytes]) -> list[frozenset[str]]:
        import polars as pl

        series = pl.Series([t.decode("utf-8", "replace") if isinstance(t, bytes) else t for t in texts],
                           dtype=pl.String)
        exact = series.str.extract_many(list(self.exact), overlapping=True).list.unique().to_list()
        caseless = series.str.extract_many(list(self.caseless), ascii_case_insensitive=True,
                                           overlapping=True).list.unique().to_list()
        return [frozenset([*(one or ()), *(k.lower() for k in (other or ()))])
                for one, other in zip(exact, caseless, strict=True)]


def _chunks(texts: Sequence[str | bytes], size: int = 8 << 20) -> list[Sequence[str | bytes]]:
    """`texts` cut into runs of about `size` characters (a longer text is a run of its own)."""
    chunks: list[Sequence[str | bytes]] = []
    start = 0
    total = 0
    for index, text in enumerate(texts):
        total += len(text)
        if total >= size:
            chunks.append(texts[start:index + 1])
            start = index + 1
            total = 0
    if start < len(texts):
        chunks.append(texts[start:])
    return chunks


DEFAULT_GATE = Gate(ANCHORS, CASELESS_ANCHORS)
ENTROPY_GATE = Gate(*_gates(True))


def may_hold_secrets(text: str | bytes) -> bool:
    """False when no default detector can match in `text` (str, or UTF-8 / serialised JSON bytes)."""
    return DEFAULT_GATE.holds(text)


def _caseless_in(lowered: Any, anchors: tuple[Any, ...]) -> bool:
    return any(a in lowered for a in anchors)


class AnchorSet:
    """The anchors that occur in a large text (one pass), to test its parts against only those (`present`
    goes to Scanner.find as `within`).

    Scanning a 20 MB session for all anchors once and then each entry for the few that occur at all is
    several times cheaper than testing every entry for every anchor.
    """

    def __init__(self, whole: bytes, gate: Gate = DEFAULT_GATE) -> None:
        # No anchor spans a newline: the anchors of the whole are those of its lines that pass the line gate.
        lines = whole.split(b"\n") if whole else []
        holding = [line for line, holds in zip(lines, gate.holds_many(lines), strict=True) if holds]
        present = frozenset().union(*gate.present_many(holding)) if holding else frozenset()
        self.present: frozenset[str] = present
        self.exact = tuple(a.encode() for a in gate.exact if a in present)
        self.caseless = tuple(a.encode() for a in gate.caseless if a in present)

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
    gate: frozenset[str]
    detector: Detector
    allowed: tuple[re.Pattern[str], ...]


def _compile(detector: Detector) -> _Compiled:
    lead = re.compile(f"(?:{detector.lead})\\Z") if detector.lead else None
    return _Compiled(detector.kind, re.compile(detector.pattern), detector.word_start, lead, detector.needs,
                     "(?P<secret>" in detector.pattern, frozenset((*detector.keywords, *detector.anchors)),
                     detector, tuple(re.compile(allowed) for allowed in detector.allowed))


def shannon_entropy(text: str) -> float:
    """Bits per character of `text` (gitleaks' and detect-secrets' measure of randomness)."""
    if not text:
        return 0.0
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    length = len(text)
    return -sum(count / length * math.log2(count / length) for count in counts.values())


_DIGEST = re.compile(r"(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128})", re.IGNORECASE)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")


def _credible(compiled: _Compiled, secret: str) -> bool:
    """False for what a gated detector matched but is a placeholder (low entropy, allowed, a stopword), or,
    for the opt-in generic rule, a hex digest or a UUID (hashes and ids are never redacted)."""
    detector = compiled.detector
    if detector.entropy is not None and shannon_entropy(secret) < detector.entropy:
        return False
    if detector.mixed and not (_LETTER.search(secret) and _DIGIT.search(secret)):
        return False
    if any(allowed.search(secret) for allowed in compiled.allowed):
        return False
    if detector.stopwords:
        lowered = secret.lower()
        if any(word in lowered for word in detector.stopwords):
            return False
    return not (detector.opt_in and (_DIGEST.fullmatch(secret) or _UUID.fullmatch(secret)))


def _span(compiled: _Compiled, match: re.Match[str], start: int) -> tuple[int, int]:
    """Where the secret is: the `secret` group, else (gated detectors, as gitleaks) the first group that matched,
    else the match from `start` (where its lead begins)."""
    if compiled.narrowed and match.start("secret") >= 0:
        return match.start("secret"), match.end("secret")
    if compiled.gate and match.re.groups:
        for index in range(1, match.re.groups + 1):
            if match.start(index) >= 0 and match.end(index) > match.start(index):
                return match.start(index), match.end(index)
    return start, match.end()


class Scanner:
    """The detectors, plus user patterns (kind `pattern`); each runs on its own so its literal start is fast.

    `entropy=True` adds the opt-in generic rule (a high-entropy value assigned to a key, token, secret or
    password name), which finds secrets of unknown kinds at the price of false positives.
    """

    def __init__(self, user_patterns: Sequence[str] = (), *, entropy: bool = False) -> None:
        compiled = [_compile(detector) for detector in DETECTOR_TABLE if entropy or not detector.opt_in]
        for pattern in user_patterns:
            try:
                compiled.append(_compile(Detector(USER_KIND, pattern, word_start=False)))
            except re.error as exc:
                raise PatternError(f"--pattern {pattern!r}: not a regular expression: {exc}") from None
        self.compiled = tuple(compiled)
        self.anchored = not user_patterns  # user patterns have no anchors: every string is scanned
        self.gate = ENTROPY_GATE if entropy else DEFAULT_GATE
        # Which gated detectors each anchor wakes, so that a string runs only those its anchors name.
        self._ungated = tuple(index for index, detector in enumerate(compiled) if not detector.gate)
        self._woken: dict[str, tuple[int, ...]] = {}
        for index, detector in enumerate(compiled):
            for anchor in detector.gate:
                self._woken[anchor] = (*self._woken.get(anchor, ()), index)

    def may_hold(self, text: str | bytes) -> bool:
        """False when none of this scanner's detectors can match in `text`."""
        return not self.anchored or self.gate.holds(text)

    def may_hold_many(self, texts: Sequence[str | bytes]) -> list[bool]:
        return self.gate.holds_many(texts) if self.anchored else [True] * len(texts)

    def present_many(self, texts: Sequence[str | bytes]) -> list[frozenset[str]] | None:
        """The anchors each text holds (None for a scanner with user patterns, which runs everywhere)."""
        return self.gate.present_many(texts) if self.anchored else None

    def find(self, text: str, within: frozenset[str] | None = None) -> list[Secret]:
        """Every detected secret in `text` as (kind, start, end), in order and without overlaps.

        Where matches of several detectors overlap, the one starting first wins, and at the same start the
        one listed first (as a single alternation of all detectors would decide). `within`: the anchors a text
        that holds `text` holds (from `present_many`), so that only those are looked for.
        """
        present = self.gate.present(text, within if self.anchored else None)
        if self.anchored and not present:
            return []
        lowered: str | None = None
        candidates: list[tuple[int, int, int, Secret]] = []
        # The ungated detectors need one of the own anchors (user patterns, which have none, always run).
        running = set(self._ungated if not self.anchored or not _OWN_GATE.isdisjoint(present) else ())
        for anchor in present:
            running.update(self._woken.get(anchor, ()))
        for index in sorted(running):
            detector = self.compiled[index]
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
                first, last = _span(detector, match, start)  # a lead belongs to the secret (a bot's id)
                if detector.gate:
                    if not _credible(detector, text[first:last]):
                        continue
                    start = first
                secret = Secret(detector.kind, first, last)
                candidates.append((start, index, max(last, match.end()) if not detector.gate else last, secret))
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
