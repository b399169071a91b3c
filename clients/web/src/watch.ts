// WatchGame as server-sent events, read with fetch so the seat token travels in the
// Authorization header (an EventSource cannot send one). Reconnects after a drop from
// the last version received; stops at `end` or a refusal that waiting will not fix.

import { GAME_SERVICE, type GameEvent, Refusal, type RequestOf, type Schema, type Status } from "./api";

interface Frame {
  event: string;
  data: unknown;
}

/** One server-sent event frame (the text between blank lines), or null for a comment. */
export function parseFrame(text: string): Frame | null {
  let event = "message";
  const data: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) continue; // keepalive comment
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return data.length ? { event, data: JSON.parse(data.join("\n")) as unknown } : null;
}

export type StreamState = "following" | "reconnecting" | "over" | "stopped";

export interface WatchHandlers {
  /** The last version received (the watch resumes after it). */
  after: () => number;
  event: (event: GameEvent) => void;
  state: (state: StreamState) => void;
  refused: (refusal: Refusal) => void;
}

const TRANSIENT = new Set(["UNAVAILABLE", "RESOURCE_EXHAUSTED"]);

const WATCH_GAME = `${GAME_SERVICE}WatchGame` as const;

/** Follows `gameId`'s events until `signal` aborts, the game ends or a lasting refusal. */
export async function watchGame(
  gameId: string, token: string, signal: AbortSignal, on: WatchHandlers,
): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (token) headers["authorization"] = `Bearer ${token}`;
  while (!signal.aborted) {
    on.state("following");
    try {
      const response = await fetch(WATCH_GAME, {
        method: "POST", headers, signal,
        body: JSON.stringify({ game_id: gameId, from_version: on.after() } satisfies RequestOf<typeof WATCH_GAME>),
      });
      if (!response.ok || !response.body) {
        throw new Refusal(response.status, (await response.json()) as Status);
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const frame = parseFrame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (!frame) continue;
          if (frame.event === "message") {
            const { event } = frame.data as Schema<"gameserver.v1.WatchGameResponse">;
            if (event) on.event(event);
          } else if (frame.event === "end") {
            on.state("over");
            return;
          } else if (frame.event === "error") {
            const refusal = new Refusal(0, frame.data as Status);
            if (refusal.reason !== "watch_too_slow") throw refusal;
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof Refusal && error.reason !== "watch_too_slow" && !TRANSIENT.has(error.code)) {
        on.refused(error);
        on.state("stopped");
        return;
      }
    }
    on.state("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
