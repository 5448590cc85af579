"""search, visibility, export and render on the fuzz cases (fixtures/fuzz/cases: the damage real files show):
an answer or a clear error, never a traceback. A sweep found five: `search` on a line whose `type` is an object
or that nests 1,100 levels deep (the clean-file fast path, then its projected-entry test), `export`'s statistics
on a message whose role is an object, `render` of a value nested deeper than Python's json recurses, and
`visibility` on a tool call whose id is a list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_tools.export import ExportOptions, export_session
from pi_tools.session.load import load_session

FUZZ = Path(__file__).resolve().parents[2] / "fixtures" / "fuzz" / "cases"


def _clean(run: Any) -> None:
    assert run.code in (0, 1, 2), run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "please report" not in run.stdout + run.stderr, run.stderr[-2000:]


@pytest.mark.parametrize("args", [("search", "a", "--format", "json", "--branch", "all"), ("visibility",)],
                         ids=["search", "visibility"])
def test_every_fuzz_case_in_one_run(cli: Any, args: tuple[str, ...]) -> None:
    run = cli(*args, *sorted(str(path) for path in FUZZ.glob("*.jsonl")))
    _clean(run)
    assert run.stdout  # the other cases still answered


def test_search_of_damaged_heads_finds_what_the_line_reader_finds(cli: Any) -> None:
    for name, wanted in (("unhashable_type_and_parent", "array id"), ("deep_nesting_1100_levels", "deep parent")):
        run = cli("search", wanted, "--format", "json", "--branch", "all", str(FUZZ / f"{name}.jsonl"))
        _clean(run)
        assert run.code == 0 and wanted in run.stdout, (name, run.stdout)


@pytest.mark.parametrize("fmt", ["html", "md", "chat"])
def test_export_of_a_message_whose_role_is_an_object(fmt: str) -> None:
    text = "".join(export_session(load_session(str(FUZZ / "unhashable_type_and_parent.jsonl")), fmt, ExportOptions()))
    assert "one" in text and "array id" not in text  # the path to Pi's leaf: the first message, not the damaged


def test_render_of_a_value_nested_1100_levels(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "preview.html"
    run = cli("render", "--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5",
              str(FUZZ / "deep_nesting_1100_levels.jsonl"), "-o", str(out))
    _clean(run)
    assert run.code == 0 and out.read_text().count("[[[[") > 0


def test_visibility_of_a_list_tool_call_id(cli: Any) -> None:
    run = cli("visibility", "--format", "json", str(FUZZ / "tool_call_id_an_array_cross_model.jsonl"))
    _clean(run)
    assert run.code == 0 and "unmatched-tool-result" in run.stdout
