"""`assigned-secret`: passwords, secrets and API keys assigned in YAML, .env, ini, JSON and shell lines, whatever
the case of their name, and what is not one (placeholders, variables, code). Exact redactions; and on the real
sessions, exactly what scrub redacts there (no more than before the detector existed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_tools.secrets.detectors import Scanner, scrub_text

REALWORLD = Path(__file__).resolve().parents[2] / "fixtures" / "realworld"

REDACTED = [
    ("password: hunter22x", "password: [REDACTED:assigned-secret]"),
    ("password: S3cr3tP@ssw0rd!", "password: [REDACTED:assigned-secret]"),
    ("PASSWORD=S3cr3tP4ss", "PASSWORD=[REDACTED:assigned-secret]"),
    ("export PASSWORD=S3cr3tP4ss", "export PASSWORD=[REDACTED:assigned-secret]"),
    ("db_password = 'Tr0ub4dor&3'", "db_password = '[REDACTED:assigned-secret]'"),
    ("api_key: a1B2c3D4e5F6g7H8i9J0", "api_key: [REDACTED:assigned-secret]"),
    ('apiKey: "Zq8xW2mP9vL4kT7n"', 'apiKey: "[REDACTED:assigned-secret]"'),
    ("API_KEY=Zq8xW2mP9vL4kT7n", "API_KEY=[REDACTED:assigned-secret]"),
    ("client_secret: 9fK2mQ8zX4vB7nL1", "client_secret: [REDACTED:assigned-secret]"),
    ("clientSecret: 9fK2mQ8zX4vB7nL1", "clientSecret: [REDACTED:assigned-secret]"),
    ("access_token=ab12cd34ef56gh78", "access_token=[REDACTED:assigned-secret]"),
    ("secret_key: 'mK9#pL2$vX7!'", "secret_key: '[REDACTED:assigned-secret]'"),
    ("password: pass1234", "password: [REDACTED:assigned-secret]"),
    ("db:\n  user: app\n  password: hunter22x\n  port: 5432",
     "db:\n  user: app\n  password: [REDACTED:assigned-secret]\n  port: 5432"),
    ("[client]\npasswd = Xy7Qp2Lk9m", "[client]\npasswd = [REDACTED:assigned-secret]"),
    # names with an upper-case prefix keep their older, more specific kind
    ("DB_PASSWORD=S3cr3tP4ssw0rd", "DB_PASSWORD=[REDACTED:env-secret]"),
]

# Placeholders, variables, code: a value must hold a letter and a digit, no spaces, and look typed.
KEPT = [
    "password: ${PASSWORD}", "password: $DB_PASS", "api_key: <your-key>", "password: changeme", "password: changeme123",
    "password: '{{ vault_password }}'", "password: %(password)s", "api_key: your_api_key_1", 'apiKey: "YOUR_API_KEY"',
    'apiKey: "KIMCHI_API_KEY"', "api_key: sk-...", "password: ********", "password: xxxxxxxx1", "password: test1234",
    'password = os.environ["PASSWORD"]', "apiKey: process.env.OPENAI_API_KEY", "apiKey = config.apiKey",
    "apiKey: options?.apiKey", "def login(password: str)", "api_key: Optional[str] = None", "password=password",
    "apiKey: string", "x-secret: \"!op read 'op://vault/item/secret'\"", "secret: true", "--password mypassword",
    'BETTER_AUTH_SECRET="dev-secret-change-in-production"', "password_hash: $2b$12$abcdefghijklmnopqrstuv",
    "token: abcd1234efgh", "secretName: db-creds-2",
]


@pytest.mark.parametrize(("text", "scrubbed"), REDACTED)
def test_assigned_secret_redacted(text: str, scrubbed: str) -> None:
    assert scrub_text(text) == scrubbed


@pytest.mark.parametrize("text", KEPT)
def test_placeholders_and_code_are_kept(text: str) -> None:
    assert scrub_text(text) == text


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_what_scrub_redacts_in_the_real_sessions() -> None:
    """Every redaction on fixtures/realworld: a JWT in a signed image URL (twice, one line) and database URL
    passwords (a placeholder-looking `randompassword` in a docs example, and a Neon password, five times). The
    assignments there are code and placeholders (`apiKey: await ...`, `"YOUR_API_KEY"`, `sk-ant-...`): none."""
    scanner = Scanner()
    found = []
    for path in sorted(REALWORLD.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            try:
                value = json.loads(line)
            except ValueError:
                value = line
            for text in _strings(value):
                found.extend((path.name.split("__")[0], number, kind, end - start)
                             for kind, start, end in scanner.find(text))
    assert found == [
        ("marcpadz", 78, "jwt", 709), ("marcpadz", 78, "jwt", 709), ("marcpadz", 748, "url-password", 14),
        ("marcpadz", 817, "url-password", 16), ("marcpadz", 825, "url-password", 16),
        ("marcpadz", 826, "url-password", 16), ("marcpadz", 828, "url-password", 16),
        ("marcpadz", 830, "url-password", 16),
    ]
