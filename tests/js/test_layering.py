"""pi_tools.js sits at the bottom of the house: it imports nothing of the package but itself, so every layer
above can use it and none of its semantics depend on session, provider or report code."""

from __future__ import annotations

import ast
from pathlib import Path

import pi_tools.js

JS_PACKAGE = Path(pi_tools.js.__file__).resolve().parent


def _imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add("pi_tools.js" if node.level else node.module or "")
    return modules


def test_js_imports_nothing_of_the_package() -> None:
    sources = sorted(JS_PACKAGE.glob("*.py"))
    assert len(sources) >= 7
    outside = {
        f"{path.name}: {module}"
        for path in sources
        for module in _imported_modules(path)
        if module.startswith("pi_tools") and not (module == "pi_tools.js" or module.startswith("pi_tools.js."))
    }
    assert outside == set()
