"""The usage room's one error kind, below the modules that raise it (report, dates, chart)."""

from __future__ import annotations


class UsageError(Exception):
    """Bad options (a date that is not a date, an unknown time zone, a missing extra): the user's input, not a
    crash. The message is shown as is."""
