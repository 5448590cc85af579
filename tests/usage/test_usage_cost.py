"""`usage --cost`: where each message's cost comes from, with exact figures for the real-world sessions.

The expected costs are computed here from the token counts (read from the fixtures by a plain-Python count)
and the prices written in the bundled table file and the catalog, not through the pricing module.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections import defaultdict
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers.catalog import get_model
from pi_tools.providers.errors import UnknownModelError
from pi_tools.usage import pricing
from pi_tools.usage.pricing import Pricer, lookup

ROOT = Path(__file__).resolve().parents[2]
REALWORLD = ROOT / "fixtures" / "realworld"
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})")
KINDS = ("input", "output", "cacheRead", "cacheWrite")
TABLE = json.loads(resources.files("pi_tools.usage").joinpath("data", "litellm_prices.json").read_bytes())


def table_prices(key: str) -> dict[str, Any]:
    """A bundled table row by field name, read from the file itself."""
    row = TABLE["models"][key]
    return {name: row[i] if i < len(row) else None for i, name in enumerate(TABLE["fields"])}


def tokens_by_model(folder: Path) -> dict[str, dict[str, Any]]:
    """Per model: token sums, message count, stored cost, and how many messages stored a cost other than 0."""
    out: dict[str, dict[str, Any]] = defaultdict(lambda: {**dict.fromkeys(KINDS, 0), "messages": 0,
                                                           "stored": 0.0, "storedNonZero": 0})
    for path in sorted(folder.glob("*.jsonl")):
        seen = set()
        for raw in path.read_bytes().split(b"\n"):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("type", "message") != "message":
                continue
            message = entry.get("message")
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            usage = message.get("usage")
            if not isinstance(usage, dict) or not isinstance(entry.get("timestamp"), str) \
                    or not ISO.fullmatch(entry["timestamp"]):
                continue
            if not all(type(usage.get(k)) in (int, float) for k in ("input", "output")):
                continue
            counts = {k: usage.get(k) if type(usage.get(k)) is int and usage[k] >= 0 else 0 for k in KINDS}
            total = usage.get("totalTokens")
            total = total if type(total) is int and total >= 0 else sum(counts.values())
            if (entry["timestamp"], total) in seen:
                continue
            seen.add((entry["timestamp"], total))
            sums = out[message["model"]]
            for kind in KINDS:
                sums[kind] += counts[kind]
            sums["messages"] += 1
            cost = usage.get("cost")
            stored = cost.get("total") if isinstance(cost, dict) else None
            if type(stored) in (int, float):
                sums["stored"] += stored
                sums["storedNonZero"] += stored != 0
    return dict(out)


@pytest.fixture(scope="module")
def realworld() -> dict[str, dict[str, Any]]:
    return tokens_by_model(REALWORLD)


def usage_by_model(cli: Any, mode: str, folder: Path = REALWORLD) -> dict[str, dict[str, Any]]:
    result = cli("usage", str(folder), "--by", "model", "--cost", mode, "--format", "json")
    assert result.code == 0, result.stderr
    return {row["model"]: row for row in json.loads(result.stdout)["rows"]}


def sources(stored: int = 0, catalog: int = 0, price_table: int = 0, unpriced: int = 0) -> dict[str, int]:
    return {"stored": stored, "catalog": catalog, "priceTable": price_table, "unpriced": unpriced}


def per_token_cost(sums: dict[str, Any], input_rate: float, output_rate: float, read_rate: float,
                   write_rate: float) -> float:
    return (sums["input"] * input_rate + sums["output"] * output_rate + sums["cacheRead"] * read_rate
            + sums["cacheWrite"] * write_rate)


def expected_recomputed(realworld: dict[str, dict[str, Any]]) -> dict[str, float]:
    """glm-5.1, glm-5.2, kimi-k2.5 and deepseek-v4-flash-free priced by hand from the files' prices."""
    glm51 = table_prices("zai/glm-5.1")  # zai has no glm-5.1 in the catalog; LiteLLM files it under zai/
    assert (glm51["input_cost_per_token"], glm51["output_cost_per_token"], glm51["cache_read_input_token_cost"],
            glm51["cache_creation_input_token_cost"]) == (1.4e-06, 4.4e-06, 2.6e-07, 0)
    glm52 = get_model("zai", "glm-5.2")["cost"]  # Pi's own catalog prices zai/glm-5.2 per million tokens
    assert (glm52["input"], glm52["output"], glm52["cacheRead"], glm52["cacheWrite"]) == (1.4, 4.4, 0.26, 0)
    # kimchi-dev is no provider LiteLLM knows: ccusage's rule picks the longest key containing "kimi-k2.5".
    kimi = table_prices("bedrock/ap-northeast-1/moonshotai.kimi-k2.5")
    assert (kimi["input_cost_per_token"], kimi["output_cost_per_token"], kimi["cache_read_input_token_cost"]) \
        == (7.2e-07, 3.6e-06, None)
    # opencode's free tier stored 0: the key contained in the id is LiteLLM's deepseek-v4-flash.
    flash = table_prices("deepseek-v4-flash")
    return {
        "glm-5.1": per_token_cost(realworld["glm-5.1"], 1.4e-06, 4.4e-06, 2.6e-07, 0.0),
        "glm-5.2": per_token_cost(realworld["glm-5.2"], 1.4 / 1e6, 4.4 / 1e6, 0.26 / 1e6, 0.0),
        "kimi-k2.5": per_token_cost(realworld["kimi-k2.5"], 7.2e-07, 3.6e-06, 7.2e-07 * 0.1, 7.2e-07 * 1.25),
        "deepseek-v4-flash-free": per_token_cost(
            realworld["deepseek-v4-flash-free"], flash["input_cost_per_token"], flash["output_cost_per_token"],
            flash["cache_read_input_token_cost"], flash["cache_creation_input_token_cost"]),
    }


