"""Reading the rating book as people and clients read it: a ruleset's leaderboard a
page at a time, a player's rating and history (RatingService; docs/ratings.md).

A leaderboard row names the player: a player account (``player:<id>``) by its display
name and bot flag (services.players), a tournament entrant by its tournament name
(``bot:<name>`` a tournament's bot). Pages are numbered by offset: the token is the
decimal offset of the next row, so a page is stable only while no game is rated in
between (a leaderboard moves; the rows of one page are consistent).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.engine.domain.ruleset import InvalidOptions
from services.engine.domain.rulesets import RulesetRegistry
from services.players.service import PlayerService
from services.tournament.conductor import BOT_PREFIX
from services.tournament.ratings import Rating
from services.tournament.ratings_book import (
    ACCOUNT_PREFIX,
    HistoryEntry,
    RatingsBook,
    account_identity,
)

__all__ = [
    "MAX_PAGE",
    "BoardRow",
    "InvalidRatingQuery",
    "LeaderboardPage",
    "PlayerRating",
    "RatingQueries",
]

MAX_PAGE = 200
"""Most rows (or history entries) one page holds."""
BOARD_PAGE = 50
"""Rows of a leaderboard page when the caller asks for none in particular."""
HISTORY_PAGE = 20
"""History entries of a page when the caller asks for none in particular."""


class InvalidRatingQuery(InvalidOptions):
    """A page size or token out of range (INVALID_ARGUMENT, reason ``page_size`` /
    ``page_token``)."""


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One leaderboard row: ``rank`` (1-based), ``player_id`` ("" for a tournament
    name), display ``name``, ``bot``, ``rating``."""

    rank: int
    player_id: str
    name: str
    bot: bool
    rating: Rating


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of rows, the next page's token ("" on the last) and the rated players."""

    rows: tuple[BoardRow, ...]
    next_token: str
    total: int


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's rating in a ruleset (a new player's if never rated) and a page of
    history, newest first, with the next page's token."""

    name: str
    bot: bool
    rating: Rating
    history: tuple[HistoryEntry, ...]
    next_token: str


def _page(size: int, default: int) -> int:
    if size == 0:
        return default
    if not 1 <= size <= MAX_PAGE:
        raise InvalidRatingQuery("page_size", f"page_size is 1 to {MAX_PAGE} (0: {default})")
    return size


def _offset(token: str) -> int:
    if not token:
        return 0
    if not token.isdigit() or len(token) > 9:
        raise InvalidRatingQuery("page_token", "page_token is a previous reply's next_page_token")
    return int(token)


class RatingQueries:
    """Leaderboards and players' ratings (see the module doc).

    Args:
        book: the rating book.
        players: player accounts (names and bot flags).
        registry: the rulesets a query may name.
    """

    def __init__(self, book: RatingsBook, players: PlayerService, registry: RulesetRegistry):
        self._book = book
        self._players = players
        self._registry = registry

    async def leaderboard(
        self, ruleset: str, page_size: int = 0, token: str = ""
    ) -> LeaderboardPage:
        """A page of ``ruleset``'s leaderboard. Raises UnknownRuleset, InvalidRatingQuery."""
        self._registry.get(ruleset)
        size, offset = _page(page_size, BOARD_PAGE), _offset(token)
        board = await self._book.leaderboard(ruleset, 0)
        rows = []
        for rank, (identity, rating) in enumerate(board[offset : offset + size], offset + 1):
            rows.append(await self._row(rank, identity, rating))
        end = offset + len(rows)
        return LeaderboardPage(tuple(rows), str(end) if end < len(board) else "", len(board))

    async def _row(self, rank: int, identity: str, rating: Rating) -> BoardRow:
        if identity.startswith(ACCOUNT_PREFIX):
            player_id = identity.removeprefix(ACCOUNT_PREFIX)
            profile = await self._players.repo.player(player_id)
            name = profile.name if profile is not None else player_id
            return BoardRow(rank, player_id, name, bool(profile and profile.bot), rating)
        if identity.startswith(BOT_PREFIX):
            return BoardRow(rank, "", identity.removeprefix(BOT_PREFIX), True, rating)
        return BoardRow(rank, "", identity, False, rating)

    async def player_rating(
        self, player_id: str, ruleset: str, page_size: int = 0, token: str = ""
    ) -> PlayerRating:
        """``player_id``'s rating in ``ruleset`` and a page of its history. Raises
        PlayerNotFound, UnknownRuleset, InvalidRatingQuery."""
        self._registry.get(ruleset)
        size, offset = _page(page_size, HISTORY_PAGE), _offset(token)
        profile = await self._players.get(player_id)
        identity = account_identity(profile.player_id)
        rating = await self._book.rating(ruleset, identity) or Rating()
        history = await self._book.history(ruleset, identity, offset, size + 1)
        more = len(history) > size
        return PlayerRating(
            profile.name,
            profile.bot,
            rating,
            tuple(history[:size]),
            str(offset + size) if more else "",
        )
