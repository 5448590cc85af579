"""Where the tests find the reference oracle (Pi 0.85 itself, ../shared/oracle installed with `npm ci`).

One place, so that a machine can keep it elsewhere (PI_TOOLS_ORACLE, as scripts/fuzz_oracle.py reads it);
.ci/run installs it at the default place. Tests that need it skip without it and say so.
"""

from __future__ import annotations

import os
from pathlib import Path

_GIVEN = Path(os.environ.get("PI_TOOLS_ORACLE", "/tmp/oracle/oracle"))
ORACLE = _GIVEN / "oracle" if _GIVEN.is_dir() else _GIVEN  # the folder or its `oracle` script, as the benchmarks take it
MISSING = f"the reference oracle is not installed at {ORACLE} (see ../shared/oracle/README.md; .ci/run installs it)"
