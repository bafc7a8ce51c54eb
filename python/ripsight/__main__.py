"""`python -m ripsight ...` runs the `ripsight` command line."""

import sys

from .cli import main

sys.exit(main())
