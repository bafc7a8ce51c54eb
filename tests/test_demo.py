"""`ripsight demo` and `ripsight demo --selftest`."""

from __future__ import annotations

import ast
import hashlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _protocol_helpers import PyWorkspace, registry_with
from ripsight import demo
from ripsight.cli import main
from ripsight.demo import selftest


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_demo_repo_is_deterministic(tmp_path):
    a = demo.make_demo_repo(tmp_path / "a")
    b = demo.make_demo_repo(tmp_path / "b")
    assert tree_digest(a) == tree_digest(b)
    assert (a / "src/shop/pricing.py").read_text().splitlines()[14] == (
        "    return price * percent / 100"
    )


@pytest.fixture
def python_engine(monkeypatch):
    """Runs the demo on the pure-Python stand-in engine (until the Rust engine is merged)."""
    monkeypatch.setattr(demo, "default_registry", lambda root: registry_with(PyWorkspace(root)))


def test_demo_loop_on_a_stand_in_engine(python_engine):
    out = io.StringIO()
    report = demo.run_demo(out)
    text = out.getvalue()
    assert report.exit_code == 0, text
    assert [c.name for c in report.calls] == [
        "glob",
        "grep",
        "Read",
        "grep",
        "read_file",
        "read_file",
        "read_file",
    ]
    assert [r.is_error for r in report.results] == [False, False, True, False, True, False, False]
    assert report.answer == (
        "The test is red because apply_discount in src/shop/pricing.py returns the discount "
        "amount instead of the discounted price: line 15 is `return price * percent / 100`, so "
        "apply_discount(100.0, 10) gives 10.0 while the test expects 90.0 "
        "(tests/test_pricing.py line 9). The fix is `return price * (1 - percent / 100)`."
    )
    # Seven calls of the investigation, then one stored by reference and one page of it.
    assert text.count("-- call ") == 9
    assert re.search(r"code truncated, stored as ref_[0-9a-f]{20}", text)
    assert "== the operation log" in text
    log = text.split("== the operation log", 1)[1]
    assert log.count(" done ") + log.count(" contract_error ") == 9
    assert "== turn 2: anthropic stream" in text
    assert "== turn 5: openai chat (parallel, interleaved, index from 1) stream" in text
    assert "   result:    ERROR (unknown_tool)" in text
    assert "   result:    ERROR (malformed_json)" in text
    assert (
        text.rstrip().splitlines()[-1].startswith("conclusion: found the cause after 7 tool calls")
    )


def test_selftest_on_a_stand_in_engine(python_engine, monkeypatch):
    out = io.StringIO()
    code = demo.run_selftest(out)
    lines = out.getvalue().splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    # Only the checks needing the Rust engine or truncation may fail on the stand-in.
    allowed = ("20,000-character", "path outside the root")
    assert all(any(a in line for a in allowed) for line in failed), failed
    assert re.fullmatch(r"\d+ passed, \d+ failed", lines[-1])
    assert code == (0 if not failed else 1)


def test_selftest_last_line_and_exit_code_agree(capsys):
    code = main(["demo", "--selftest"])
    lines = capsys.readouterr().out.splitlines()
    match = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1])
    assert match, lines[-1]
    passed, failed = int(match.group(1)), int(match.group(2))
    assert passed + failed >= 7
    assert passed + failed == len(demo.CHECKS) == len(lines) - 1
    assert code == (0 if failed == 0 else 1)


def test_selftest_passes_on_the_real_engine(capsys):
    assert main(["demo", "--selftest"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{len(demo.CHECKS)} passed, 0 failed"


def test_demo_on_the_real_engine(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "conclusion: found the cause after 7 tool calls" in out


def test_cli_without_subcommand_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_the_selftest_checks_under_python_dash_o() -> None:
    # python -O strips assert statements: the checks must not be made of them.
    done = subprocess.run(
        [sys.executable, "-O", "-m", "ripsight", "demo", "--selftest"],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{len(demo.CHECKS)} passed, 0 failed"
    shipped = Path(demo.__file__).parent
    for path in shipped.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not any(isinstance(node, ast.Assert) for node in ast.walk(tree)), path


def test_a_failing_check_is_reported_not_raised(monkeypatch) -> None:
    def broken(report: demo.DemoReport) -> None:
        selftest.expect(report.answer == "never", "the answer differs")

    monkeypatch.setattr(selftest, "CHECKS", [("a check that fails", broken)])
    out = io.StringIO()
    assert demo.run_selftest(out) == 1
    assert out.getvalue().splitlines()[-2:] == [
        "FAIL  a check that fails: the answer differs",
        "0 passed, 1 failed",
    ]