def test_realworld_token_counts_are_the_independent_ones(cli: Any, realworld: dict[str, dict[str, Any]]) -> None:
    rows = usage_by_model(cli, "stored")
    assert set(rows) == set(realworld)
    for model, sums in realworld.items():
        assert [rows[model][k] for k in (*KINDS, "messages")] == [sums[k] for k in (*KINDS, "messages")]
    assert (realworld["glm-5.1"]["messages"], realworld["glm-5.1"]["input"] + realworld["glm-5.1"]["cacheRead"]
            + realworld["glm-5.1"]["output"]) == (485, 60_209_977)


def test_realworld_costs_stored(cli: Any, realworld: dict[str, dict[str, Any]]) -> None:
    rows = usage_by_model(cli, "stored")
    for model, sums in realworld.items():
        assert rows[model]["cost"] == pytest.approx(sums["stored"], abs=5e-7)  # costs: 6 decimals
        assert rows[model]["costSources"] == sources(stored=sums["messages"])
    for model in ("glm-5.1", "glm-5.2", "kimi-k2.5", "deepseek-v4-flash-free"):
        assert rows[model]["cost"] == 0.0
    assert sum(row["cost"] for row in rows.values()) == pytest.approx(126.15915536, abs=1e-5)


def test_realworld_costs_recomputed(cli: Any, realworld: dict[str, dict[str, Any]]) -> None:
    rows = usage_by_model(cli, "recomputed")
    for model, want in expected_recomputed(realworld).items():
        assert rows[model]["cost"] == pytest.approx(want, abs=5e-7), model
        assert rows[model]["costStored"] == 0.0 and rows[model]["costRecomputed"] == rows[model]["cost"]
    assert rows["glm-5.1"]["cost"] == pytest.approx(20.61027524, abs=5e-7)
    assert rows["glm-5.2"]["cost"] == pytest.approx(16.8575746, abs=5e-7)
    assert rows["kimi-k2.5"]["cost"] == pytest.approx(2.53820664, abs=5e-7)
    assert rows["deepseek-v4-flash-free"]["cost"] == pytest.approx(0.199368564, abs=5e-7)
    assert rows["glm-5.1"]["costSources"] == sources(price_table=485)
    assert rows["glm-5.2"]["costSources"] == sources(catalog=253)
    assert rows["kimi-k2.5"]["costSources"] == sources(price_table=96)
    # Pi stored what the catalog computes: recomputing Anthropic's messages gives the stored figures back.
    for model in ("claude-opus-4-5", "claude-sonnet-4-5"):
        assert rows[model]["cost"] == pytest.approx(realworld[model]["stored"], abs=5e-7)
        assert rows[model]["costSources"] == sources(catalog=realworld[model]["messages"])
    # Never a silent 0: every row with tokens costs something or counts unpriced messages.
    for row in rows.values():
        assert row["cost"] > 0 or row["totalTokens"] == 0 or row["costSources"]["unpriced"] > 0
    assert sum(row["cost"] for row in rows.values()) == pytest.approx(166.364580404, abs=1e-5)


