"""``python -m ripsight.cli``: the `ripsight` command."""

import sys

from . import main

sys.exit(main())
