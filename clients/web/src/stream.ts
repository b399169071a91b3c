// A server-sent event stream of the web face followed with fetch (so a credential
// travels in the Authorization header, never in the URL): WatchGame (watch.ts),
// WatchPlayer and WatchTournament. Reconnects after a drop, resuming where
// the caller says; stops at `end`, at a refusal that waiting will not fix, or on abort.

import { Refusal, type RequestOf, type Schema, type Status, type StreamPath } from "./api";
import type { components } from "./generated/openapi";

export interface Frame {
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

export type FollowState = "following" | "reconnecting" | "over" | "stopped";

/** The component name of the parsed events of the stream at `P` (the document's
 * "<service>.<Method>Frame": `message`, `end` or `error`). */
type FrameName<P extends StreamPath> = P extends `/${infer Service}/${infer Method}`
  ? Extract<`${Service}.${Method}Frame`, keyof components["schemas"]> : never;

/** The data of a `message` event of the stream at `P` (its reply message). */
export type MessageOf<P extends StreamPath> = Extract<Schema<FrameName<P>>, { event: "message" }>["data"];

export interface FollowHandlers<P extends StreamPath> {
  /** The request body, asked again at each (re)connection: it names where to resume. */
  body: () => RequestOf<P>;
  message: (data: MessageOf<P>) => void;
  state: (state: FollowState) => void;
  refused: (refusal: Refusal) => void;
}

const TRANSIENT = new Set(["UNAVAILABLE", "RESOURCE_EXHAUSTED"]);

/** Follows the stream at `path` (e.g. "/gameserver.v1.PlayerService/WatchPlayer") until
 * `signal` aborts, the stream ends, or it is refused for good. */
export async function follow<P extends StreamPath>(
  path: P, authorization: string, signal: AbortSignal, on: FollowHandlers<P>,
): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (authorization) headers["authorization"] = authorization;
  let pause = 1000;
  while (!signal.aborted) {
    on.state("following");
    try {
      const response = await fetch(path, { method: "POST", headers, signal, body: JSON.stringify(on.body()) });
      if (!response.ok || !response.body) throw new Refusal(response.status, (await response.json()) as Status);
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
          pause = 1000;
          if (frame.event === "message") on.message(frame.data as MessageOf<P>);
          else if (frame.event === "end") { on.state("over"); return; }
          else if (frame.event === "error") {
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
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 15000);
  }
}
