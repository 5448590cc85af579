"""What an installed CLI is expected to have: packaged templates, and an honest error without them.

The wheel itself, installed outside the clone, is exercised by scripts/check_wheel.py (run by .ci/run).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pi_tools.packaged import MissingTemplateError, template_source

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "fixtures" / "conformance" / "cases" / "c002_branching.jsonl"


def test_templates_come_from_the_package() -> None:
    for template in sorted((ROOT / "templates").glob("*.j2")):
        text, filename = template_source(template.name)
        assert text == template.read_text(encoding="utf-8")
        assert filename is not None and Path(filename).resolve() == template.resolve()


def _empty_template_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A template package without templates (a new name each time: imported packages stay in sys.modules)."""
    name = f"broken_templates_{len(sys.modules)}_{os.getpid()}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("pi_tools.packaged.TEMPLATE_PACKAGE", name)
    return package


def _missing(name: str, package: Path) -> str:
    return (f"template {name} is missing from this installation (looked in {package}): pi-tools is not installed "
            "completely; reinstall it (pip install --force-reinstall pi-tools)")


def test_a_missing_template_is_a_broken_install_not_a_write_failure(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pi_tools.cli.render import render_command
    from pi_tools.render.environment import render_environment

    package = _empty_template_package(monkeypatch, tmp_path)
    render_environment.cache_clear()  # a template compiled by an earlier test would be reused
    try:
        with pytest.raises(SystemExit) as exited:
            render_command([str(SESSION)], str(tmp_path / "out.md"), api=["anthropic-messages"])
    finally:
        render_environment.cache_clear()
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"pi-tools: {_missing('render.md.j2', package)}\n"
    assert not (tmp_path / "out.md").exists()


def test_the_usage_chart_names_its_missing_template(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import polars as pl

    from pi_tools.audit.usage_chart import render_chart

    package = _empty_template_package(monkeypatch, tmp_path)
    with pytest.raises(MissingTemplateError) as caught:
        render_chart(pl.DataFrame(), "day")
    assert str(caught.value) == _missing("usage_chart.html.j2", package)
