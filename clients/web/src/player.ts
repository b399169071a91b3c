// The signed-in player (docs/players.md): a player credential kept in this browser's
// localStorage (never in a URL), calls made as that player (`Authorization: Player
// <credential>`), and the shapes of the player, lobby, tournament and rating messages
// this client reads (proto names, as the web face sends them).

import { Refusal, type Status } from "./api";

export const PLAYER_SERVICE = "/gameserver.v1.PlayerService/";
export const LOBBY_SERVICE = "/gameserver.v1.LobbyService/";
export const TOURNAMENT_SERVICE = "/gameserver.v1.TournamentService/";
export const RATING_SERVICE = "/gameserver.v1.RatingService/";

/** Who is signed in: the credential (secret) and the profile it holds. */
export interface Account {
  credential: string;
  player_id: string;
  name: string;
}

const KEY = "teoti:player";

/** The account kept in this browser, or null when nobody is signed in. */
export function savedAccount(): Account | null {
  try {
    const account = JSON.parse(localStorage.getItem(KEY) ?? "null") as Account | null;
    return account && account.credential && account.player_id ? account : null;
  } catch {
    return null;
  }
}

export function keepAccount(account: Account): void {
  localStorage.setItem(KEY, JSON.stringify(account));
}

/** Forgets the account and every game seat this browser kept under its credential
 * (main.tsx keeps a seat as `teoti:<game id>` → {seat, token}). */
export function forgetAccount(): void {
  const account = savedAccount();
  localStorage.removeItem(KEY);
  if (!account) return;
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith("teoti:")) continue;
    try {
      const kept = JSON.parse(localStorage.getItem(key) ?? "null") as { token?: string } | null;
      if (kept?.token === account.credential) localStorage.removeItem(key);
    } catch { /* not one of ours */ }
  }
}

/** Calls `service`'s `method` as the player holding `credential` ("" for an anonymous
 * call). Resolves to the reply's JSON, rejects with a Refusal (as api.ts's `call`). */
export async function callAs<T>(service: string, method: string, body: object, credential: string): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (credential) headers["authorization"] = `Player ${credential}`;
  let response: Response;
  try {
    response = await fetch(service + method, { method: "POST", headers, body: JSON.stringify(body) });
  } catch (error) {
    throw new Refusal(0, { code: 14, message: `the server cannot be reached (${String(error)})` });
  }
  const data: unknown = await response.json().catch(() => ({ code: 13, message: response.statusText }));
  if (!response.ok) throw new Refusal(response.status, data as Status);
  return data as T;
}

/** Player (PlayerService). */
export interface Player {
  player_id: string;
  name: string;
  bot: boolean;
}

/** One notice of a player's stream (PlayerNotice; `data_json` per docs/players.md). */
export interface PlayerNotice {
  id: string;
  kind: string;
  at_ms: number;
  data_json: string;
}

export interface LobbyTableSeat {
  seat: number;
  player_id: string;
  bot: boolean;
}

/** LobbyTable (LobbyService). */
export interface LobbyTable {
  table_id: string;
  host_player_id: string;
  ruleset: string;
  seats: LobbyTableSeat[];
  free_seats: number;
  rated: boolean;
  status: string;
  game_id: string;
  failure: string;
}

export interface RematchOffer {
  offer_id: string;
  game_id: string;
  players: string[];
  accepted: string[];
  status: string;
  table_id: string;
}

export interface TournamentSummary {
  tournament_id: string;
  name: string;
  ruleset: string;
  status: string;
  players: number;
  rounds_paired: number;
}

export interface StandingRow {
  player: string;
  rank: number;
  points: number;
  tiebreaks: number[];
  rounds_played: number;
  byes: number;
  withdrawn: boolean;
}

export interface TournamentTable {
  table: number;
  players: string[];
  game_id: string;
  places: number[];
  finished: boolean;
}

export interface TournamentRound {
  round: number;
  tables: TournamentTable[];
  byes: string[];
  finished: boolean;
}

export interface TournamentPlayer {
  name: string;
  kind: string;
  withdrawn: boolean;
  player_id: string;
}

/** Tournament (TournamentService), as GetTournament folds it from its log. */
export interface Tournament {
  tournament_id: string;
  config: { name: string; ruleset: string; rounds: number; format: string };
  status: string;
  players: TournamentPlayer[];
  rounds: TournamentRound[];
  standings: StandingRow[];
  tiebreaks: string[];
  version: number;
}

/** RatedPlayer (RatingService): `rating.rating` is mu − 3σ rounded, what people read. */
export interface RatedPlayer {
  rank: number;
  player_id: string;
  name: string;
  bot: boolean;
  rating: { rating: number; games: number };
}
