"""Ending a turn, passes, compulsory selling and the end of the game (RULES.md A3.3, A4,
E14, E15, E16)."""

from __future__ import annotations

from services.engine.domain.ruleset import GameResult

from .play import Play, refuse
from .state import GameState


def may_end_turn(state: GameState, seat: int) -> bool:
    """True if ``seat`` may end its turn now: no dig owed, nothing pending, and during
    compulsory selling a sale made unless the hand is empty (A4, E14)."""
    if state.turn.must_dig or state.pending is not None:
        return False
    owes_sale = state.compulsory and state.hand_size(seat) > 0 and not state.turn.sold
    return not owes_sale


def end_turn(play: Play, seat: int) -> None:
    """End the turn (a pass if the seat neither dug nor acted); after N passes in a row
    selling becomes compulsory (A4).

    Raises RuleViolation ``dig_first``, ``decision_pending`` or ``sale_required``.
    """
    state = play.state
    if state.turn.must_dig:
        raise refuse("dig_first", "RULES.md A3.1, A8: dig before anything else")
    if state.pending is not None:
        raise refuse("decision_pending", "RULES.md A3: finish the decision under way first")
    if not may_end_turn(state, seat):
        raise refuse(
            "sale_required",
            "RULES.md A4, E14: selling is compulsory: make at least one museum sale this turn",
        )
    passed = not state.turn.acted
    play.emit("TurnEnded", seat=seat, passed=passed)
    if not play.state.compulsory and play.state.passes >= play.state.seat_count:
        play.emit("CompulsorySellingBegan", seat=play.state.turn.seat)


def game_over(state: GameState) -> bool:
    """True once the dig site and every hand are empty and nothing is pending (A4, E15)."""
    return (
        state.dig_site_size == 0
        and state.pending is None
        and all(state.hand_size(s) == 0 for s in range(state.seat_count))
    )


def end_if_over(play: Play) -> None:
    """Write the end of the game with its scores as soon as it is over (A4)."""
    state = play.state
    if state.ended or not game_over(state):
        return
    result = result_of(state)
    play.emit(
        "ExpeditionEnded",
        scores=list(result.scores),
        cards_sold=[s.cards_sold for s in state.seats],
        ranking=list(result.ranking),
    )


def result_of(state: GameState) -> GameResult:
    """Scores and ranking: most points first, then fewer cards sold (A4); a tie beyond
    that is shared (E16) and listed in seat order."""
    scores = tuple(s.points for s in state.seats)
    ranking = tuple(
        sorted(range(state.seat_count), key=lambda s: (-scores[s], state.seats[s].cards_sold, s))
    )
    return GameResult(scores, ranking)
