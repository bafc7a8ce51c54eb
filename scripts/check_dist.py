"""Checks what scripts/build-wheel put in dist/: one abi3 wheel and one sdist, both holding the
LICENSE; on Linux the wheel is manylinux_2_17 by its tag and by `auditwheel show`, and its
extension module is stripped. Prints what it checked; exits 1 naming every failed check.

    python scripts/check_dist.py dist
"""

from __future__ import annotations

import email.parser
import platform
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

# Wheel file name: name-version(-build)?-python-abi-platform.whl (PEP 427).
WHEEL_NAME = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-(?P<python>[^-]+)-(?P<abi>[^-]+)-"
    r"(?P<platform>[^-]+)\.whl$"
)


def check_wheel(wheel: Path, problems: list[str]) -> None:
    match = WHEEL_NAME.match(wheel.name)
    if match is None:
        problems.append(f"{wheel.name}: not a wheel file name")
        return
    tags = match.groupdict()
    print(f"wheel: {wheel.name}")
    print(f"  tags: {tags['python']}-{tags['abi']}-{tags['platform']}")
    if (tags["python"], tags["abi"]) != ("cp310", "abi3"):
        problems.append(f"{wheel.name}: tagged {tags['python']}-{tags['abi']}, not cp310-abi3")
    linux = platform.system() == "Linux"
    if linux and "manylinux_2_17_" not in tags["platform"]:
        problems.append(f"{wheel.name}: platform tag {tags['platform']} is not manylinux_2_17")

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licenses = [n for n in names if re.search(r"\.dist-info/licenses/LICENSE$", n)]
        print(f"  license file: {licenses[0] if licenses else 'MISSING'}")
        if not licenses or b"MIT License" not in archive.read(licenses[0]):
            problems.append(f"{wheel.name}: no MIT LICENSE in .dist-info/licenses/")
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(metadata_name).decode())
        print(
            f"  License-Expression: {metadata.get('License-Expression')}, "
            f"Requires-Python: {metadata.get('Requires-Python')}"
        )
        if metadata.get("License-Expression") != "MIT":
            problems.append(f"{wheel.name}: METADATA has no License-Expression: MIT")
        if metadata.get("Requires-Python") != ">=3.10":
            problems.append(f"{wheel.name}: METADATA Requires-Python is not >=3.10")
        modules = [n for n in names if re.match(r"ripsight/_core\.(abi3\.so|pyd)$", n)]
        print(f"  extension: {modules[0] if modules else 'MISSING'}")
        if not modules:
            problems.append(f"{wheel.name}: no abi3 extension ripsight/_core.abi3.so (or .pyd)")
        elif linux:
            check_stripped(archive, modules[0], problems)

    if linux:
        check_auditwheel(wheel, problems)


def check_stripped(archive: zipfile.ZipFile, member: str, problems: list[str]) -> None:
    import io

    from elftools.elf.elffile import ELFFile  # comes with auditwheel

    elf = ELFFile(io.BytesIO(archive.read(member)))
    stripped = elf.get_section_by_name(".symtab") is None
    print(f"  stripped: {stripped} ({archive.getinfo(member).file_size:,} bytes)")
    if not stripped:
        problems.append(f"{member}: not stripped (has a .symtab)")


def check_auditwheel(wheel: Path, problems: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    print("  auditwheel show:")
    for line in (done.stdout + done.stderr).strip().splitlines():
        print(f"    {line}")
    # auditwheel wraps its sentences: join them before looking for the policy.
    said = " ".join((done.stdout + done.stderr).split())
    if (
        done.returncode != 0
        or 'is consistent with the following platform tag: "manylinux_2_17_' not in said
    ):
        problems.append(f"{wheel.name}: auditwheel show does not say manylinux_2_17")


def check_sdist(sdist: Path, problems: list[str]) -> None:
    print(f"sdist: {sdist.name}")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "LICENSE",
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "rust_core/Cargo.toml",
        "python/ripsight/__init__.py",
    ):
        if needed not in names:
            problems.append(f"{sdist.name}: {needed} missing")
    print(f"  {len(names)} files, LICENSE {'present' if 'LICENSE' in names else 'MISSING'}")


def main(argv: list[str]) -> int:
    dist = Path(argv[1] if len(argv) > 1 else "dist")
    wheels = sorted(dist.glob("*.whl"))
    sdists = sorted(dist.glob("*.tar.gz"))
    problems: list[str] = []
    if len(wheels) != 1 or len(sdists) != 1:
        problems.append(f"{dist}: expected one wheel and one sdist, found {wheels + sdists}")
    for wheel in wheels:
        check_wheel(wheel, problems)
    for sdist in sdists:
        check_sdist(sdist, problems)
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    if not problems:
        print("dist/ checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
