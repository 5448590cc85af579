"""Node's answers for the JavaScript functions pi_tools.js reproduces (tests/data/js, made by
scripts/js_expectations.mjs with the Node 22 that runs Pi 0.85), decoded into the values pi_tools uses."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pi_tools.js.values import UNDEFINED

DATA = Path(__file__).resolve().parents[1] / "data" / "js"
_NUMBERS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


def decode(value: Any) -> Any:
    """A case's input: ``{"$undefined": true}`` is a missing property (UNDEFINED); the rest is plain JSON."""
    if isinstance(value, dict):
        if value == {"$undefined": True}:
            return UNDEFINED
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def number(value: Any) -> float:
    """A numeric result as the generator spelled it (NaN, Infinity and -0 have no JSON form)."""
    return _NUMBERS[value] if isinstance(value, str) else float(value)


def same_number(got: float, want: float) -> bool:
    """Equality that treats NaN as equal to NaN and tells -0 from 0, as Object.is does."""
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def node_cases(name: str) -> list[dict[str, Any]]:
    """The cases of tests/data/js/<name>.json."""
    cases: list[dict[str, Any]] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    return cases


def case_id(case: dict[str, Any]) -> str:
    """A readable, unique-enough test id for a case."""
    return json.dumps(case.get("value", case.get("case")), ensure_ascii=True)[:40]
