"""`python -m spyglass ...` runs the `spyglass` command line."""

import sys

from .cli import main

sys.exit(main())
