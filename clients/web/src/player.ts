// The signed-in player (docs/players.md): a player credential kept in this browser's
// localStorage (never in a URL), calls made as that player (`Authorization: Player
// <credential>`), and the player, lobby, tournament and rating messages this client
// reads, named from the API contract (src/generated/openapi.ts, as api.ts's).

import { type MethodOf, type PathOf, type ReplyOf, type RequestOf, type Schema, post } from "./api";

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

/** The services a player calls (GameService is api.ts's `call`, with seat tokens). */
export type PlayerFacingService =
  typeof PLAYER_SERVICE | typeof LOBBY_SERVICE | typeof TOURNAMENT_SERVICE | typeof RATING_SERVICE;

/** Calls `service`'s `method` as the player holding `credential` ("" for an anonymous
 * call). Resolves to the reply, rejects with a Refusal (as api.ts's `call`). */
export function callAs<S extends PlayerFacingService, M extends MethodOf<S>>(
  service: S, method: M, body: RequestOf<PathOf<S, M>>, credential: string,
): Promise<ReplyOf<PathOf<S, M>>> {
  return post(`${service}${method}` as PathOf<S, M>, body, credential ? `Player ${credential}` : "");
}

/** One notice of a player's stream (PlayerNotice; `data_json` per docs/players.md). */
export type PlayerNotice = Schema<"gameserver.v1.PlayerNotice">;
/** LobbyTable (LobbyService). */
export type LobbyTable = Schema<"gameserver.v1.LobbyTable">;
export type TournamentSummary = Schema<"gameserver.v1.TournamentSummary">;
export type TournamentTable = Schema<"gameserver.v1.TournamentTable">;
/** Tournament (TournamentService), as GetTournament folds it from its log. */
export type Tournament = Schema<"gameserver.v1.Tournament">;
/** RatedPlayer (RatingService): `rating.rating` is mu − 3σ rounded, what people read. */
export type RatedPlayer = Schema<"gameserver.v1.RatedPlayer">;
