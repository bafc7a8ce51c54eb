"""`ripsight bench --quick` on a tiny generated repository: runs in seconds, checks the JSON shape
and that every tool found the same answers (no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ripsight import bench as sb

pytestmark = pytest.mark.slow  # generates corpora and times every peer


@pytest.fixture()
def bench_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RIPSIGHT_BENCH_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_generators_are_deterministic(bench_dir, monkeypatch):
    def snapshot(root: str) -> tuple[list[str], bytes]:
        names = sorted(p.relative_to(root).as_posix() for p in Path(root).rglob("*"))
        return names, (Path(root) / "packages/pkg000/tests/f000000.py").read_bytes()

    first = sb.small_repo(40)
    monkeypatch.setenv("RIPSIGHT_BENCH_DIR", str(bench_dir / "other"))
    second = sb.small_repo(40)
    assert second != first
    assert snapshot(first) == snapshot(second)
    assert len(snapshot(first)[0]) > 40
    assert sb.small_repo(40) == second  # cached: same path, not rebuilt


def test_bench_quick_json(bench_dir, capsys):
    root = sb.small_repo(40)
    out = bench_dir / "figures.json"
    rc = sb.main(
        ["--quick", root, "--json", str(out), "--repeat", "2", "--log-mb", "2", "--no-progress"]
    )
    fig = json.loads(out.read_text())
    assert fig["problems"] == [], fig["problems"]
    assert rc == 0
    assert fig["root"].endswith(f"small-v{sb.GENERATOR_VERSION}-40")
    assert {"python", "cpus", "platform"} <= set(fig["machine"])
    cases = {r["case"] for r in fig["rows"]}
    assert {"grep rare literal", "grep common regex", "grep no match"} <= cases
    assert any(c.startswith("glob ") for c in cases)
    assert any(c.startswith("read_file ") for c in cases)
    assert {"per-call grep (small repo)", "per-call glob (small repo)"} <= cases
    for row in fig["rows"]:
        assert set(row) >= {
            "case",
            "tool",
            "median_ms",
            "runs_ms",
            "cpu_ms",
            "answer",
            "ratio_to_rg",
            "goal",
            "met",
            "note",
        }
        if row["median_ms"] is not None:
            assert row["median_ms"] > 0
            assert len(row["runs_ms"]) >= 1
    spy = [r for r in fig["rows"] if r["tool"] == "ripsight"]
    assert len(spy) == len(cases)
    assert all(r["goal"] and r["met"] in (True, False) for r in spy)
    rg = [r for r in fig["rows"] if r["tool"] == "rg"]
    assert rg and all(r["ratio_to_rg"] == pytest.approx(1.0) for r in rg)
    grep_answers = {r["case"]: r["answer"] for r in spy if r["case"].startswith("grep ")}
    assert grep_answers["grep rare literal"] == 3  # planted: 2 text files + 1 UTF-16 file
    assert grep_answers["grep no match"] == 0
    assert set(fig["threads"]) >= {
        "one_thread_calls_per_s",
        "two_threads_calls_per_s",
        "speedup",
        "met",
    }
    assert fig["read_memory"]["lines"] == 400
    table = capsys.readouterr().out
    assert "| case | tool | median ms | ratio to rg | cpu ms | goal | met |" in table
    assert "ripsight" in table


def test_bench_rejects_bad_arguments(bench_dir, capsys):
    assert sb.main(["/no/such/dir"]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert sb.main(["--repeat", "0", str(bench_dir)]) == 2


def test_options_mount_on_a_subcommand_parser(bench_dir, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="ripsight")
    sub = parser.add_subparsers(dest="command")
    sb.add_arguments(sub.add_parser("bench"))
    args = parser.parse_args(["bench", "--log-mb", "0", str(bench_dir)])
    assert args.command == "bench"
    assert sb.run(args) == 2
    assert "--log-mb" in capsys.readouterr().err


@pytest.mark.parametrize("mode", [[], ["--warm"], ["--scale"]])
def test_plot_without_matplotlib_says_how_to_install(bench_dir, capsys, monkeypatch, mode):
    # In every mode, before anything runs (a scale run once ended in this ImportError after
    # 20 minutes of measuring).
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "matplotlib":
            raise ImportError("no matplotlib")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    from ripsight.cli import main as cli

    plot = ["--plot", str(bench_dir / "x.png"), str(bench_dir)]
    assert sb.main([*mode, *plot]) == 2
    assert "matplotlib" in capsys.readouterr().err
    assert cli(["bench", *mode, *plot]) == 2
    assert "matplotlib" in capsys.readouterr().err
