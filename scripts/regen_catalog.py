"""Regenerate pi_tools/providers/data/models.json from an installed @earendil-works/pi-ai package.

Usage: python scripts/regen_catalog.py [PI_AI_PACKAGE_DIR] [--out PATH]

PI_AI_PACKAGE_DIR defaults to /tmp/ref/node_modules/@earendil-works/pi-ai (the pinned reference install); the
output defaults to pi_tools/providers/data/models.json next to this repository's package.

The package ships one ``dist/providers/data/<provider>.json`` per provider, shaped ``{api: {modelId: Model}}``.
pi-ai flattens each file into ``{modelId: Model}`` (later API groups win on a duplicate id); we store that
flattened view per provider so lookups need no further work, and copy every model field unchanged. Output is
compact, key order preserved and providers sorted, so regenerating from the same package is byte-identical.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import orjson

DEFAULT_PACKAGE = Path("/tmp/ref/node_modules/@earendil-works/pi-ai")
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "pi_tools" / "providers" / "data" / "models.json"


def flatten_provider(groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Merge the per-API groups the way pi-ai's catalog flattening does (a repeated id keeps its first slot).

    Since pi-ai 1.x a model has a ``type`` (chat, image, classifier), the data files key it ``type:id``, and the
    chat catalog keeps only ``chat`` models, keyed by id (model-catalog.ts: flattenChatModelCatalog); 0.x models
    have no type and are all chat models, keyed by id."""
    merged: dict[str, Any] = {}
    for models in groups.values():
        merged.update({model.get("id", key): model for key, model in models.items()
                       if model.get("type", "chat") == "chat"})
    return merged


def build_catalog(package_dir: Path) -> dict[str, Any]:
    data_dir = package_dir / "dist" / "providers" / "data"
    files = sorted(p for p in data_dir.glob("*.json") if not p.name.startswith("."))
    if not files:
        raise SystemExit(f"no provider data under {data_dir}")
    package = json.loads((package_dir / "package.json").read_text(encoding="utf-8"))
    manifest_path = data_dir / ".manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    providers: dict[str, Any] = {}
    for path in files:
        groups = json.loads(path.read_text(encoding="utf-8"))
        providers[path.stem] = flatten_provider(groups)
    return {
        "source": {
            "package": package.get("name"),
            "version": package.get("version"),
            "generatedAt": manifest.get("generatedAt"),
        },
        "providers": providers,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package_dir", nargs="?", type=Path, default=DEFAULT_PACKAGE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    catalog = build_catalog(args.package_dir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(orjson.dumps(catalog) + b"\n")
    count = sum(len(models) for models in catalog["providers"].values())
    print(f"wrote {count} models from {len(catalog['providers'])} providers to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
