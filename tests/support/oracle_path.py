"""Where the tests find the team's reference material: `../shared` beside the checkout (as CI lays it out), its
session generator, and the reference oracle (Pi 0.85 itself, ../shared/oracle installed with `npm ci`).

One place, so that a machine can keep them elsewhere: PI_TOOLS_SHARED for the material (else beside the
checkout, else the workspace's /work/shared, so that a clone made anywhere still finds it), PI_TOOLS_ORACLE for
the oracle (as scripts/fuzz_oracle.py reads it); .ci/run installs the oracle at the default place. Tests that
need the oracle skip without it and say so.
"""

from __future__ import annotations

import os
from pathlib import Path

_CANDIDATES = [Path(os.environ["PI_TOOLS_SHARED"])] if os.environ.get("PI_TOOLS_SHARED") else []
_CANDIDATES += [Path(__file__).resolve().parents[3] / "shared", Path("/work/shared")]
SHARED = next((path for path in _CANDIDATES if (path / "oracle").is_dir()), _CANDIDATES[0])
GEN_CORPUS = SHARED / "oracle" / "gen_corpus.py"
CONFORMANCE16 = SHARED / "conformance16"
"""Pi 1.6's conformance cases and goldens (cases/, expected/), made by ../shared/oracle16."""
"""The realistic-session generator (stdlib only, seeded)."""

_GIVEN = Path(os.environ.get("PI_TOOLS_ORACLE", "/tmp/oracle/oracle"))
ORACLE = _GIVEN / "oracle" if _GIVEN.is_dir() else _GIVEN  # the folder or its `oracle` script, as the benchmarks take it
MISSING = f"the reference oracle is not installed at {ORACLE} (see ../shared/oracle/README.md; .ci/run installs it)"
