"""What `--content` lets leave the machine: nothing (`none`, the default), the text with secrets redacted by
scrub's detectors (`redacted`), or the text as stored (`full`)."""

from __future__ import annotations

from typing import Any

CONTENT_MODES = ("none", "redacted", "full")


class Content:
    """The content policy of one run: `text` and `value` give what may be sent, or None when nothing may."""

    def __init__(self, mode: str) -> None:
        if mode not in CONTENT_MODES:
            raise ValueError(f"--content: expected one of {', '.join(CONTENT_MODES)}, got {mode!r}")
        self.mode = mode
        self.enabled = mode != "none"
        self._scanner: Any = None
        if mode == "redacted":
            from pi_tools.secrets.detectors import DEFAULT_SCANNER

            self._scanner = DEFAULT_SCANNER

    def text(self, value: Any) -> str | None:
        """A string as it may be sent (None under `none`, or for a value that is not a string)."""
        if not self.enabled or not isinstance(value, str):
            return None
        if self._scanner is None:
            return value
        from pi_tools.secrets.values import redact_text

        secrets = self._scanner.find(value)
        return redact_text(value, secrets) if secrets else value

    def value(self, value: Any) -> Any:
        """Any JSON value as it may be sent (every string in it redacted under `redacted`), None under `none`."""
        if not self.enabled:
            return None
        if self._scanner is None:
            return value
        from pi_tools.secrets.values import redact_value

        return redact_value(value, self._scanner)
