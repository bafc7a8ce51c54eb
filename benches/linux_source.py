"""Prepare the Linux kernel corpus from Debian's ``linux-source-6.1`` (run once; later runs are instant).

    python benches/linux_source.py            # installs the package if needed, unpacks, git init

The tarball ships a root ``.gitignore`` of ``/*`` (packaging), which would hide the whole tree inside
git; it is removed, then ``git init`` makes the kernel's own nested ``.gitignore`` files apply as in a
real checkout. About 78,500 files, 1.3 GB. The result lives in ``<cache>/linux-source-6.1``.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tarfile

from ripsight.bench import cache_dir

PACKAGE = "linux-source-6.1"
DONE_MARK = ".ripsight-bench-ready"


def kernel_dir() -> str:
    return os.path.join(cache_dir(), PACKAGE)


def kernel_ready() -> str | None:
    """The prepared tree's path, or None when ``prepare_kernel()`` has not completed."""
    root = kernel_dir()
    return root if os.path.exists(root + DONE_MARK) else None


def _tarball() -> str | None:
    found = sorted(glob.glob(f"/usr/src/{PACKAGE}.tar.xz")) or sorted(
        glob.glob("/usr/src/linux-source-6.1*.tar.*")
    )
    return found[0] if found else None


def prepare_kernel(install: bool = True, log=print) -> str:
    """Install (apt), unpack once, drop the packaging .gitignore, ``git init``. Returns the root."""
    ready = kernel_ready()
    if ready:
        return ready
    tarball = _tarball()
    if tarball is None:
        if not install:
            raise RuntimeError(f"{PACKAGE} is not installed; run: python benches/linux_source.py")
        log(f"installing {PACKAGE} with apt-get (a few minutes)")
        subprocess.run(["apt-get", "update"], check=True, timeout=1800)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(
            ["apt-get", "install", "-y", "--no-install-recommends", PACKAGE],
            check=True,
            env=env,
            timeout=1800,
        )
        tarball = _tarball()
        if tarball is None:
            raise RuntimeError(f"apt installed {PACKAGE} but no tarball is in /usr/src")
    root = kernel_dir()
    tmp = root + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log(f"unpacking {tarball} into {tmp}")
    # tar(1) with xz is several times faster than tarfile for 1.3 GB.
    if shutil.which("tar") and shutil.which("xz"):
        subprocess.run(["tar", "-xf", tarball, "-C", tmp], check=True, timeout=1800)
    else:
        with tarfile.open(tarball) as tf:
            tf.extractall(tmp, filter="data")
    entries = os.listdir(tmp)
    top = os.path.join(tmp, entries[0]) if len(entries) == 1 else tmp
    packaging_ignore = os.path.join(top, ".gitignore")
    # Debian's tarball has a root .gitignore that hides everything; the nested ones stay.
    if os.path.exists(packaging_ignore):
        with open(packaging_ignore, encoding="utf-8", errors="replace") as fh:
            head = fh.read(200)
        log(f"removing packaging .gitignore ({head.strip()[:40]!r})")
        os.remove(packaging_ignore)
    shutil.rmtree(root, ignore_errors=True)
    os.rename(top, root)
    if top != tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run(["git", "init", "-q", root], check=True, timeout=60)
    # The mark sits beside the tree, not in it, so it never changes the measured file set.
    with open(root + DONE_MARK, "w", encoding="utf-8") as fh:
        fh.write(tarball + "\n")
    return root


if __name__ == "__main__":
    print(prepare_kernel())
