"""The one thing pyproject.toml cannot say: the top-level templates/ folder is the package pi_tools.templates.

Everything else (metadata, dependencies, entry points, package data) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[*find_namespace_packages(include=["pi_tools*"]), "pi_tools.templates"],
    package_dir={"pi_tools.templates": "templates"},
)
