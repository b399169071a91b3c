"""The tournament scale benchmark (issue 34) at a small size, so it does not rot: 16 bot
players, 2 Swiss rounds of 4-seat tables on a 3-master Redis Cluster with 2 engines, 2
bot workers, 2 directors and 2 gateways; one of each is killed and restarted during
round 2. The run must count no error and lose no game, every game and the tournament
must verify, the standings must recompute from the log, and both watchers must have
seen every round's pairings (the one on the killed gateway by resuming).

    .venv/bin/pytest -m slow tests/scale/test_tournament_scale_benchmark.py -s
"""

from __future__ import annotations

import re

import pytest

from benchmarks.tournament_scale_benchmark import main

pytestmark = pytest.mark.slow  # eleven processes, two rounds of real games: about 100 s


def test_a_small_swiss_survives_one_of_each_process_killed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["--players", "16", "--rounds", "2", "--kill-round", "2"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "errors: 0" in out and "games lost: 0; games that do not verify: 0" in out, out
    assert "tournament verified: chain True, pairings True, rounds 2" in out, out
    assert "standings recomputed from the log agree: True" in out, out
    for round_ in (1, 2):
        seen = re.search(
            rf"round {round_}: 4 tables \(expected 4\), [0-9.]+ s; "
            r"pairings seen per watcher: \{'gateway0': 4, 'gateway1': 4\}",
            out,
        )
        assert seen is not None, out
    moves = re.search(r"games: 8, commands: (\d+), events: (\d+); moves/s: (\d+)", out)
    assert moves is not None and int(moves[1]) > 8 and int(moves[3]) > 0, out
    assert "killed: yes" in out, out
