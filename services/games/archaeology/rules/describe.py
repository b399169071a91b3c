"""Actions and events in the game's own words (for logs, the terminal client and replays).

Kind ids are shown with spaces (``pharaoh_masks`` → "pharaoh masks"); rooms with Roman
numerals as on the tiles; seats as "seat N". A hidden value (None in a redacted event)
reads as "a card" / "cards".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.engine.domain.ruleset import DomainEvent
from services.safe_text import count

ROMAN = ("I", "II", "III", "IV", "V")
MILESTONES = frozenset({"ExpeditionSetUp", "CompulsorySellingBegan", "ExpeditionEnded"})


def kind_words(kind: Any) -> str:
    """A treasure kind id in words (the kind's plural, as the ids are)."""
    return "a card" if kind is None else str(kind).replace("_", " ")


KIND_NAMES: dict[str, tuple[str, str]] = {
    "pottery_shards": ("pottery shard", "pottery shards"),
    "parchment_scrolls": ("parchment scroll", "parchment scrolls"),
    "coins": ("coin", "coins"),
    "broken_tablets": ("broken tablet", "broken tablets"),
    "talismans": ("talisman", "talismans"),
    "broken_cups": ("broken cup", "broken cups"),
    "maps": ("map", "maps"),
    "broken_pendants": ("broken pendant", "broken pendants"),
    "pharaoh_masks": ("pharaoh mask", "pharaoh masks"),
}
"""Each treasure kind id's words for one card and for several, in RULES.md's terms (A1:
"pottery shards 16, ... maps 6"; "1 map"). The web board keeps the same table
(``web/index.tsx``, ``KIND_NAMES``; a test compares them)."""


def kind_count(n: int, kind: Any) -> str:
    """``n`` cards of ``kind``, the name agreeing: ``"1 coin"``, ``"2 coins"``,
    ``"1 pottery shard"``. A kind missing from :data:`KIND_NAMES` reads as its id."""
    one, many = KIND_NAMES.get(str(kind), (kind_words(kind), kind_words(kind)))
    return count(n, one, many)


def cards_words(cards: Mapping[str, int] | None) -> str:
    """``{kind: n}`` in words, e.g. "2 coins, 1 map"; hidden: "cards"."""
    if cards is None:
        return "cards"
    if not cards:
        return "nothing"
    return ", ".join(kind_count(n, k) for k, n in cards.items())


def room_words(room: Any) -> str:
    """Room index in the tile's numbering."""
    index = int(room)
    return f"room {ROMAN[index] if 0 <= index < len(ROMAN) else index + 1}"


def describe_action(action: Mapping[str, Any]) -> str:
    """One line naming ``action``."""
    match action.get("type"):
        case "dig":
            return "dig"
        case "rob":
            return f"rob seat {action.get('victim')}"
        case "tent":
            return "use the tent" if action.get("use") else "keep the tent"
        case "lose":
            return f"lose {kind_words(action.get('kind'))} to the sandstorm"
        case "offer":
            return f"offer {kind_words(action.get('kind'))} at the market"
        case "choose":
            return f"take {kind_words(action.get('kind'))} from the market"
        case "confirm_trade":
            return "make the trade"
        case "cancel_trade":
            return "cancel the trade"
        case "explore":
            named = action.get("named")
            suffix = f", naming {' and '.join(kind_words(k) for k in named)}" if named else ""
            return f"explore {room_words(action.get('room', 0))}{suffix}"
        case "take":
            return f"take {cards_words(action.get('cards'))}"
        case "mine":
            return "reveal another card" if action.get("go") else "stop and take the revealed cards"
        case "sell":
            n, kind = action.get("count"), action.get("kind")
            sold = kind_count(n, kind) if isinstance(n, int) else f"{n} {kind_words(kind)}"
            return f"sell {sold} to the museum"
        case "peek":
            return f"look into {room_words(action.get('room', 0))}"
        case "no_peek":
            return "don't look into a room"
        case "end_turn":
            return "end the turn"
    return f"unknown action {action.get('type')!r}"


def describe_event(event: DomainEvent) -> str:
    """One line telling what ``event`` means."""
    p = event.payload
    seat = f"seat {p.get('seat')}"
    match event.type:
        case "ExpeditionSetUp":
            return (
                f"expedition to the {kind_words(p['ruin'])} for {p['seats']} seats;"
                f" market: {cards_words(p['market'])}; seat {p['first_seat']} starts"
            )
        case "CardDug":
            if p["card"] == "treasure":
                return f"{seat} digs up {kind_words(p.get('kind'))}"
            return f"{seat} digs up a {p['card']}"
        case "ThiefVoided":
            return "the thief finds nobody to rob"
        case "CardStolen":
            return f"{seat} robs seat {p['victim']} of {kind_words(p.get('kind'))}"
        case "SandstormBegan":
            added = [k for k in p["reserve_added"] if k is not None]
            extra = f"; the reserve adds {', '.join(map(kind_words, added))}" if added else ""
            return f"sandstorm! losses per seat: {p['losses']}{extra}"
        case "TentDeclared":
            return f"{seat} {'shelters in its tent' if p['used'] else 'keeps its tent'}"
        case "CardLost":
            return f"{seat} loses {kind_words(p['kind'])} to the market"
        case "SandstormEnded":
            return "the sandstorm passes"
        case "TradeCardOffered":
            return f"{seat} offers {kind_words(p['kind'])}"
        case "TradeCardChosen":
            return f"{seat} picks {kind_words(p['kind'])} from the market"
        case "TradeCancelled":
            return f"{seat} cancels the trade"
        case "TradeMade":
            return f"{seat} trades {cards_words(p['given'])} for {cards_words(p['taken'])}"
        case "RuinExplored":
            named = p.get("named")
            suffix = f", naming {' and '.join(map(kind_words, named))}" if named else ""
            maps = count(p["maps"], "map")
            return f"{seat} spends {maps} to explore {room_words(p['room'])}{suffix}"
        case "RoomCardsTaken":
            taken = cards_words(p.get("cards"))
            return f"{seat} takes {count(p['count'], 'card')} from {room_words(p['room'])}: {taken}"
        case "TombSearched":
            return f"{seat} looks into {room_words(p['room'])} of the tomb"
        case "RoomPeeked":
            return f"{seat} peeks into {room_words(p['room'])}"
        case "PeekDeclined":
            return f"{seat} does not peek"
        case "MineCardRevealed":
            return f"the mine reveals {kind_words(p['kind'])}"
        case "MineBusted":
            return "the mine collapses: the revealed cards go back"
        case "MineCardsTaken":
            return f"{seat} takes {cards_words(p['cards'])} from the mine"
        case "SphinxRevealed":
            revealed, taken = cards_words(p["revealed"]), cards_words(p["taken"])
            return f"the sphinx reveals {revealed}; {seat} takes {taken}"
        case "SetSold":
            return f"{seat} sells {kind_count(p['count'], p['kind'])} for {p['points']} points"
        case "TurnEnded":
            return f"{seat} {'passes' if p['passed'] else 'ends its turn'}"
        case "CompulsorySellingBegan":
            return f"everyone passed: selling is compulsory from seat {p['seat']} on"
        case "ExpeditionEnded":
            return f"the expedition ends: scores {p['scores']}, winner seat {p['ranking'][0]}"
    return event.type
