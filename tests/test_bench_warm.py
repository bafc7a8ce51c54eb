"""`ripsight bench --warm` checks every tool's answer before timing it (on a small tree)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ripsight.bench import warm as bench_warm

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def test_warm_bench_checks_answers_and_reports_the_index(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"d{i % 3}").mkdir(exist_ok=True)
        (tmp_path / f"d{i % 3}" / f"f{i}.c").write_text(
            f"int x{i};\n" + ("PM_RESUME\n" if i % 7 == 0 else "")
        )
    fig = bench_warm.run_warm(str(tmp_path), ["PM_RESUME", "x1"], "**/*.c", repeat=1)
    assert fig["problems"] == []
    row = fig["rows"][0]
    assert row["files"] == 5 and row["differs"]["ripsight warm"] == 0
    if "rg" in row["ms"]:
        assert row["differs"]["rg"] == 0
    assert fig["glob"]["files"] == 30
    assert fig["index"]["files"] == 30
    text = bench_warm.format_warm(fig)
    assert "`PM_RESUME` (5)" in text and "PROBLEM" not in text


def test_scale_bench_measures_copies_a_second_process_and_links(tmp_path: Path) -> None:
    from ripsight.bench import scale

    root = tmp_path / "repo"
    for i in range(40):
        (root / f"d{i % 4}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 4}" / f"f{i}.c").write_text(
            f"int x{i};\n" + ("PM_RESUME\n" if i % 7 == 0 else "")
        )
    result = scale.run_scale(
        str(root),
        [1, 2],
        ["PM_RESUME", "x1"],
        "**/*.c",
        repeat=1,
        links=True,
        base=str(tmp_path / "copies"),
    )
    assert result["problems"] == []
    one, two, linked = result["trees"]
    assert one["index"]["files"] == 40 and two["index"]["files"] == 80
    assert two["rows"][0]["files"] == 2 * one["rows"][0]["files"]
    assert linked["linked"] and linked["index"]["files"] == 40
    for fig in result["trees"]:
        assert fig["second"]["loaded"] is True and fig["second"]["ready_s"] > 0
    text = scale.format_scale(result)
    assert "2 copies" in text and "hard-linked copy" in text and "PROBLEM" not in text
    pytest.importorskip("matplotlib")
    scale.plot_scale(result, str(tmp_path / "scale.png"))
    assert (tmp_path / "scale.png").stat().st_size > 10_000
