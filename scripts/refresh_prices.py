"""Regenerate pi_tools/usage/data/litellm_prices.json from the newest (or a given) litellm wheel on PyPI.

Usage: python scripts/refresh_prices.py [--version X.Y.Z | --wheel PATH] [--date YYYY-MM-DD] [--out PATH]

The litellm package ships LiteLLM's model price table as ``litellm/model_prices_and_context_window_backup.json``
(the table ccusage prices with). We read it straight out of the wheel (``pip download --no-deps``; litellm is
never installed nor made a dependency) and keep only what ``usage`` needs, so the package data stays small:
per model key, its ``litellm_provider`` and the per-token input, output, cache-read and cache-write costs, plus
the four ``*_above_200k_tokens`` tier rates (the only tier ccusage reads). Entries without both an input and an
output cost are dropped, as ccusage's loader drops them. Rows are positional (column names in ``fields``) with
trailing nulls cut; the numbers are copied unchanged, so a price is bit-for-bit LiteLLM's. The file records the
litellm version, the table's sha256 and the snapshot date. Output is sorted and compact: regenerating from the
same wheel with the same date is byte-identical. The file is replaced atomically.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TABLE_MEMBER = "litellm/model_prices_and_context_window_backup.json"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "pi_tools" / "audit" / "data" / "litellm_prices.json"
FIELDS = (
    "litellm_provider",
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "input_cost_per_token_above_200k_tokens",
    "output_cost_per_token_above_200k_tokens",
    "cache_read_input_token_cost_above_200k_tokens",
    "cache_creation_input_token_cost_above_200k_tokens",
)


def download_wheel(version: str | None, folder: Path) -> Path:
    """`pip download --no-deps litellm[==version]` into `folder`; the one wheel it saved."""
    spec = f"litellm=={version}" if version else "litellm"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d",
                    str(folder), spec], check=True)
    wheels = sorted(folder.glob("litellm-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one litellm wheel in {folder}, found {[w.name for w in wheels]}")
    return wheels[0]


def read_wheel(wheel: Path) -> tuple[str, bytes]:
    """(litellm version from the wheel's METADATA, the raw price table bytes)."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next((name for name in archive.namelist()
                         if name.endswith(".dist-info/METADATA") and name.startswith("litellm-")), None)
        if metadata is None:
            raise SystemExit(f"{wheel}: no litellm-*.dist-info/METADATA")
        version = next((line.split(":", 1)[1].strip() for line in archive.read(metadata).decode().splitlines()
                        if line.startswith("Version:")), None)
        if version is None:
            raise SystemExit(f"{wheel}: METADATA names no Version")
        try:
            raw = archive.read(TABLE_MEMBER)
        except KeyError:
            raise SystemExit(f"{wheel}: no {TABLE_MEMBER}") from None
    return version, raw


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def build_table(raw: bytes, version: str, snapshot_date: str) -> dict[str, Any]:
    """The compact table: source facts, column names, and one positional row per priced model key."""
    table = json.loads(raw)
    models: dict[str, list[Any]] = {}
    for key in sorted(table):
        entry = table[key]
        if key == "sample_spec" or not isinstance(entry, dict):
            continue
        if not (_is_number(entry.get(FIELDS[1])) and _is_number(entry.get(FIELDS[2]))):
            continue
        provider = entry.get(FIELDS[0])
        row: list[Any] = [provider if isinstance(provider, str) else None]
        row.extend(entry.get(name) if _is_number(entry.get(name)) else None for name in FIELDS[1:])
        while row[-1] is None:
            row.pop()
        models[key] = row
    return {
        "source": {
            "package": "litellm",
            "version": version,
            "file": TABLE_MEMBER,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "snapshotDate": snapshot_date,
            "entries": len(models),
        },
        "fields": list(FIELDS),
        "models": models,
    }


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o644)  # package data: readable by all, like the files beside it
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--version", help="litellm version to download (default: the newest on PyPI)")
    source.add_argument("--wheel", type=Path, help="a litellm wheel already downloaded")
    parser.add_argument("--date", help="snapshot date to record (default: today, UTC)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    snapshot_date = args.date or datetime.now(UTC).date().isoformat()
    if args.wheel is not None:
        version, raw = read_wheel(args.wheel)
    else:
        with tempfile.TemporaryDirectory(prefix="refresh-prices-") as folder:
            version, raw = read_wheel(download_wheel(args.version, Path(folder)))
    table = build_table(raw, version, snapshot_date)
    # One model per line keeps diffs between snapshots readable; the rest is compact.
    lines = [f"{json.dumps(key)}:{json.dumps(row, separators=(',', ':'))}" for key, row in table["models"].items()]
    head = json.dumps({"source": table["source"], "fields": table["fields"]}, separators=(",", ":"))
    text = head[:-1] + ',"models":{\n' + ",\n".join(lines) + "\n}}\n"
    write_atomically(args.out, text)
    print(f"{args.out}: litellm {version}, {len(table['models'])} priced models, snapshot {snapshot_date}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
