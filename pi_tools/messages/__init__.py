"""Message types, the role registry and convert_to_llm: the bottom layer, importing nothing else of pi_tools."""

from pi_tools.messages.convert import bash_execution_to_text, convert_to_llm
from pi_tools.messages.roles import RoleRegistry, RoleSpec, default_registry

__all__ = ["RoleRegistry", "RoleSpec", "bash_execution_to_text", "convert_to_llm", "default_registry"]
