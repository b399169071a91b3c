"""Each table of a tournament checked against its game's own public log: the places the
tournament's log records (TableFinished) must be the places the game's log folds to.

A tournament's log carries no service signature, but every game's head does
(docs/public-log.md, "Signatures"): with the games' exported logs beside the tournament's,
an auditor re-derives every result from logs the service signed, so a forger who rewrote
a table's places and the summary with them is caught here. Pure: logs in, problems out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.engine.domain.errors import CorruptLog, UnknownRuleset
from services.engine.domain.game import fold
from services.engine.domain.public_log import PublicLog, audit_public_log
from services.engine.domain.rulesets import RulesetRegistry
from services.tournament.aggregate import TournamentState
from services.tournament.conductor import places_of

__all__ = ["TableCheck", "check_tables"]


@dataclass(frozen=True, slots=True)
class TableCheck:
    """What :func:`check_tables` found: tables whose recorded places the game's log
    confirmed, tables still playing in both logs, and one line per problem."""

    confirmed: int
    playing: int
    problems: tuple[str, ...]


def check_tables(
    state: TournamentState, games: Mapping[str, PublicLog], registry: RulesetRegistry
) -> TableCheck:
    """Check every table of ``state`` against ``games`` (game id -> its public log):
    the game's log must be there and pass :func:`audit_public_log` (chain, fold,
    commitments, seed), and a finished table's recorded places and forfeits must be the
    game's result (forfeited seats last, as the director records them,
    ``conductor.places_of``). A game that has ended while the tournament's log records
    no result yet is not a problem (the export of the game came later)."""
    problems: list[str] = []
    confirmed = playing = 0
    for round_ in state.rounds:
        for table in round_.pairing.tables:
            where = f"round {round_.number} table {table.number}"
            game_id = round_.game_ids.get(table.number, "")
            log = games.get(game_id)
            if log is None:
                problems.append(f"{where}: the log of its game {game_id} is not in the export")
                continue
            if log.header.game_id != game_id:
                problems.append(
                    f"{where}: the file for game {game_id} holds game {log.header.game_id}"
                )
                continue
            report = audit_public_log(log, registry)
            if not report.ok:
                problems.append(f"{where}: game {game_id}: {report.problems[0]}")
                continue
            recorded = round_.results.get(table.number)
            try:
                result = places_of(fold(game_id, log.events, registry), table.players)
            except (CorruptLog, UnknownRuleset) as exc:  # audited above: not expected
                problems.append(f"{where}: game {game_id} does not fold: {exc}")
                continue
            if recorded is None:
                playing += result is None
                continue
            if result is None:
                problems.append(f"{where}: places recorded, but game {game_id} has not ended")
            elif (result.places, set(result.forfeited)) != (
                recorded.places,
                set(recorded.forfeited),
            ):
                problems.append(
                    f"{where}: places {list(recorded.places)} recorded, game {game_id}'s "
                    f"log gives {list(result.places)}"
                )
            else:
                confirmed += 1
    return TableCheck(confirmed, playing, tuple(problems))
