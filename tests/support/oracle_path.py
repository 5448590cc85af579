"""Where the tests find the team's reference material: `../shared` beside the checkout (as CI lays it out), its
session generator, the reference oracles (Pi 0.85 itself, ../shared/oracle, and Pi 1.6, ../shared/oracle16, each
installed with `npm ci`) and the Pi 1.6 session generator (scripts/gen16, installed the same way).

One place, so that a machine can keep them elsewhere: PI_TOOLS_SHARED for the material (else beside the
checkout, else the workspace's /work/shared, so that a clone made anywhere still finds it), PI_TOOLS_ORACLE for
the oracle (as scripts/fuzz_oracle.py reads it), PI_TOOLS_ORACLE16 for the 1.6 oracle and PI_TOOLS_GEN16 for the
1.6 generator (each the folder or its script); .ci/run installs all three at the default places. Tests that need
one skip without it and say so.
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

_GIVEN16 = Path(os.environ.get("PI_TOOLS_ORACLE16", "/tmp/oracle16/oracle"))
ORACLE16 = _GIVEN16 / "oracle" if _GIVEN16.is_dir() else _GIVEN16
MISSING16 = (f"the Pi 1.6 reference oracle is not installed at {ORACLE16} (see ../shared/oracle16/README.md; "
             ".ci/run installs it)")

_GIVEN_GEN16 = Path(os.environ.get("PI_TOOLS_GEN16", "/tmp/gen16/gen16"))
GEN16 = _GIVEN_GEN16 / "gen16" if _GIVEN_GEN16.is_dir() else _GIVEN_GEN16
"""The Pi 1.6 session generator's launcher (scripts/gen16 copied outside the clone and `npm ci`-installed)."""
MISSING_GEN16 = (f"the Pi 1.6 session generator is not installed at {GEN16} (see scripts/gen16/README.md; "
                 ".ci/run installs it)")
