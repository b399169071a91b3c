"""Old logs' token hashes (tests/unit/test_engine_upcast.py) are honoured read-only:
shown on Teotihuacan's committed fixture logs, recorded in that format."""

from __future__ import annotations

from services.engine.domain.game import fold
from tests.game_samples import fixture_log_dir
from tests.unit.test_fixture_logs import expected_of, load_log, registry


def test_old_logs_tokens_still_act_for_their_seats() -> None:
    """Fixture logs of today's format: the hashes in them are honoured read-only."""
    for name, seat, token in (
        ("standard_3_humans", 0, "fixture-token-ann-0123456789abcdef"),
        ("joined_seat_2", 1, "fixture-token-dee-0123456789abcdef"),
    ):
        path = fixture_log_dir("teotihuacan") / f"{name}.jsonl.gz"
        game = fold(expected_of(path)["game_id"], load_log(path), registry())
        assert game.seats[seat].accepts(token)
        assert not game.seats[seat].accepts("fixture-token-eve-0123456789abcdef")
        assert not game.seats[seat].is_open
