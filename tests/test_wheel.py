"""The wheel in dist/ (made by scripts/build-wheel) as a user without Rust gets it.

It builds nothing: it installs that wheel, binary-only, into a fresh venv, then runs the
installed `ripsight` on a PATH that holds no cargo or rustc: `--version`, a grep, and an MCP
round trip driven by the MCP SDK client of the running tests.

Marked `wheel`; a quick local run skips it with ``-m "not wheel"``. Without a wheel in dist/ it
skips, unless RIPSIGHT_REQUIRE_WHEEL=1 (set by .ci/run, which builds it first) makes that fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pytest
from _mcp_helpers import wire
from _pdfs import text_pdf

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parent.parent
DIST = REPO / "dist"


@pytest.fixture(scope="module")
def wheel() -> Path:
    wheels = sorted(DIST.glob("ripsight-*.whl"))
    if len(wheels) != 1:
        message = f"expected one wheel in {DIST}, found {len(wheels)}: run scripts/build-wheel"
        if os.environ.get("RIPSIGHT_REQUIRE_WHEEL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return wheels[0]


def _bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin")


def _no_rust_path(venv: Path) -> str:
    """The venv's scripts, then the system directories that hold no cargo or rustc."""
    if sys.platform == "win32":
        system = [os.path.join(os.environ.get("SYSTEMROOT", r"C:\Windows"), "System32")]
    else:
        system = ["/usr/local/bin", "/usr/bin", "/bin"]
    dirs = [str(_bin_dir(venv))]
    for directory in system:
        if not any(Path(directory, tool).exists() for tool in ("cargo", "rustc", "rustup")):
            dirs.append(directory)
    path = os.pathsep.join(dirs)
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    return path


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = _bin_dir(venv) / ("python.exe" if sys.platform == "win32" else "python")
    # --only-binary: nothing is compiled, not ripsight and not a dependency.
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--only-binary",
            ":all:",
            f"{wheel}[mcp]",
        ],
        check=True,
        timeout=600,
    )
    path = _no_rust_path(venv)
    env = {"PATH": path, "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}
    # The session's cache directory (conftest.py), not the user's: the wheel may be another
    # version, whose server would prune the user's index files of this one as another format's.
    if "XDG_CACHE_HOME" in os.environ:
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
    if sys.platform == "win32":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    executable = shutil.which("ripsight", path=path)
    assert executable is not None and Path(executable).parent == _bin_dir(venv)
    return {"venv": venv, "python": python, "env": env, "ripsight": executable}


def _run(installed: dict[str, Any], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [installed["ripsight"], *args],
        cwd=cwd,
        env=installed["env"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_wheel_is_the_abi3_build_and_imports_from_the_venv(
    wheel: Path, installed: dict[str, Any], tmp_path: Path
) -> None:
    assert "-cp310-abi3-" in wheel.name
    with zipfile.ZipFile(wheel) as archive:
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in archive.namelist())
    done = subprocess.run(
        [
            str(installed["python"]),
            "-c",
            "import ripsight, ripsight._core as c; print(ripsight.__file__); print(c.__file__)",
        ],
        cwd=tmp_path,
        env=installed["env"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    module, extension = done.stdout.split()
    site = Path(
        sysconfig.get_path(
            "purelib", vars={"base": str(installed["venv"]), "platbase": str(installed["venv"])}
        )
    )
    assert Path(module).is_relative_to(site) and Path(extension).is_relative_to(site)
    assert ".abi3." in Path(extension).name or extension.endswith(".pyd")


def test_version_and_grep_run_without_rust(
    wheel: Path, installed: dict[str, Any], tmp_path: Path
) -> None:
    version = wheel.name.split("-")[1]
    done = _run(installed, "--version", cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, f"ripsight {version}"), done.stderr

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("def main():\n    # TODO: ship it\n    return 0\n")
    (repo / ".env").write_text("TODO=hunter2\n")
    done = _run(installed, "grep", "TODO", "--root", str(repo), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "src/app.py:2:    # TODO: ship it" in done.stdout
    assert "hunter2" not in done.stdout


def test_outlines_parse_in_the_installed_worker(installed: dict[str, Any], tmp_path: Path) -> None:
    # The worker process runs the installed _outline_worker.py, which loads the installed
    # extension beside it: `ripsight outline` and `ripsight defs` work from the wheel alone.
    (tmp_path / "app.py").write_text("class App:\n    def run(self):\n        pass\n")
    done = _run(installed, "outline", "app.py", "--root", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["1-3  class App", "2-3    method run"]
    done = _run(installed, "defs", "run", "--root", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == "app.py:2 method run (in App)"


def test_a_pdf_reads_after_a_plain_install(installed: dict[str, Any], tmp_path: Path) -> None:
    # pypdfium2 is a dependency: the wheel's install brings the parser, binary-only.
    (tmp_path / "doc.pdf").write_bytes(text_pdf(["Installed parser"]))
    script = (
        "import sys; from ripsight import ToolCall, default_registry\n"
        "r = default_registry(sys.argv[1]).execute(ToolCall('c', 'read_file', {'path': 'doc.pdf'}))\n"
        "print(r.meta['code']); print(r.content)"
    )
    done = subprocess.run(
        [str(installed["python"]), "-c", script, str(tmp_path)],
        cwd=tmp_path,
        env=installed["env"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    code, text = done.stdout.split("\n", 1)
    assert code == "ok", done.stdout
    assert "--- page 1 of 1 ---\nInstalled parser" in text


def test_mcp_round_trip_against_the_installed_server(
    installed: dict[str, Any], tmp_path: Path
) -> None:
    mcp = pytest.importorskip("mcp")
    from mcp.client.stdio import StdioServerParameters, stdio_client

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "notes.md").write_text("# notes\n\nThe wheel works.\n")
    params = StdioServerParameters(
        command=installed["ripsight"], args=["mcp", "--root", str(repo)], env=installed["env"]
    )

    async def main() -> tuple[Any, Any]:
        with (tmp_path / "err.log").open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                mcp.ClientSession(read, write) as session,
            ):
                await session.initialize()
                listed = await session.list_tools()
                called = await session.call_tool("grep", {"pattern": "wheel"})
                return listed, called

    listed, called = wire(asyncio.run(asyncio.wait_for(main(), 120)))
    assert [tool["name"] for tool in listed["tools"]] == [
        "find_calls",
        "find_definitions",
        "find_references",
        "glob",
        "grep",
        "outline",
        "read_file",
        "read_result",
        "repo_map",
    ]
    assert called["isError"] is False
    assert "notes.md:3:The wheel works." in called["content"][0]["text"]
    assert called["structuredContent"]["total_matches"] == 1
    assert "Traceback" not in (tmp_path / "err.log").read_text()


def _other_pythons() -> list[str]:
    """CPython >= 3.10 interpreters on this machine other than the running one, one per minor
    version (pyenv's and the PATH's)."""
    found: dict[str, str] = {}
    candidates = [shutil.which(f"python3.{minor}") for minor in range(10, 16)]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += [str(p) for p in sorted(pyenv.glob("3.*/bin/python3"))]
    for candidate in candidates:
        if candidate is None:
            continue
        done = subprocess.run(
            [candidate, "-c", "import sys; print(sys.implementation.name, *sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        parts = done.stdout.split()
        if done.returncode != 0 or len(parts) != 3 or parts[0] != "cpython":
            continue
        minor = (int(parts[1]), int(parts[2]))
        if minor >= (3, 10) and minor != sys.version_info[:2]:
            found.setdefault(f"{minor[0]}.{minor[1]}", candidate)
    return [found[key] for key in sorted(found, key=lambda v: tuple(map(int, v.split("."))))]


@pytest.mark.parametrize("python", _other_pythons() or [None])
def test_the_one_wheel_runs_on_other_pythons(
    python: str | None, wheel: Path, tmp_path: Path
) -> None:
    # abi3: the wheel built once serves every CPython from 3.10 on.
    if python is None:
        pytest.skip("no other CPython >= 3.10 on this machine")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run(
        [
            str(_bin_dir(venv) / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--only-binary",
            ":all:",
            str(wheel),
        ],
        check=True,
        timeout=600,
    )
    env = {"PATH": _no_rust_path(venv), "HOME": os.environ.get("HOME", "/tmp")}
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("abi3 works\n")
    done = subprocess.run(
        [str(_bin_dir(venv) / "ripsight"), "grep", "abi3", "--root", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "a.txt:1:abi3 works" in done.stdout
