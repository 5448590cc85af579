"""The live agent loop behind `pi-tools run`: Pi's turn loop, its tools, the faux and HTTP providers, and the
session writer that leaves files Pi itself resumes.

The clock lives here because every part of the loop stamps something (messages, entries, faux ids) and all of
them must agree when ``SOURCE_DATE_EPOCH`` pins time for reproducible output.
"""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime


def _pinned() -> str | None:
    return os.environ.get("SOURCE_DATE_EPOCH") or None


def now_ms() -> int:
    """Epoch milliseconds, fixed to ``SOURCE_DATE_EPOCH`` (seconds) when it is set, as the goldens are."""
    pinned = _pinned()
    if pinned:
        try:
            return int(float(pinned)) * 1000
        except ValueError:
            pass
    return int(time.time() * 1000)


def monotonic_ms() -> float:
    """A monotonic clock in milliseconds (performance.now()), for durations."""
    return time.monotonic() * 1000


def elapsed_ms(started: float) -> int:
    """Whole milliseconds since `started` (monotonic_ms); 0 when ``SOURCE_DATE_EPOCH`` pins time, so that pinned
    runs write the same bytes."""
    if _pinned():
        return 0
    return max(0, math.floor(monotonic_ms() - started + 0.5))  # Math.round


def iso_timestamp(ms: int) -> str:
    """``new Date(ms).toISOString()``: millisecond precision with ``Z``."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
