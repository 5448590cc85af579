"""Pi 1.6 azure-openai-responses against what pi-ai 1.6 itself built (tests/data/openai_responses/
synthetic16_cases.json, gen_synthetic16.mjs: the endpoint from options.env, as the 1.6 oracle cannot give one): the
shared 1.6 conversion with Azure's choices (system messages collapsed, or kept with `additional_tools` / tool search
where a compat says so), the provider renamed `azure` (its tool-call ids keep their pairs; the 0.85 name
`azure-openai-responses` is foreign now), `promptCacheKeyMode`, the deployment map, the endpoint and its errors."""

from __future__ import annotations

import pytest

from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model

from support.responses16_cases import PI16, cases, check_case, names_for

API = "azure-openai-responses"


@pytest.mark.parametrize("name", names_for(API))
def test_pi_ai_16(name: str) -> None:
    check_case(cases()[name])


def test_azure_cases_cover_the_corners() -> None:
    assert len(names_for(API)) >= 9


def test_the_adapter_normalises_ids_as_azure() -> None:
    model = find_model("azure/gpt-5.1", PI16.requests.catalog)
    normalize = registry.normalize_tool_call_id_for(API, PI16.requests)
    source = {"provider": "azure", "api": API, "model": "gpt-5"}
    assert normalize("call_1|fc_1", model, source) == "call_1|fc_1"
    assert normalize("call_1|x.y", model, source) == "call_1|fc_x_y"
