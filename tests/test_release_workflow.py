"""The release workflow cannot run here; these checks keep it valid and on the same commands as a
local release build (scripts/build-wheel).

Validity: GitHub's workflow JSON schema as vendored by `check-jsonschema` (installed by .ci/run;
the test skips without it). actionlint has no installable build on this machine's registries.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    yaml = pytest.importorskip("ruamel.yaml", reason="ruamel.yaml comes with check-jsonschema")
    return dict(yaml.YAML(typ="safe").load(WORKFLOW.read_text()))


def test_the_workflow_matches_githubs_schema() -> None:
    pytest.importorskip("check_jsonschema")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_platform_builds_with_the_local_script(workflow: dict[str, Any]) -> None:
    build = workflow["jobs"]["wheels"]
    platforms = {entry["platform"]: entry["os"] for entry in build["strategy"]["matrix"]["include"]}
    assert set(platforms) == {
        "linux-x86_64",
        "linux-aarch64",
        "macos-x86_64",
        "macos-arm64",
    }
    runs = [step.get("run", "") for step in build["steps"]]
    assert runs.count("scripts/build-wheel") == 1  # the same command, not a copy of its flags
    assert not any("maturin" in run for run in runs)
    tests = next(run for run in runs if "pytest" in run)
    assert "tests/test_wheel.py" in tests and "tests/test_mcp.py" in tests
    assert [entry["sdist"] for entry in build["strategy"]["matrix"]["include"]].count(True) == 1


def test_the_release_claims_only_the_platforms_it_builds(workflow: dict[str, Any]) -> None:
    # The engine is Unix-only (docs/windows.md): no Windows wheel, classifier or README claim.
    build = workflow["jobs"]["wheels"]
    assert not any(
        "windows" in str(entry).lower() for entry in build["strategy"]["matrix"]["include"]
    )
    publish = workflow["jobs"]["publish"]
    counts = next(step["run"] for step in publish["steps"] if "wc -l" in step.get("run", ""))
    assert 'wc -l)" -eq 4' in counts
    pyproject = (REPO / "pyproject.toml").read_text()
    assert "Windows" not in pyproject and "Operating System :: MacOS" in pyproject
    assert "and Windows" not in (REPO / "README.md").read_text()


def test_publishing_is_trusted_and_only_on_tags(workflow: dict[str, Any]) -> None:
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["tags"] == ["v*"]
    assert workflow["permissions"] == {"contents": "read"}
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == "wheels"
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}
    uses = [step.get("uses", "") for step in publish["steps"]]
    assert uses[-1] == "pypa/gh-action-pypi-publish@release/v1"
    assert not any("password" in str(step.get("with", {})) for step in publish["steps"])


def test_build_wheel_is_executable_and_checks_what_it_built() -> None:
    script = REPO / "scripts" / "build-wheel"
    assert script.stat().st_mode & 0o111
    text = script.read_text()
    assert "--zig --compatibility manylinux2014" in text
    assert "scripts/check_dist.py dist" in text
