"""Deterministic benchmark corpora, cached under ``$RIPSIGHT_BENCH_DIR`` (default
``~/.cache/ripsight-bench``) and keyed by ``GENERATOR_VERSION``, so reruns are instant.

The generators live in :mod:`ripsight.bench` (``ripsight bench`` needs them in an installed
package); this module re-exports them for the suites and builds them from the command line:

    python benches/corpus.py small            # ~300 visible files (+ ignored extras), seed fixed
    python benches/corpus.py monorepo [N]     # N visible files (default 100,000; ~125,000 total)
    python benches/corpus.py log [MB]         # numbered lines, default 500 MB (~6.6M lines)
    python benches/corpus.py kernel           # Debian linux-source-6.1, see linux_source.py

Sizes: small = 300 visible files, ~1.3 MB; monorepo(100_000) ~125,000 files incl. node_modules/
and a gitignored build/, ~260 MB, about a minute to generate once; log(500) = 500 MB.
"""

from __future__ import annotations

import sys

from ripsight.bench import (  # noqa: F401  (re-exported for the suites)
    COMMON_REGEX,
    GENERATOR_VERSION,
    NO_MATCH,
    RARE_LITERAL,
    SEED,
    cache_dir,
    log_file,
    monorepo,
    small_repo,
)

if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "small"
    arg = int(sys.argv[2]) if len(sys.argv) > 2 else None
    if what == "small":
        print(small_repo(arg or 300))
    elif what == "monorepo":
        print(monorepo(arg or 100_000))
    elif what == "log":
        print(log_file(arg or 500))
    elif what == "kernel":
        from linux_source import prepare_kernel  # type: ignore[import-not-found]

        print(prepare_kernel())
    else:
        sys.exit("usage: corpus.py small|monorepo|log|kernel [SIZE]")