def test_realworld_costs_auto(cli: Any, realworld: dict[str, dict[str, Any]]) -> None:
    rows = usage_by_model(cli, "auto")
    recomputed = expected_recomputed(realworld)
    for model, sums in realworld.items():
        row = rows[model]
        # a stored cost other than 0 is kept; the others are priced (these files' zeros are all priceable)
        assert row["costSources"]["stored"] == sums["storedNonZero"]
        assert sum(row["costSources"].values()) == sums["messages"] and row["costSources"]["unpriced"] == 0
        assert row["costStored"] == pytest.approx(sums["stored"], abs=5e-7)  # costs: 6 decimals
        want = recomputed.get(model, sums["stored"])
        assert row["cost"] == pytest.approx(want, abs=5e-7), model  # outputs round costs to 6 decimals
    assert rows["claude-opus-4-5"]["costSources"] == sources(stored=1181, catalog=25)  # 25 zero-token turns
    default = usage_by_model(cli, "auto")
    assert {m: r["cost"] for m, r in default.items()} == {m: r["cost"] for m, r in rows.items()}


def test_default_is_auto(cli: Any) -> None:
    plain = cli("usage", str(REALWORLD), "--by", "model", "--format", "json")
    auto = cli("usage", str(REALWORLD), "--by", "model", "--format", "json", "--cost", "auto")
    assert plain.stdout == auto.stdout
    assert cli("usage", str(REALWORLD), "--cost", "free").code == 2


def test_table_output_shows_the_sources(cli: Any) -> None:
    result = cli("usage", str(REALWORLD), "--by", "model")
    assert result.code == 0, result.stderr
    lines = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.strip()}
    assert lines["glm-5.1"][7] == "20.6103*" and lines["deepseek-v4-pro"][7] == "0.6806"
    assert ("* costs priced by usage (stored cost 0 or none, or --cost recomputed): 302 from the pi-ai catalog, "
            "655 from the LiteLLM price table (litellm 1.110.2, snapshot 2026-12-01).") in result.stdout
    assert "  1738 message(s) cost what the session stored." in result.stdout


