"""The secret detectors behind `export --scrub` (pi_tools.secrets.detectors): each kind found exactly, look-alikes not."""

from __future__ import annotations

import pytest

from pi_tools.secrets.detectors import KINDS, Secret, find_secrets, scrub_text

EXAMPLES = {
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "anthropic-api-key": "sk-ant-api03-" + "x1Y2z3" * 6,
    "openai-api-key": "sk-proj-" + "Ab3dE" * 8,
    "aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_" + "a1B2c3" * 6,
    "slack-token": "xoxb-1234567890-abcdefghij",
    "google-api-key": "AIza" + "Sy" + "B" * 33,
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_each_kind_is_found_where_it_is(kind: str) -> None:
    secret = EXAMPLES[kind]
    text = f"before {secret} after"
    assert find_secrets(text) == [Secret(kind, 7, 7 + len(secret))]
    assert scrub_text(text) == f"before [REDACTED:{kind}] after"


def test_only_the_credential_of_a_header_or_url_is_reported() -> None:
    header = 'curl -H "Authorization: Bearer abcdef0123456789abcdef" https://api'
    start = header.index("abcdef")
    assert find_secrets(header) == [Secret("bearer-token", start, start + 22)]
    url = "git clone https://deploy:s3cr3t-p4ss@github.com/org/repo.git"
    assert scrub_text(url) == "git clone https://deploy:[REDACTED:url-password]@github.com/org/repo.git"


def test_look_alikes_are_left_alone() -> None:
    text = ("sk-short, AKIA1234 (too short), ghp_tooshort, an sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934c"
            "a495991b7852b855, a uuid 0198451e-c69c-7cda-acaf-a034c9cf0d6d, https://example.com/path@v2, "
            "Authorization: Basic, eyJ alone, BEGIN PUBLIC KEY")
    assert find_secrets(text) == []
    assert set(KINDS) >= set(EXAMPLES) | {"bearer-token", "url-password"}


def test_several_secrets_in_order() -> None:
    text = f"{EXAMPLES['github-token']} and {EXAMPLES['aws-access-key-id']}"
    assert [s.kind for s in find_secrets(text)] == ["github-token", "aws-access-key-id"]
    assert scrub_text(text) == "[REDACTED:github-token] and [REDACTED:aws-access-key-id]"
