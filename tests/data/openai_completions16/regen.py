"""Regenerate the Pi 1.6 openai-completions expectations (needs the 1.6 oracle, /tmp/oracle16, i.e. Node).

- ``<session>.expected.json``: the oracle's document for each session of sessions.py and the targets below,
  trimmed to what the tests read (inputs, llm, payloads with their wire requests; a wire body is checked to equal
  its payload, then dropped).
- ``custom_cases.expected.json``: pi-ai 1.6's streamSimple (custom_payloads.mjs) on compat fields and options the
  catalog's models never combine (promptCacheKeyMode, requiresNonNullAssistantContent, tool additions in place,
  cache retention, ...), over the transcripts of three of those sessions.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

ORACLE = "/tmp/oracle16/oracle"
SESSIONS = ["s1_midconvo", "s2_foreign", "s3_notools", "s4_trailing_system", "s5_held"]
TARGETS = """moonshotai/kimi-k3 kimi-coding/k3 fireworks/accounts/fireworks/models/kimi-k3 openrouter/openai/gpt-5.5
openrouter/anthropic/claude-fable-5:batch github-copilot/kimi-k3 github-copilot/gemini-3.8-flash opencode/kimi-k3
opencode-go/deepseek-v4-pro nvidia/nvidia/nemotron-3-ultra-550b-a55b
cloudflare-workers-ai/@cf/deepseek-ai/deepseek-v4-flash-0731 together/openai/gpt-oss-120b zai/glm-5.3-flash
baseten/zai-org/GLM-5.2 qwen-token-plan/deepseek-v4.1-flash groq/openai/gpt-oss-120b deepseek/deepseek-v4-pro
huggingface/deepseek-ai/DeepSeek-R1 ant-ling/Ring-2.6-1T xiaomi/mimo-v2.6-flash cerebras/gpt-oss-120b
azure/deepseek-v4-pro""".split()

CUSTOM_MODELS = ["groq/openai/gpt-oss-120b", "moonshotai/kimi-k3", "openrouter/anthropic/claude-fable-5:batch"]
CUSTOM_COMPAT: list[dict[str, object]] = [
    {}, {"promptCacheKeyMode": "enabled"}, {"promptCacheKeyMode": "disabled"},
    {"requiresNonNullAssistantContent": True}, {"requiresToolsWithToolHistory": True},
    {"supportsMidConvoSystemMessages": True, "supportsMidConvoToolAdditions": True},
    {"supportsMidConvoSystemMessages": True}, {"supportsMidConvoSystemMessages": False},
    {"supportsDeveloperRole": True}, {"requiresAssistantAfterToolResult": True}, {"supportsStrictMode": False},
]
CUSTOM_OPTIONS: list[dict[str, object]] = [{}, {"cacheRetention": "long"}, {"cacheRetention": "none"},
                                           {"reasoning": "high"}]
# Azure's endpoint and deployment, from the request's options or its provider environment.
AZURE_OPTIONS: list[dict[str, object]] = [
    {}, {"env": {"AZURE_OPENAI_RESOURCE_NAME": "res"}},
    {"env": {"AZURE_OPENAI_BASE_URL": "https://x.openai.azure.com/openai",
             "AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "deepseek-v4-pro=dep1"}},
    {"azureBaseUrl": " https://y.cognitiveservices.azure.com/ ", "azureDeploymentName": "dd"},
    {"azureResourceName": "rr", "env": {"AZURE_OPENAI_BASE_URL": "https://z.example.com/v1"}},
    {"azureBaseUrl": "not a url"}, {"env": {"AZURE_OPENAI_BASE_URL": "https://api.openai.com/v1"}},
]
# Models the catalog does not have: OpenAI's own endpoint (developer role, prompt_cache_key), by URL and provider.
OPENAI_LIKE = [{"baseUrl": "https://api.openai.com/v1", "provider": "myopenai"}, {"provider": "openai"}]


def _trim(doc: dict) -> dict:
    kept = {key: doc[key] for key in ("inputs", "llm")}
    for variant in ("payloads", "payloadsReasoning"):
        kept[variant] = {}
        for key, entry in (doc.get(variant) or {}).items():
            wire = entry.get("wire")
            if wire is not None and "body" in wire:
                assert wire["body"] == entry["payload"], (key, variant)
                wire = {k: v for k, v in wire.items() if k not in ("body", "bodyBytes", "bodySha256")}
            kept[variant][key] = {**entry, **({"wire": wire} if wire is not None else {})}
    return kept


def oracle_documents() -> None:
    apis = ",".join(f"openai-completions={target}" for target in TARGETS)
    for name in SESSIONS:
        out = subprocess.run([ORACLE, str(HERE / f"{name}.jsonl"), "--wire", "--no-branches", "--apis", apis],
                             capture_output=True, text=True, check=True)
        with open(HERE / f"{name}.expected.json", "w", encoding="utf-8") as fh:
            json.dump(_trim(json.loads(out.stdout)), fh, indent=1)
            fh.write("\n")


def custom_cases() -> None:
    from pi_tools.pi import resolve
    from pi_tools.providers.catalog import find_model

    catalog = resolve("1.6").requests.catalog
    cases = []
    for name in ("s3_notools", "s4_trailing_system", "s1_midconvo"):
        for ref in CUSTOM_MODELS:
            for compat in CUSTOM_COMPAT if name != "s1_midconvo" else CUSTOM_COMPAT[3:8]:
                for options in CUSTOM_OPTIONS:
                    cases.append({"session": name, "model": ref, "compat": compat, "options": options})
        for patch in OPENAI_LIKE:
            for options in CUSTOM_OPTIONS:
                cases.append({"session": name, "model": "groq/openai/gpt-oss-120b", "patch": patch,
                              "options": {"sessionId": "s" * 70, **options}})
    cases += [{"session": "s3_notools", "model": "azure/deepseek-v4-pro", "options": options}
              for options in AZURE_OPTIONS]
    jobs = []
    for case in cases:
        doc = json.loads((HERE / f"{case['session']}.expected.json").read_text(encoding="utf-8"))
        model = copy.deepcopy(find_model(case["model"], catalog))
        model.update(case.get("patch") or {})
        if "compat" in case:
            model["compat"] = {**(model.get("compat") or {}), **case["compat"]}
        jobs.append({"model": model, "context": {"messages": doc["llm"]},
                     "options": {"apiKey": "sk-x", "sessionId": "sess-1234", **case["options"]}})
    out = subprocess.run(["node", str(HERE / "custom_payloads.mjs")], input=json.dumps(jobs), capture_output=True,
                         text=True, check=True)
    for case, result in zip(cases, json.loads(out.stdout), strict=True):
        case["expected"] = result
    with open(HERE / "custom_cases.expected.json", "w", encoding="utf-8") as fh:
        json.dump(cases, fh)
        fh.write("\n")


if __name__ == "__main__":
    oracle_documents()
    custom_cases()
