"""Condense reference-oracle documents into small digests that tests can compare against.

The oracle's full output for the real-world sessions is ~200 MB (every payload of 11 model variants, twice);
the digest keeps counts and SHA-256 sums of canonical JSON so the repository stays small while every value
is still checked exactly.

usage: python scripts/digest_oracle.py ORACLE_OUT_DIR DIGEST_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.golden import canonical_sha  # noqa: E402  (the tests' own definition, so both sides hash alike)


def digest(document: dict[str, Any]) -> dict[str, Any]:
    if "error" in document:
        return {"source": document["source"], "error": document["error"]}
    result: dict[str, Any] = {
        "source": document["source"],
        "leafId": document["leafId"],
        "messages": len(document["context"]["messages"]),
        "context": canonical_sha(document["context"]),
        "llm": canonical_sha(document["llm"]),
        "branches": {
            leaf: {"context": canonical_sha(b["context"]), "llm": canonical_sha(b["llm"])}
            for leaf, b in document.get("branches", {}).items()
        },
        "inputs": document.get("inputs"),
    }
    for variant in ("payloads", "payloadsReasoning"):
        entries = {}
        for key, entry in (document.get(variant) or {}).items():
            item: dict[str, Any] = {"model": entry["model"], "reasoning": entry.get("reasoning")}
            if "error" in entry:
                item["error"] = entry["error"]
            else:
                item["payload"] = canonical_sha(entry["payload"])
                wire = entry.get("wire")
                if wire is not None:
                    item["wire"] = {"error": wire["error"]} if "error" in wire else {
                        "method": wire["method"], "url": wire["url"], "body": canonical_sha(wire["body"]),
                    }
            entries[key] = item
        result[variant] = entries
    return result


def main() -> None:
    source_dir, target_dir = Path(sys.argv[1]), Path(sys.argv[2])
    target_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(source_dir.glob("*.json")):
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        with open(target_dir / path.name, "w", encoding="utf-8") as out:
            json.dump(digest(document), out, indent=1, sort_keys=True)
            out.write("\n")


if __name__ == "__main__":
    main()
