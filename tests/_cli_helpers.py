"""Running the `ripsight` command line in a subprocess, as the CLI tests do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_ripsight(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`python -m ripsight.cli ARGS` with no stdin, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "ripsight.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
    )
