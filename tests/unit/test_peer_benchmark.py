"""The peer benchmark's arithmetic (benchmarks/peer_benchmark.py): CPU from /proc,
percentiles, per-move figures, and ratios paired by repetition."""

from __future__ import annotations

import os

import pytest

from benchmarks.peer_benchmark import Cell, cpu_seconds, paired, percentile_ms, report, spread


def test_cpu_seconds_reads_this_process_and_grows_with_work() -> None:
    before = cpu_seconds([os.getpid()])
    sum(i * i for i in range(2_000_000))
    assert cpu_seconds([os.getpid()]) > before >= 0


def test_percentiles_are_taken_from_sorted_seconds_in_ms() -> None:
    samples = sorted(i / 1000 for i in range(1, 101))  # 1..100 ms
    assert percentile_ms(samples, 50) == pytest.approx(51)
    assert percentile_ms(samples, 99) == pytest.approx(100)
    assert percentile_ms([], 50) is None


def test_per_move_figures_and_paired_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    ours = [Cell("teoti", 10, rep, moves=100, elapsed_s=2, server_cpu_s=0.3) for rep in (1, 2)]
    theirs = [
        Cell("boardgame.io", 10, 1, moves=50, elapsed_s=2, server_cpu_s=0.1),
        Cell("boardgame.io", 10, 3, moves=50, elapsed_s=2, server_cpu_s=0.1),
    ]
    assert ours[0].moves_per_s == 50 and ours[0].cpu_ms_per_move == pytest.approx(3)
    assert Cell("teoti", 1, 1).cpu_ms_per_move is None  # no move, no per-move figure
    assert paired([*ours, *theirs], 10) == [(ours[0], theirs[0])]  # rep 2 has no partner
    assert spread([3.0, None, 1.0, 2.0]) == "1 / 2 / 3"
    ours[1].errors, ours[1].error_kinds = 2, {"UNAVAILABLE: x": 2}
    report([*ours, *theirs])
    out = capsys.readouterr().out
    assert "error x2: UNAVAILABLE: x" in out and "errors: 2 in all" in out
    # server CPU ratio of rep 1: 3 ms / 2 ms per move
    assert "teoti/bgio: 1.5 / 1.5 / 1.5" in out
