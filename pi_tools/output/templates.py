"""Files that ship inside the package, found through the import system rather than next to the checkout.

The templates live in the repository's top-level templates/ folder, which setup.py installs as the package
``pi_tools.templates``; reading them through importlib.resources finds them the same way in a wheel, an
editable install and a zip. A template that is not there means the installation is broken, which is said as
such: it is neither the user's input nor their output that failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

TEMPLATE_PACKAGE = "pi_tools.templates"


class MissingTemplateError(Exception):
    """A template pi-tools needs is not installed (an incomplete or damaged installation)."""


def _template_root() -> str:
    """Where the templates should be, for the error message (the package's folder, or its name)."""
    from importlib.resources import files

    try:
        return str(files(TEMPLATE_PACKAGE))
    except ModuleNotFoundError:
        return TEMPLATE_PACKAGE


def _template_file(name: str) -> str | None:
    """The template's path when the package is a plain folder (wheel or editable install), else None.

    importlib.resources and what it imports cost a few milliseconds of every render and export start-up; a
    folder on disk needs only os.path. Zipped installs and other loaders go through importlib.resources.
    """
    import importlib
    import os

    try:
        package = importlib.import_module(TEMPLATE_PACKAGE)
    except ImportError:
        return None
    folder = os.path.dirname(getattr(package, "__file__", None) or "")
    path = os.path.join(folder, name)
    return path if folder and os.path.isfile(path) else None


def template_source(name: str) -> tuple[str, str | None]:
    """(text, file name for tracebacks) of one packaged template; MissingTemplateError when absent."""
    path = _template_file(name)
    if path is not None:
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    from importlib.resources import files

    try:
        resource = files(TEMPLATE_PACKAGE).joinpath(name)
        text = resource.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        raise MissingTemplateError(
            f"template {name} is missing from this installation (looked in {_template_root()}): "
            "pi-tools is not installed completely; reinstall it (pip install --force-reinstall pi-tools)"
        ) from None
    return text, str(resource)


def template_loader() -> jinja2.BaseLoader:
    """A jinja2 loader over the packaged templates (also serves {% import %} and {% include %})."""
    import jinja2

    def load(name: str) -> tuple[str, str | None, None]:
        text, filename = template_source(name)
        return text, filename, None

    return jinja2.FunctionLoader(load)
