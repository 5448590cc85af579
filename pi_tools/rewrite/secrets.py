"""A small, well-defined set of secret detectors: credentials whose shape is documented by their issuer.

Each detector names one kind of secret and matches only that shape, so a hit is very likely a real credential
and a miss means "none of these kinds", never "no secrets". Generic high-entropy strings are deliberately not
detected (their false positives would rewrite hashes, ids and base64 data). For credentials that sit inside a
larger match (a bearer token in an Authorization header, the password of a URL) only the secret itself is
reported.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# (kind, pattern); a group named `secret` narrows the reported span to the credential itself.
DETECTORS: tuple[tuple[str, str], ...] = (
    ("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    ("anthropic-api-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai-api-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("aws-access-key-id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("bearer-token", r"(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?bearer\s+)(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)"),
    ("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@\"'<>]+:(?P<secret>[^\s@/\"'<>]+)@"),
)
KINDS = tuple(kind for kind, _ in DETECTORS)


class Secret(NamedTuple):
    kind: str
    start: int
    end: int


def _combined() -> re.Pattern[str]:
    alternatives = []
    for index, (_, pattern) in enumerate(DETECTORS):
        alternatives.append(f"(?P<d{index}>{pattern.replace('(?P<secret>', f'(?P<s{index}>')})")
    return re.compile("|".join(alternatives))


_COMBINED = _combined()
_HAS_SECRET_GROUP = tuple(f"(?P<s{i}>" in _COMBINED.pattern for i in range(len(DETECTORS)))


def find_secrets(text: str) -> list[Secret]:
    """Every detected secret in `text` as (kind, start, end), in order and without overlaps (one scan)."""
    found: list[Secret] = []
    for match in _COMBINED.finditer(text):
        name = match.lastgroup
        if name is None:
            continue
        index = int(name[1:])
        if _HAS_SECRET_GROUP[index] and match.start(f"s{index}") >= 0:
            found.append(Secret(DETECTORS[index][0], match.start(f"s{index}"), match.end(f"s{index}")))
        else:
            found.append(Secret(DETECTORS[index][0], match.start(), match.end()))
    return found


def scrub_text(text: str) -> str:
    """`text` with each detected secret replaced by `[REDACTED:<kind>]`."""
    secrets = find_secrets(text)
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
