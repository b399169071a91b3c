// "Your games" folded from a player's notices (docs/players.md, "Player streams"): each
// game the player was seated in, its seat, whether it is their turn, its end and any
// rematch offered. Pure, so the page redraws from a plain value.

import type { PlayerNotice } from "./player";

export interface MyGame {
  gameId: string;
  ruleset: string;
  seat: number;
  /** The last notice said "your turn" (GetGame confirms it: a later move clears it). */
  yourTurn: boolean;
  finished: boolean;
  place: number | null;
  tournamentId: string;
  /** A rematch another player offered (its offer id), "" for none (my-games.tsx also
   * notes there one this page offered or answered). */
  rematchOffer: string;
  /** When the game was last heard of, ms since the epoch (the list is newest first). */
  at: number;
}

type Data = Record<string, unknown>;

/** A notice's data as an object ({} for data that is not a JSON object). */
export function dataOf(notice: PlayerNotice): Data {
  try {
    const data = JSON.parse(notice.data_json) as unknown;
    return data && typeof data === "object" ? data as Data : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const count = (value: unknown): number | null => (typeof value === "number" ? value : null);

/** `games` with `notice` applied (a new map when it changed anything; kinds this
 * client does not know are skipped, as the stream's contract asks). */
export function applyNotice(games: Map<string, MyGame>, notice: PlayerNotice): Map<string, MyGame> {
  const data = dataOf(notice);
  const gameId = text(data["game_id"]);
  if (!gameId) return games;
  const known = games.get(gameId);
  const base: MyGame = known ?? {
    gameId, ruleset: text(data["ruleset"]), seat: count(data["seat"]) ?? 0, yourTurn: false,
    finished: false, place: null, tournamentId: "", rematchOffer: "", at: Number(notice.at_ms),
  };
  let next: MyGame;
  switch (notice.kind) {
    case "game_started":
      next = { ...base, seat: count(data["seat"]) ?? base.seat };
      break;
    case "tournament_pairing":
      next = { ...base, seat: count(data["seat"]) ?? base.seat, tournamentId: text(data["tournament_id"]) };
      break;
    case "your_turn":
      next = { ...base, seat: count(data["seat"]) ?? base.seat, yourTurn: !base.finished };
      break;
    case "game_finished":
      next = { ...base, finished: true, yourTurn: false, place: count(data["place"]) };
      break;
    case "rematch_offered":
      next = { ...base, rematchOffer: text(data["offer_id"]) };
      break;
    default:
      return games;
  }
  const changed = new Map(games);
  changed.set(gameId, { ...next, ruleset: next.ruleset || text(data["ruleset"]), at: Number(notice.at_ms) });
  return changed;
}

/** The games newest first. */
export function newestFirst(games: Map<string, MyGame>): MyGame[] {
  return [...games.values()].sort((a, b) => b.at - a.at);
}
