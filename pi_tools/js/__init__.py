"""The JavaScript runtime semantics Pi's behaviour depends on, reproduced once for the whole package.

Pi runs on V8, and what it stores and sends is shaped by that runtime: ``JSON.parse`` and its error texts,
``JSON.stringify``, ``String()``, ``Number()``, ``Date`` parsing, UTF-16 string lengths, truthiness, ``===``
and the ``TypeError`` a property read on ``null`` throws. Matching Pi byte for byte needs those rules, and
needs them to be the same everywhere, so they live here, below every other layer: this package imports
nothing of pi_tools (tests/js/test_layering.py checks), and each module reproduces one family of functions,
tested against Node's own answers (tests/js, data from scripts/js_expectations.mjs).

- :mod:`~pi_tools.js.values`: ``undefined``, ``String()``, ``Number()``, number formatting, truthiness,
  ``===``, ``Map`` key identity.
- :mod:`~pi_tools.js.strings`: ``length``/``slice`` in UTF-16 code units, ``trim``, surrogate pairs.
- :mod:`~pi_tools.js.access`: property reads, ``for...of``, and V8's ``TypeError`` texts.
- :mod:`~pi_tools.js.json_parse`: ``JSON.parse`` with V8's ``SyntaxError`` texts.
- :mod:`~pi_tools.js.json_stringify`: ``JSON.stringify`` and ``Object.keys`` order.
- :mod:`~pi_tools.js.date`: ``new Date(value).getTime()``.
- :mod:`~pi_tools.js.errors`: the exceptions those raise.
"""
