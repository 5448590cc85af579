"""AgentMessage[] -> AgentMessage[] transforms (Pi's transformContext stage), composable, with a registry."""

from pi_tools.transforms.registry import (
    BUILTIN_TRANSFORMS,
    TransformError,
    TransformSpec,
    available_transforms,
    checked,
    load_plugin,
)

__all__ = ["BUILTIN_TRANSFORMS", "TransformError", "TransformSpec", "available_transforms", "checked", "load_plugin"]
