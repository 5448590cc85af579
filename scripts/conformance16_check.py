"""Compare pi-tools' Pi 1.6 requests with ../shared/conformance16's goldens, in process, per payload key.

Usage: python scripts/conformance16_check.py [--api PREFIX] [--case NAME] [--show N] [--wire]

For each case and each payload key (`API` or `API@provider/id`), reasoning off and on, builds the payload as
`pi-tools payload --pi 1.6` does (the 1.6 edition's adapter, the 1.6 catalog) from the golden's own `llm` and
inputs, and counts exact matches (parsed JSON, key order included); with --wire, the HTTP request too (method,
URL, every header the oracle did not mask, body). --show N prints the first N differences. A development tool for
porting an API: tests/conformance/test_conformance16_payload.py is the check CI runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_tools.js.json_stringify import js_stringify  # noqa: E402
from pi_tools.pi import resolve  # noqa: E402
from pi_tools.providers import registry  # noqa: E402
from pi_tools.providers.catalog import find_model  # noqa: E402
from pi_tools.providers.errors import PayloadError  # noqa: E402

_SHARED = [Path(os.environ["PI_TOOLS_SHARED"])] if os.environ.get("PI_TOOLS_SHARED") else []
_SHARED += [ROOT.parent / "shared", Path("/work/shared")]  # as tests/support/oracle_path.py looks for it
SHARED = next((path for path in _SHARED if (path / "conformance16").is_dir()), _SHARED[0]) / "conformance16"
VERSION = resolve("1.6")


def _inputs(doc: dict[str, Any], entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    inputs = doc["inputs"]
    context: dict[str, Any] = {"messages": doc["llm"]}
    if inputs["systemPrompt"] is not None:
        context["systemPrompt"] = inputs["systemPrompt"]
    if inputs["tools"] is not None:
        context["tools"] = inputs["tools"]
    options = dict(inputs["streamOptions"])
    if entry.get("reasoning") is not None:
        options["reasoning"] = entry["reasoning"]
    return context, options


def _wire_body(wire: dict[str, Any]) -> Any:
    if "body" in wire:
        return wire["body"]
    if "bodyBase64" in wire:
        return ("base64", wire["bodyBase64"])
    return wire.get("bodyText")


def _comparable(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if value != "<volatile>"}


def check(doc: dict[str, Any], key: str, entry: dict[str, Any], wire: bool) -> str | None:
    """None when pi-tools builds what the golden holds, else a short description of the first difference."""
    api = key.split("@", 1)[0]
    context, options = _inputs(doc, entry)
    model = find_model(entry["model"], VERSION.requests.catalog)
    try:
        payload = registry.build_payload(api, model, context, options, VERSION.requests)
    except PayloadError as exc:
        if "error" in entry:
            return None if str(exc) == entry["error"] else f"error {exc!s:.200} != {entry['error']:.200}"
        return f"failed: {exc!s:.300}"
    except Exception as exc:  # noqa: BLE001 - a development report
        return f"crashed: {type(exc).__name__}: {exc!s:.300}"
    if "error" in entry:
        return f"built, reference failed: {entry['error']:.200}"
    if payload != entry["payload"] or js_stringify(payload) != js_stringify(entry["payload"]):
        return "payload differs:\n  ours: " + js_stringify(payload)[:1500] + "\n  ref:  " + \
            js_stringify(entry["payload"])[:1500]
    if wire and "wire" in entry:
        golden = entry["wire"]
        try:
            built = registry.build_wire(api, model, payload, options, VERSION.requests)
        except PayloadError as exc:
            return None if "error" in golden and str(exc) == golden["error"] else f"wire failed: {exc}"
        except Exception as exc:  # noqa: BLE001
            return f"wire crashed: {type(exc).__name__}: {exc!s:.300}"
        if "error" in golden:
            return f"wire built, reference failed: {golden['error']}"
        for field in ("method", "url"):
            if built.get(field) != golden.get(field):
                return f"wire {field}: {built.get(field)} != {golden.get(field)}"
        ours, theirs = _comparable(built.get("headers") or {}), _comparable(golden.get("headers") or {})
        if ours != theirs:
            extra = {k: v for k, v in ours.items() if theirs.get(k) != v}
            missing = {k: v for k, v in theirs.items() if ours.get(k) != v}
            return f"wire headers: ours {extra} ref {missing}"
        body = built.get("body")
        if "bodyBase64" in golden:
            if built.get("bodyBase64") != golden["bodyBase64"]:
                return "wire compressed body differs"
        elif body != golden.get("body"):
            return "wire body differs:\n  ours: " + json.dumps(body)[:800] + "\n  ref:  " + json.dumps(golden.get("body"))[:800]
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", default="", help="only keys starting with this")
    parser.add_argument("--case", default="", help="only cases whose name contains this")
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--wire", action="store_true")
    parser.add_argument("--root", type=Path, default=SHARED)
    args = parser.parse_args(argv)
    matched: Counter[str] = Counter()
    total: Counter[str] = Counter()
    shown = 0
    for path in sorted((args.root / "expected").glob("*.json")):
        if args.case not in path.stem:
            continue
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        for variant in ("payloads", "payloadsReasoning"):
            for key, entry in (doc.get(variant) or {}).items():
                if not key.startswith(args.api):
                    continue
                total[key] += 1
                problem = check(doc, key, entry, args.wire)
                if problem is None:
                    matched[key] += 1
                elif shown < args.show:
                    shown += 1
                    print(f"--- {path.stem} {variant} {key}: {problem}")
    for key in sorted(total):
        print(f"{matched[key]:4d}/{total[key]:<4d} {key}")
    print(f"{sum(matched.values())}/{sum(total.values())} matched")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
