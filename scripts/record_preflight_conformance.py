"""Record tests/data/preflight/conformance.json: preflight's findings for every conformance case and model variant.

Each case is checked for the 11 model variants of its golden (the representative model of each API and the extra
variants), with the golden's own inputs (system prompt, tools), without and with the requested reasoning level.
Rerun after a rule change and review the diff by hand (tests/preflight/test_preflight_conformance.py says why
each class of finding is right).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pi_tools.preflight.check import PreflightRequest  # noqa: E402
from pi_tools.preflight.session import preflight_path  # noqa: E402
from pi_tools.providers.table import representative_models  # noqa: E402

CASES = ROOT / "fixtures" / "conformance" / "cases"
EXPECTED = ROOT / "fixtures" / "conformance" / "expected"
OUT = ROOT / "tests" / "data" / "preflight" / "conformance.json"


def variant_model(key: str) -> str:
    return key.split("@", 1)[1] if "@" in key else representative_models()[key]


def record() -> dict[str, dict[str, list[list[object]]]]:
    out: dict[str, dict[str, list[list[object]]]] = {}
    for case in sorted(CASES.glob("*.jsonl")):
        golden = json.loads((EXPECTED / f"{case.stem}.json").read_text())
        if "error" in golden:
            continue
        inputs = golden["inputs"]
        keys = sorted(golden.get("payloads") or {})
        results: dict[str, list[list[object]]] = {}
        for key in keys:
            for label, reasoning in (("", "off"), ("+reasoning", inputs.get("reasoningRequested"))):
                request = PreflightRequest(model=variant_model(key), system_prompt=inputs.get("systemPrompt"),
                                           tools=inputs.get("tools"), reasoning=reasoning,
                                           session_id=(inputs.get("streamOptions") or {}).get("sessionId"))
                result = preflight_path(str(case), request)
                if result.error:
                    results[key + label] = [["error", result.error.replace(str(case), case.name)]]
                else:
                    results[key + label] = [[f["rule"], f["payloadPath"], f["entryId"]] for f in result.findings]
        out[case.name] = results
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
