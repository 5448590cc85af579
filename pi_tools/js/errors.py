"""The errors JavaScript throws where Pi's code meets values of the wrong shape.

Pi does not validate stored sessions or provider events: a property read on ``null`` or a string method called
on a number throws V8's ``TypeError``, and ``JSON.parse`` throws a ``SyntaxError``. Pi reports those texts as a
failed request's or message's ``errorMessage``, so they are reproduced word for word and kept as exceptions
of their own, which the layers above turn into their own failures.
"""

from __future__ import annotations


class JsTypeError(Exception):
    """What V8 throws for a property read on ``null``/``undefined`` or a call of something not callable."""


class JsRangeError(Exception):
    """What V8 throws when its stack runs out, as ``JSON.stringify`` of a value nested a few thousand levels
    deep does (``Maximum call stack size exceeded``)."""


STACK_EXCEEDED = "Maximum call stack size exceeded"


class JsJsonError(ValueError):
    """``JSON.parse`` failed; the message is V8's (Node 22), because Pi copies it into ``errorMessage``."""


class JsonSyntaxError(ValueError):
    """The text is not JSON that ``JSON.parse`` would accept; ``column`` is 1-based.

    Raised by the explicit-stack parser, whose position is what the session reader's diagnostics name.
    """

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column
