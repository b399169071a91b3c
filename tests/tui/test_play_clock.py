"""``teoti play`` with a clock: the flags become the new game's time control (the
person's seat is clocked, the bots' are not), and a clock with --join is a usage error."""

from __future__ import annotations

import pytest

from services.cli.commands import build_parser
from services.cli.errors import UsageError
from services.cli.games import play_clock
from services.client import TeotiClient, TimeControl
from services.tui.backend import create_game


def test_play_flags_make_the_time_control() -> None:
    parser = build_parser()
    args = parser.parse_args(["play", "--base-ms", "600000", "--increment-ms", "10000"])
    assert play_clock(args) == TimeControl(600_000, 10_000, 0, "forfeit")
    assert play_clock(parser.parse_args(["play"])) is None
    joining = parser.parse_args(["play", "--join", "g1", "--move-deadline-ms", "60000"])
    with pytest.raises(UsageError):
        play_clock(joining)


async def test_the_new_game_and_the_persons_seat_are_clocked(client: TeotiClient) -> None:
    control = TimeControl(base_ms=600_000, increment_ms=10_000, timeout_policy="bot_takeover")
    game = await create_game(client, "ann", players=2, solo=False, time_control=control)
    view = await client.get_game(game.game_id)
    assert view.time_control == control
    assert view.clocks[0].remaining_ms == 600_000  # (the bot may be first to act)
