"""Write randomly damaged copies of two synthetic contexts (input for ``run_contexts.mjs``).

Usage: ``python damage_contexts.py SEED OUT.json`` from this folder. Each damage deletes a field of a message or
content block, or replaces it with another JSON value, so the reference's behaviour on malformed stored data
(TypeError or a payload built anyway) can be recorded with ``node run_contexts.mjs OUT.json``.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPLACEMENTS: list[Any] = [
    None,
    0,
    1,
    "",
    "x",
    [],
    {},
    True,
    False,
    "  ",
    2.5,
    [1],
    {"a": 1},
    '{"v":1,"id":"i"}',
]
REPLACEMENTS += ["a|b", "fc_1"]


def _context(path: Path, name: str) -> dict[str, Any]:
    cases = json.loads(path.read_text(encoding="utf-8"))
    context: dict[str, Any] = next(case for case in cases if case["name"] == name)["context"]
    return context


def damage(context: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    damaged = copy.deepcopy(context)
    for _ in range(rng.randint(1, 3)):
        message = rng.choice(damaged["messages"])
        target = message
        content = message.get("content")
        if isinstance(content, list) and content and rng.random() < 0.8:
            target = rng.choice(content)
        if not isinstance(target, dict):
            continue
        keys = [key for key in target if key != "role"]
        if not keys:
            continue
        key = rng.choice(keys)
        if rng.random() < 0.3:
            del target[key]
        else:
            target[key] = rng.choice(REPLACEMENTS)
    return damaged


def main() -> None:
    rng = random.Random(int(sys.argv[1]))
    responses = _context(HERE / "synthetic_cases.json", "replay gpt-5.1 undefined")
    mistral = _context(HERE.parent / "mistral" / "synthetic_cases.json", "magistral-medium-latest undefined")
    options = {"apiKey": "k", "sessionId": "s", "reasoning": "low"}
    cases = []
    for _ in range(250):
        cases.append({"model": "openai/gpt-5.1", "context": damage(responses, rng), "options": options})
        cases.append(
            {"model": "mistral/magistral-medium-latest", "context": damage(mistral, rng), "options": options}
        )
    Path(sys.argv[2]).write_text(json.dumps(cases), encoding="utf-8")


if __name__ == "__main__":
    main()
