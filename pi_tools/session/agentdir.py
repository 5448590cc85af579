"""Where Pi keeps its sessions, resolved as Pi 0.85 resolves it (config.ts getAgentDir, getSessionsDir).

The agent folder is $PI_CODING_AGENT_DIR when that is set and not empty, else ~/.pi/agent; the sessions are in
its `sessions` folder. Pi expands a leading `~` or `~/` of the variable (not `~user`) and reads a `file://` URL
as a path; a relative value stays relative to the working directory. Commands that summarise many sessions
read this folder when no path is named, as ccusage does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

AGENT_DIR_VARIABLE = "PI_CODING_AGENT_DIR"


def _home(env: Mapping[str, str]) -> str:
    """Node's os.homedir() on POSIX: $HOME when set, else the password database's entry."""
    home = env.get("HOME")
    if home:
        return home
    return os.path.expanduser("~")


def _normalize(path: str, env: Mapping[str, str]) -> str:
    """Pi's normalizePath with its defaults: `~` and `~/...` expanded, `file://` URLs made paths."""
    if path == "~":
        return _home(env)
    if path.startswith("~/"):
        return os.path.normpath(os.path.join(_home(env), path[2:]))
    if path.startswith("file://"):
        from urllib.parse import urlsplit
        from urllib.request import url2pathname

        return url2pathname(urlsplit(path).path)
    return path


def agent_dir(env: Mapping[str, str] | None = None) -> str:
    """Pi's agent folder (getAgentDir)."""
    env = os.environ if env is None else env
    configured = env.get(AGENT_DIR_VARIABLE)
    if configured:
        return _normalize(configured, env)
    return os.path.join(_home(env), ".pi", "agent")


def sessions_dir(env: Mapping[str, str] | None = None) -> str:
    """Pi's sessions folder (getSessionsDir): one subfolder per project, named after its cwd."""
    return os.path.normpath(os.path.join(agent_dir(env), "sessions"))
