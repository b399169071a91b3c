// A game's public log exported by the browser, in the format `teoti export` writes
// (docs/public-log.md, teoti-public-log v1) and the way it builds it
// (services/cli/logs.py export_game): the service's signed head (GetSignedHead, none from
// a gateway without a signing key), the public view at that head (GetGame or GetGameAt),
// then every event up to it (ListEvents, 1000 a page). The page verifies this text with
// the same code as a file a person chooses, and offers it as a download.

import { type GameEvent, Refusal, call, present } from "./api";
import { type Json, JsonNumber, canonicalJson, parseJson } from "./canonical";
import type { LogSignature, PublishedKey } from "./verify";

/** Every event of `gameId` after `after` (ListEvents page by page, as a spectator sees them). */
export async function listAllEvents(gameId: string, after = 0): Promise<GameEvent[]> {
  const events: GameEvent[] = [];
  let from = after;
  for (;;) {
    const page = await call("ListEvents", { game_id: gameId, from_version: from, limit: 1000 });
    events.push(...(page.events ?? []));
    const next = Number(page.next_from_version ?? 0);
    if (!next) return events;
    from = next;
  }
}

/** The service's signed head of `gameId` now, or null from a gateway that signs nothing. */
async function signedHead(gameId: string): Promise<LogSignature | null> {
  try {
    const reply = await call("GetSignedHead", { game_id: gameId });
    const { statement_json: statement, signature, key_id } = present(reply.signed_head, "signed_head");
    return { statement, signature, key_id };
  } catch (error) {
    if (error instanceof Refusal && error.reason === "signing_key_missing") return null;
    throw error;
  }
}

/** The keys this server publishes (ListSigningKeys; [] when it signs nothing). */
export async function publishedKeys(): Promise<PublishedKey[]> {
  const reply = await call("ListSigningKeys", {});
  return reply.keys ?? [];
}

/** One event line: the event's fields as ListEvents gives them, the payload read from its
 * canonical text with numbers kept as written (sorted keys, as `teoti export` sorts). */
function eventLine(event: GameEvent): string {
  const metadata = event.metadata ?? { command_id: "", seat: 0, recorded_at: "" };
  const line = new Map<string, Json>([
    ["version", new JsonNumber(String(event.version))],
    ["type", event.type],
    ["schema_version", new JsonNumber(String(event.schema_version ?? 0))],
    ["payload", parseJson(event.payload_json || "{}")],
    ["metadata", new Map<string, Json>([
      ["command_id", metadata.command_id ?? ""],
      ["seat", new JsonNumber(String(metadata.seat ?? 0))],
      ["recorded_at", metadata.recorded_at ?? ""],
    ])],
    ["hash", event.hash],
  ]);
  return canonicalJson(line);
}

/** `gameId`'s public log as the text of a teoti-public-log file (header line, then one
 * line per event up to the signed head). Rejects with the API's Refusal. */
export async function exportPublicLog(gameId: string): Promise<string> {
  const signed = await signedHead(gameId);
  let game = await call("GetGame", { game_id: gameId });
  if (signed) {
    // Export exactly the signed head: the game may have moved on since it was signed.
    const statement = JSON.parse(signed.statement) as { version: number };
    if (Number(game.version) !== statement.version) {
      game = present((await call("GetGameAt", { game_id: gameId, version: statement.version })).game, "game");
    }
  }
  const events = (await listAllEvents(gameId)).filter((e) => Number(e.version) <= Number(game.version));
  const header = {
    events: events.length,
    exported_at: new Date().toISOString(),
    finished: Boolean(game.finished),
    format: "teoti-public-log",
    format_version: 1,
    game_id: gameId,
    head: { hash: game.head_hash, version: Number(game.version) },
    ruleset: game.ruleset,
    signatures: signed ? [signed] : [],
    source: location.origin,
    state: JSON.parse(game.state_json || "null") as unknown,
  };
  return [JSON.stringify(header), ...events.map(eventLine)].join("\n") + "\n";
}
