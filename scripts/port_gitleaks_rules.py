"""Regenerate pi_tools/secrets/gitleaks_rules.py from gitleaks' default configuration (config/gitleaks.toml).

Usage: python scripts/port_gitleaks_rules.py PATH/TO/gitleaks.toml COMMIT > pi_tools/secrets/gitleaks_rules.py

gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, Copyright (c) 2019 Zachary Rice) writes its rules
for Go's RE2; the few constructs Python's `re` reads differently are rewritten here, mechanically, so that the
generated module is a faithful port that can be regenerated when gitleaks adds rules:
- a `(?i)` in the middle of a pattern (RE2: case-insensitive to the end of the enclosing group) becomes a scoped
  `(?i:...)` over the same span; `\\z` becomes `\\Z`; a `[` inside a character class is escaped;
- the leading `[\\w.-]{0,50}?` of keyword rules (it only widens the reported match to the left) is dropped, so that
  Python's engine starts at the keyword instead of trying every position.
Rules pi-tools has its own detector for (jwt, private-key), the path-only rule (pkcs12-file) and the generic
entropy rule (generic-api-key, opt-in through `--entropy`, kept apart) are marked as such.
"""

from __future__ import annotations

import re
import sys
import tomllib
from typing import Any

OWN = {"jwt", "private-key", "pkcs12-file"}
OPT_IN = {"generic-api-key"}
# Keywords (gitleaks tests them case-insensitively) too common to gate a rule on: the rule is gated on the
# more specific ones given here instead, or on exact-case anchors.
KEYWORDS = {
    "twilio-api-key": ((), ("SK",)),
    "octopus-deploy-api-key": ((), ("API-",)),
    "vault-service-token": (("hvs.", "vault"), ()),
    "lob-api-key": (("test_", "live_"), ()),
    "lob-pub-api-key": (("test_pub", "live_pub"), ()),
    "gocardless-api-token": (("gocardless",), ()),
    "kubernetes-secret-yaml": (("kind:",), ()),
    "freemius-secret-key": (("secret_key",), ()),
    "hashicorp-tf-password": (("password",), ()),
    "jwt-base64": ((), ("ZXlK",)),
}


def _group_end(pattern: str, start: int) -> int:
    """Index of the `)` closing the group that contains `start` (len(pattern) when at top level)."""
    depth = 0
    index = start
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "]":
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index
            depth -= 1
        index += 1
    return len(pattern)


def _escape_nested_classes(pattern: str) -> str:
    out = []
    index = 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index:index + 2])
            index += 2
            continue
        if in_class:
            if char == "]" and not out[-1].endswith("["):
                in_class = False
            elif char == "[":
                char = "\\["
        elif char == "[":
            in_class = True
            if pattern[index + 1:index + 2] == "^":
                out.append("[^")
                index += 2
                continue
        out.append(char)
        index += 1
    return "".join(out)


def to_python(pattern: str) -> str:
    pattern = pattern.replace("\\z", "\\Z")
    pattern = _escape_nested_classes(pattern)
    if pattern.startswith("(?i)[\\w.-]{0,50}?"):
        pattern = "(?i)" + pattern[len("(?i)[\\w.-]{0,50}?"):]
    if pattern.startswith("[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?"):
        pattern = "(?i:" + pattern[len("[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?"):]
    while True:
        position = pattern.find("(?i)", 1)
        if position < 0:
            break
        end = _group_end(pattern, position + 4)
        pattern = pattern[:position] + "(?i:" + pattern[position + 4:end] + ")" + pattern[end:]
    re.compile(pattern)
    return pattern


def _gate(keywords: tuple[str, ...], regex: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(caseless keywords, exact anchors): a keyword that the regex spells as a case-sensitive literal (outside
    any `(?i`) becomes an exact anchor in that spelling (`SG.` rather than any-case `sg.`, which `msg.` holds),
    so the rule wakes far less often; the others stay caseless, as gitleaks tests them."""
    caseless: list[str] = []
    exact: list[str] = []
    literal = re.sub(r"\\([^A-Za-z0-9])", r"\1", regex)
    for keyword in keywords:
        found = re.search(re.escape(keyword), literal, re.IGNORECASE)
        sensitive = found is not None and "(?i" not in literal[:found.start()] and all(
            char.isalnum() or char in "_-.~" for char in found.group())
        if sensitive and found is not None:
            exact.append(found.group())
        else:
            caseless.append(keyword)
    return tuple(dict.fromkeys(caseless)), tuple(dict.fromkeys(exact))


def _allow(rule: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    regexes: list[str] = []
    stopwords: list[str] = []
    for allow in rule.get("allowlists", ()):
        if allow.get("paths") or allow.get("regexTarget", "secret") != "secret" or allow.get("condition"):
            continue  # path and whole-line allowlists have no meaning in a session
        regexes.extend(to_python(regex) for regex in allow.get("regexes", ()))
        stopwords.extend(allow.get("stopwords", ()))
    return tuple(regexes), tuple(stopwords)


def main() -> None:
    config = tomllib.load(open(sys.argv[1], "rb"))
    commit = sys.argv[2]
    print(f'"""gitleaks\' default rules (config/gitleaks.toml at commit {commit}), ported to Python\'s `re`.')
    print()
    print("Generated by scripts/port_gitleaks_rules.py; do not edit. gitleaks is MIT-licensed,")
    print("Copyright (c) 2019 Zachary Rice (https://github.com/gitleaks/gitleaks). Each rule is (id, regex,")
    print("caseless keywords, exact anchors, entropy threshold or None, allowed-secret regexes, stopwords, opt_in);")
    print("the rule only runs where one keyword or anchor occurs, as in gitleaks.")
    print('"""')
    print()
    print("RULES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], float | None, tuple[str, ...], "
          "tuple[str, ...], bool], ...] = (")
    for rule in config["rules"]:
        if rule["id"] in OWN or "regex" not in rule:
            continue
        regex = to_python(rule["regex"])
        keywords, anchors = KEYWORDS.get(rule["id"], _gate(tuple(k.lower() for k in rule.get("keywords", ())), regex))
        regexes, stopwords = _allow(rule)
        item = (rule["id"], regex, tuple(keywords), tuple(anchors), rule.get("entropy"),
                regexes, tuple(stopwords), rule["id"] in OPT_IN)
        print(f"    {item!r},")
    print(")")
    allow = config["allowlist"]
    print(f"GLOBAL_ALLOWED: tuple[str, ...] = {tuple(to_python(r) for r in allow.get('regexes', ()))!r}")
    print(f"GLOBAL_STOPWORDS: tuple[str, ...] = {tuple(allow.get('stopwords', ()))!r}")


if __name__ == "__main__":
    main()
