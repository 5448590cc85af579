"""A version 1 file with a line that is a JSON primitive: migrating it, Pi assigns `entry.id` to the primitive and
V8 refuses with the primitive's type and string form (recorded with both oracles, which agree). A boolean was named
a number (`number 'True'`: Python's bool is an int), and a number took Python's spelling (`7.0`, `1e+20`); null
and false are skipped before it (here the file loads with its one message). A differential fuzz run found it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

V1 = [
    '{"type":"session","id":"s-1","timestamp":"2026-02-15T05:26:35.173Z","cwd":"/w"}',
    '{"type":"message","timestamp":"2026-02-15T05:26:36.000Z","message":{"role":"user","content":"hi",'
    '"timestamp":1}}',
]


@pytest.mark.parametrize(("line", "error"), [
    ("true", "Cannot create property 'id' on boolean 'true'"),
    ("7.0", "Cannot create property 'id' on number '7'"),
    ("1e20", "Cannot create property 'id' on number '100000000000000000000'"),
    ("1.5", "Cannot create property 'id' on number '1.5'"),
    ('"str"', "Cannot create property 'id' on string 'str'"),
    ("false", None),
    ("null", None),
])
@pytest.mark.parametrize("pi", ["0.85", "1.6"])
def test_a_primitive_line_fails_the_migration_as_in_pi(cli: Any, tmp_path: Path, line: str, error: str | None,
                                                       pi: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([*V1, line]) + "\n")
    run = cli("context", "--pi", pi, str(path))
    document = json.loads(run.stdout.splitlines()[-1])
    if error is None:
        assert (run.code, document["kind"], len(document["messages"])) == (0, "context", 1)
    else:
        assert run.code != 0 and document["error"] == error
