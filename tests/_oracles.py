"""What an oracle test does when its tool or corpus is not on the machine.

An oracle test compares ripsight with a tool no one here wrote (cscope, GNU Global, jedi,
TypeScript, universal-ctags) on a tree no one here wrote (the Linux tree, Go's and the JDK's
sources, npm's and Debian's node packages). `.ci/run` installs every one of them, so under CI
(the environment variable ``CI`` set, as CI services set it) a missing one is a failure of the
setup, never a skip that would leave the comparison unmade; elsewhere the test skips and says
what to install.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(what: str, install: str) -> NoReturn:
    """Fails under CI, skips elsewhere: `what` is missing, `install` says how to get it."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing under CI: .ci/run installs it ({install})")
    pytest.skip(f"{what} is not installed ({install})")