def write_session(path: Path, messages: list[tuple[str, str, dict[str, Any]]]) -> Path:
    """A session of assistant messages (provider, model, usage), one minute apart."""
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "timestamp":
                                    "2026-03-01T00:00:00.000Z", "cwd": "/w"}]
    for index, (provider, model, usage) in enumerate(messages):
        lines.append({"type": "message", "id": f"m{index}", "parentId": None,
                      "timestamp": f"2026-03-01T10:{index:02d}:00.000Z",
                      "message": {"role": "assistant", "content": [], "api": "openai-completions",
                                  "provider": provider, "model": model, "usage": usage, "stopReason": "stop",
                                  "timestamp": 0}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def usage(tokens: tuple[int, int, int, int], stored: float | None, **extra: int) -> dict[str, Any]:
    value: dict[str, Any] = dict(zip(KINDS, tokens, strict=True))
    value.update(extra)
    value["totalTokens"] = sum(tokens)
    if stored is not None:
        value["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": stored}
    return value


def test_unpriced_and_zero_priced_models(cli: Any, tmp_path: Path) -> None:
    session = write_session(tmp_path / "sessions" / "p" / "2026-03-01T00-00-00-000Z_s.jsonl", [
        ("acme", "acme-nonexistent-model-9000", usage((1000, 10, 0, 0), 0)),
        ("acme", "acme-nonexistent-model-9000", usage((0, 0, 0, 0), None)),
        # an all-zero catalog entry (a token plan) does not price tokens: the table is asked next
        ("qwen-token-plan", "glm-5.1", usage((1_000_000, 0, 0, 0), 0)),
        ("anthropic", "claude-opus-4-5", usage((10, 10, 0, 0), 0.5)),
    ])
    assert get_model("qwen-token-plan", "glm-5.1")["cost"]["input"] == 0
    for mode in ("auto", "recomputed"):
        rows = usage_by_model(cli, mode, session.parent)
        unknown = rows["acme-nonexistent-model-9000"]
        assert unknown["cost"] == 0.0 and unknown["costSources"] == sources(unpriced=2)
        glm = rows["glm-5.1"]
        assert glm["costSources"] == sources(price_table=1)
        assert glm["cost"] == pytest.approx(1_000_000 * table_prices("qwen_ai_platform/glm-5.1")[
            "input_cost_per_token"], abs=5e-7)
    assert usage_by_model(cli, "auto", session.parent)["claude-opus-4-5"]["costSources"] == sources(stored=1)
    stored = usage_by_model(cli, "stored", session.parent)["acme-nonexistent-model-9000"]
    assert stored["costSources"] == sources(stored=1, unpriced=1)  # the message with no cost object
    table = cli("usage", str(session.parent), "--by", "model").stdout
    row = next(line for line in table.splitlines() if line.startswith("acme-nonexistent"))
    assert row.split()[7] == "0.0000!"
    assert "! 2 message(s) have no price (no usable stored cost, and a model neither the catalog nor the price " \
           "table prices): counted as $0." in table


def test_price_table_tiers_and_hour_long_cache_writes(tmp_path: Path) -> None:
    """An id the catalog lacks takes the table's rates; above 200k prompt tokens the whole request is tiered."""
    key = "gemini-3.1-pro-preview-customtools"
    prices = table_prices(key)
    assert (prices["input_cost_per_token"], prices["input_cost_per_token_above_200k_tokens"],
            prices["output_cost_per_token_above_200k_tokens"], prices["cache_creation_input_token_cost"]) == \
        (2e-06, 4e-06, 1.8e-05, None)
    with pytest.raises(UnknownModelError):
        get_model("acme", key)
    pricer = Pricer()
    below = pricer.price("acme", key, 150_000, 1000, 50_000, 0, 0)
    assert below == (150_000 * 2e-06 + 1000 * 1.2e-05 + 50_000 * 2e-07, "priceTable")
    above = pricer.price("acme", key, 150_000, 1000, 50_001, 0, 0)
    assert above == (150_000 * 4e-06 + 1000 * 1.8e-05 + 50_001 * 4e-07, "priceTable")
    # no cache-write price: 1.25 x input (ccusage's default); 1-hour writes at 2 x input
    writes = pricer.price("acme", key, 0, 0, 0, 1000, 400)
    assert writes == (600 * 2e-06 * 1.25 + 400 * 2 * 2e-06, "priceTable")
    # the catalog comes first and prices as Pi does, with its own (tier-free) rates
    assert pricer.price("google", key, 150_000, 1000, 50_001, 0, 0)[1] == "catalog"


# What ccusage 20.0.24 chose for each id among these probe keys (its --mode calculate with the keys as config
# pricing overrides, 1M input tokens each): the key whose price it billed, or None for no price.
PROBE_KEYS = ["zzq-alpha", "vendor/zzq-beta", "zzq-gamma-1-5", "zzq-delta-5", "zzq-eps-4", "acme/zzq-zeta",
              "zzq-eta", "x/zzq-eta-pro-max", "zzq-theta", "a/zzq-iota-2", "b/zzq-iota-2", "acme/zzq-kappa",
              "longvendor/zzq-kappa", "zzq-lambda", "zzq-nu-2", "zzq-xi-eu", "zzq-omi-3.5", "zzq-pi-1-5",
              "zzq-pi-1.5-x", "zzq-rho-mini", "v/zzq-rho"]
CCUSAGE_CHOICES = {
    "zzq-alpha": "zzq-alpha",                # exact
    "zzq-beta": "vendor/zzq-beta",           # a key containing the id
    "zzq-gamma-1.5": "zzq-gamma-1-5",        # . spelled -
    "zzq-delta-5.1": None,                   # zzq-delta-5 is another version
    "zzq-eps-4-20250101": "zzq-eps-4",       # a date suffix is the same model
    "ZZQ-Theta": None,                       # case-sensitive
    "zzq-iota-2": "a/zzq-iota-2",            # equally long: the smaller key
    "zzq-kappa": "longvendor/zzq-kappa",     # the longest key wins
    "acme/zzq-lambda": "zzq-lambda",         # a key inside the id
    "zzq-nu": "zzq-nu-2",
    "zzq-xi@eu": "zzq-xi-eu",                # @ spelled -
    "zzq-omi-3-5": "zzq-omi-3.5",
    "zzq-pi-1.5": "zzq-pi-1.5-x",            # longer beats the normalized exact spelling
    "zzq-rho": "zzq-rho-mini",
    "zzq-eta-pro": "x/zzq-eta-pro-max",
}


def test_fuzzy_matching_reproduces_ccusage(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = {"source": {}, "fields": TABLE["fields"], "models": {key: ["x", 1e-6, 0] for key in PROBE_KEYS}}
    monkeypatch.setattr(pricing, "_table", lambda: probe)
    for model, want in CCUSAGE_CHOICES.items():
        assert lookup("other", model) == want, model
    # ours, before ccusage's steps: the key filed under the message's own provider
    assert lookup("acme", "zzq-kappa") == "acme/zzq-kappa"
    assert lookup("acme", "zzq-zeta") == "acme/zzq-zeta"


def test_lookup_order_on_the_bundled_table() -> None:
    assert lookup("zai", "glm-5.1") == "zai/glm-5.1"                    # provider-qualified key
    assert lookup("anthropic", "claude-opus-4-5") == "claude-opus-4-5"  # the bare key
    assert lookup("deepseek", "deepseek-v4-pro") == "deepseek/deepseek-v4-pro"  # before the bare key
    assert lookup("opencode", "deepseek-v4-flash-free") == "deepseek-v4-flash"
    assert lookup("kimchi-dev", "kimi-k2.5") == "bedrock/ap-northeast-1/moonshotai.kimi-k2.5"
    assert lookup("acme", "glm-5.99") is None
    assert lookup("acme", "") is None and lookup(None, None) is None


def test_price_table_is_loaded_only_when_needed(tmp_path: Path) -> None:
    session = write_session(tmp_path / "s.jsonl", [("anthropic", "claude-opus-4-5", usage((10, 10, 0, 0), 0.5))])
    zero = write_session(tmp_path / "z.jsonl", [("zai", "glm-5.1", usage((10, 10, 0, 0), 0))])
    probe = ("import sys; from pi_tools.usage.report import UsageOptions, collect_usage; from pi_tools.engine import Engine; "
             "collect_usage([sys.argv[1]], UsageOptions(engine=Engine(jobs=1), cost=sys.argv[2])); "
             "print('pi_tools.usage.pricing' in sys.modules)")

    def loaded(path: Path, mode: str) -> str:
        return subprocess.run([sys.executable, "-c", probe, str(path), mode], capture_output=True, text=True,
                              check=True).stdout.strip()

    assert loaded(session, "auto") == "False"
    assert loaded(session, "stored") == "False"
    assert loaded(zero, "stored") == "False"
    assert loaded(zero, "auto") == "True"
    assert loaded(session, "recomputed") == "True"


def test_refresh_script_builds_a_dated_compact_table(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import refresh_prices
    finally:
        sys.path.pop(0)
    table = {"sample_spec": {"input_cost_per_token": 0}, "m-a": {"litellm_provider": "p", "input_cost_per_token":
             1e-06, "output_cost_per_token": 2e-06, "mode": "chat", "max_tokens": 8},
             "m-b": {"input_cost_per_token": 1e-06}, "p/m-c": {"litellm_provider": "p", "input_cost_per_token": 0,
             "output_cost_per_token": 0, "cache_creation_input_token_cost_above_200k_tokens": 3e-06}}
    wheel = tmp_path / "litellm-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("litellm-9.9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: litellm\nVersion: 9.9.9\n")
        archive.writestr(refresh_prices.TABLE_MEMBER, json.dumps(table))
    out = tmp_path / "prices.json"
    assert refresh_prices.main(["--wheel", str(wheel), "--date", "2026-12-01", "--out", str(out)]) == 0
    first = out.read_bytes()
    written = json.loads(first)
    assert written["source"]["version"] == "9.9.9" and written["source"]["snapshotDate"] == "2026-12-01"
    assert written["source"]["entries"] == 2 and len(written["source"]["sha256"]) == 64
    assert written["models"] == {"m-a": ["p", 1e-06, 2e-06], "p/m-c": ["p", 0, 0, None, None, None, None, None,
                                                                       3e-06]}
    assert refresh_prices.main(["--wheel", str(wheel), "--date", "2026-12-01", "--out", str(out)]) == 0
    assert out.read_bytes() == first
    bundled = TABLE["source"]
    assert (bundled["package"], bundled["file"]) == ("litellm", refresh_prices.TABLE_MEMBER)
    assert bundled["entries"] == len(TABLE["models"]) and TABLE["fields"] == list(refresh_prices.FIELDS)


def test_catalog_cost_is_pis_calculate_cost_to_the_bit() -> None:
    """The scan's shortcut gives exactly providers.catalog.calculate_cost's total (tiers and 1h writes too)."""
    import random

    from pi_tools.providers.catalog import all_models, calculate_cost
    from pi_tools.usage.pricing import catalog_cost

    rng = random.Random(5)
    tiered = [m for m in all_models() if m["cost"].get("tiers")]
    plain = [get_model("anthropic", "claude-opus-4-5"), get_model("zai", "glm-5.2"), get_model("openai", "gpt-5")]
    assert tiered
    for model in [*tiered, *plain]:
        for _ in range(200):
            counts = [rng.choice([0, rng.randint(0, 400_000)]) for _ in range(4)]
            long_write = rng.randint(0, counts[3])
            want = calculate_cost(model, {"input": counts[0], "output": counts[1], "cacheRead": counts[2],
                                          "cacheWrite": counts[3], "cacheWrite1h": long_write})["total"]
            assert catalog_cost(model["cost"], *counts, long_write) == want
