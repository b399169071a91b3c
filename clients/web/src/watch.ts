// WatchGame as server-sent events, followed by stream.ts's `follow` (fetch, so the seat
// token travels in the Authorization header, which an EventSource cannot send).
// Reconnects after a drop from the last version received; stops at `end` or a refusal
// that waiting will not fix.

import { GAME_SERVICE, type GameEvent, type Refusal } from "./api";
import { type FollowState, follow } from "./stream";

export type StreamState = FollowState;

export interface WatchHandlers {
  /** The last version received (the watch resumes after it). */
  after: () => number;
  event: (event: GameEvent) => void;
  state: (state: StreamState) => void;
  refused: (refusal: Refusal) => void;
}

const WATCH_GAME = `${GAME_SERVICE}WatchGame` as const;

/** Follows `gameId`'s events until `signal` aborts, the game ends or a lasting refusal. */
export async function watchGame(
  gameId: string, token: string, signal: AbortSignal, on: WatchHandlers,
): Promise<void> {
  await follow(WATCH_GAME, token ? `Bearer ${token}` : "", signal, {
    body: () => ({ game_id: gameId, from_version: on.after() }),
    message: (data) => {
      if (data.event) on.event(data.event);
    },
    state: on.state,
    refused: on.refused,
  });
}
