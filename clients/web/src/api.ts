// The web face's JSON API (docs/web.md): every call is POST /<service>/<Method> with the
// request message as JSON in protobuf's JSON mapping; a refusal is a google.rpc.Status
// whose ErrorInfo detail's `reason` names the broken rule. The types below are the
// fields of proto/gameserver/v1/game_service.proto this client reads (proto names, as
// the face sends them; int64 as JSON numbers when exact).

export const GAME_SERVICE = "/gameserver.v1.GameService/";

const CODES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
  "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

export type SeatKind = "SEAT_KIND_HUMAN" | "SEAT_KIND_BOT" | "SEAT_KIND_UNSPECIFIED";

export interface Seat {
  kind: SeatKind;
  name: string;
  open: boolean;
  player?: string;
}

export interface GameResult {
  scores: number[];
  ranking: number[];
}

/** GetGameResponse: a game as a seat (or a spectator) sees it. */
export interface Game {
  game_id: string;
  ruleset: string;
  version: number;
  seats: Seat[];
  seats_to_act: number[];
  scores: number[];
  finished: boolean;
  result?: GameResult;
  state_json: string;
  seats_out?: number[];
  seats_resigned?: number[];
  seats_played_by_bot?: number[];
}

export interface LegalAction {
  action_json: string;
  description: string;
}

export interface EventMetadata {
  command_id: string;
  seat: number;
  recorded_at: string;
}

/** An event of a game's log; `description` is the event in the game's words (not hashed). */
export interface GameEvent {
  version: number;
  type: string;
  schema_version: number;
  payload_json: string;
  metadata: EventMetadata;
  hash: string;
  description: string;
}

export interface Ruleset {
  name: string;
  title: string;
  is_default: boolean;
  min_seats: number;
  max_seats: number;
}

export interface GameSummary {
  game_id: string;
  ruleset: string;
  version: number;
  finished: boolean;
  seats: Seat[];
}

interface StatusDetail {
  "@type"?: string;
  reason?: string;
  metadata?: Record<string, string>;
}

/** google.rpc.Status as JSON. */
export interface Status {
  code?: number;
  message?: string;
  details?: StatusDetail[];
}

/** A refused call: the gRPC code's name, the rule (ErrorInfo reason) and its message. */
export class Refusal extends Error {
  readonly code: string;
  readonly reason: string;

  constructor(httpStatus: number, status: Status) {
    const info = (status.details ?? []).find((d) => String(d["@type"]).endsWith("ErrorInfo")) ?? {};
    const meta = info.metadata ?? {};
    super(meta["message"] ?? status.message ?? `HTTP ${httpStatus}`);
    this.code = CODES[status.code ?? -1] ?? `HTTP ${httpStatus}`;
    this.reason = info.reason ?? this.code.toLowerCase();
  }
}

/** Calls `method` of `service` over HTTP; `token` goes in the Authorization header
 * (never in the URL). Resolves to the reply's JSON, rejects with a Refusal. */
export async function call<T>(
  method: string, body: object, token = "", service = GAME_SERVICE,
): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers["authorization"] = `Bearer ${token}`;
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

/** A fresh random command id (hex, 128 bits): a retried move keeps it, so the server
 * applies it once. */
export function newId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
