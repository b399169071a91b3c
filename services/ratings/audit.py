"""Recompute ratings from public logs alone, and compare them with the service's
(``teoti ratings verify``; docs/ratings.md "Recomputing a rating").

An auditor holds exported game logs (``teoti export`` files) of one ruleset. Each is
audited as ``teoti replay --verify`` does (chain, fold, seed); each rated finished game
gives its outcome (services.ratings.outcome, what the service's rater reads); the rated
games are replayed through ``update_ratings`` in :func:`replay_key` order (the time the
game ended, then game id), from every player at the default rating. The result is what
the service's book must hold for those players if the export holds all their rated games.
Pure: the logs are parsed by the caller (services.engine.adapters.log_files).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from services.engine.domain.errors import CorruptLog, UnknownRuleset
from services.engine.domain.game import fold
from services.engine.domain.public_log import PublicLog, audit_public_log
from services.engine.domain.rulesets import RulesetRegistry
from services.ratings.outcome import GameOutcome, finished_at, outcome_of, replay_key
from services.tournament.ratings import Rating, update_ratings
from services.tournament.ratings_book import ACCOUNT_PREFIX

__all__ = ["TOLERANCE", "Recomputed", "compare", "recompute"]

TOLERANCE = 1e-6
"""Largest difference of mu or sigma taken as equal (floats stored as JSON text)."""


@dataclass(frozen=True)
class Recomputed:
    """Ratings recomputed from logs.

    Attributes:
        ruleset: the ruleset rated.
        ratings: rating identity (``player:<id>``) -> rating after every rated game.
        games: the rated games, in the order they were applied.
        problems: logs that failed their audit or do not fold (they rate nothing).
        skipped: games not rated: of another ruleset, unfinished, unrated or with no
            player seated.
    """

    ruleset: str
    ratings: dict[str, Rating]
    games: tuple[str, ...]
    problems: tuple[str, ...]
    skipped: tuple[str, ...]


def recompute(logs: Iterable[PublicLog], registry: RulesetRegistry, ruleset: str) -> Recomputed:
    """Replay the rated games of ``ruleset`` among ``logs`` (see the module doc). A log
    that fails its audit is reported in ``problems`` and rates nothing; the same game
    given twice is applied once."""
    problems: list[str] = []
    skipped: list[str] = []
    outcomes: dict[str, GameOutcome] = {}
    for log in logs:
        game_id = log.header.game_id
        if log.header.ruleset != ruleset:
            skipped.append(game_id)
            continue
        report = audit_public_log(log, registry)
        if not report.ok:
            problems.append(f"game {game_id}: {report.problems[0]}")
            continue
        try:
            snapshot = fold(game_id, log.events, registry)
        except (CorruptLog, UnknownRuleset) as exc:  # audited above: not expected
            problems.append(f"game {game_id} does not fold: {exc}")
            continue
        outcome = outcome_of(snapshot, finished_at(log.events))
        if outcome is None or not outcome.rated or snapshot.ruleset_name != ruleset:
            skipped.append(game_id)
            continue
        outcomes[game_id] = outcome
    ordered = sorted(outcomes.values(), key=replay_key)
    ratings: dict[str, Rating] = {}
    for outcome in ordered:
        ratings.update(update_ratings(ratings, outcome.identities, outcome.player_places))
    return Recomputed(
        ruleset,
        ratings,
        tuple(o.game_id for o in ordered),
        tuple(problems),
        tuple(skipped),
    )


def compare(recomputed: Mapping[str, Rating], service: Mapping[str, Rating]) -> list[str]:
    """Differences between recomputed ratings and the service's, one line per player
    account (``player:`` identities; tournament names are rated from tournament
    exports, not these logs). Empty when every one agrees within TOLERANCE."""
    problems = []
    accounts = {p for p in service if p.startswith(ACCOUNT_PREFIX)} | set(recomputed)
    for player in sorted(accounts):
        mine, theirs = recomputed.get(player), service.get(player)
        if mine is None and theirs is not None:
            problems.append(f"{player}: the service rates {theirs.games} games, the logs give none")
        elif theirs is None and mine is not None:
            problems.append(f"{player}: the logs give {mine.games} rated games, the service none")
        elif mine is not None and theirs is not None and not _same(mine, theirs):
            problems.append(
                f"{player}: the logs give mu {mine.mu:.6f} sigma {mine.sigma:.6f} after "
                f"{mine.games} games, the service mu {theirs.mu:.6f} sigma {theirs.sigma:.6f} "
                f"after {theirs.games}"
            )
    return problems


def _same(a: Rating, b: Rating) -> bool:
    return (
        a.games == b.games
        and math.isclose(a.mu, b.mu, abs_tol=TOLERANCE)
        and math.isclose(a.sigma, b.sigma, abs_tol=TOLERANCE)
    )
