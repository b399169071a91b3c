// The web face's JSON API (docs/web.md): every call is POST /<service>/<Method> with the
// request message as JSON in protobuf's JSON mapping; a refusal is a google.rpc.Status
// whose ErrorInfo detail's `reason` names the broken rule. The shapes are not written
// here: they are the API contract's, src/generated/openapi.ts (`npm run gen:api` from
// openapi.json, which the server generates from the protos), so tsc --strict checks each
// request this page sends and each reply field it reads against the document.
//
// The calls go through openapi-fetch (pinned in package.json): the companion of
// openapi-typescript, typed by the same `paths`, about 6 KB, no dependencies at run time,
// and fetch underneath, so URLs, headers and bodies stay what they were. It is chosen
// over a hand-written wrapper so the request/response plumbing is not ours to keep;
// `call` and player.ts's `callAs` only add what this page needs around it: the
// Authorization header, method names within a service, and a Refusal for every failure.

import createClient from "openapi-fetch";
import type { components, paths } from "./generated/openapi";

/** A component schema of the API contract by its name (e.g. "gameserver.v1.Seat"). */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

export const GAME_SERVICE = "/gameserver.v1.GameService/";

const CODES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
  "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** GetGameResponse: a game as a seat (or a spectator) sees it. */
export type Game = Schema<"gameserver.v1.GetGameResponse">;
export type LegalAction = Schema<"gameserver.v1.LegalAction">;
/** An event of a game's log; `description` is the event in the game's words (not hashed). */
export type GameEvent = Schema<"gameserver.v1.Event">;
export type Ruleset = Schema<"gameserver.v1.RulesetInfo">;
export type GameSummary = Schema<"gameserver.v1.GameSummary">;
/** google.rpc.Status as JSON (a refused call's body, a stream's `error` event). */
export type Status = Schema<"google.rpc.Status">;

/** The paths of unary calls: a JSON request answered by one JSON reply (the streams
 * answer text/event-stream; Play is a WebSocket, not a path). */
export type UnaryPath = {
  [P in keyof paths]: paths[P] extends {
    post: { responses: { 200: { content: { "application/json": unknown } } } };
  } ? P : never;
}[keyof paths];

/** The paths of server-sent event streams (WatchGame, WatchPlayer, WatchTournament). */
export type StreamPath = {
  [P in keyof paths]: paths[P] extends {
    post: { responses: { 200: { content: { "text/event-stream": unknown } } } };
  } ? P : never;
}[keyof paths];

/** The request message of the call or stream at `P`. */
export type RequestOf<P extends UnaryPath | StreamPath> =
  paths[P]["post"]["requestBody"]["content"]["application/json"];

/** The reply message of the unary call at `P`. */
export type ReplyOf<P extends UnaryPath> =
  paths[P]["post"]["responses"][200]["content"]["application/json"];

/** The methods of `Service` (its path prefix, e.g. GAME_SERVICE) called as unary calls. */
export type MethodOf<Service extends string> =
  UnaryPath extends infer P ? P extends `${Service}${infer M}` ? M : never : never;

/** The unary path of `Service`'s `M`. */
export type PathOf<Service extends string, M extends string> = Extract<`${Service}${M}`, UnaryPath>;

/** A detail of a Status: an ErrorInfo or RetryInfo, by its "@type". */
interface Detail {
  readonly "@type"?: string;
  readonly reason?: string;
  readonly metadata?: { readonly [key: string]: string };
}

/** What a refusal says: a Status (HTTP, a stream's `error` event), a PlayError (the
 * Play socket), or what this page makes of a failure that has none. */
interface StatusLike {
  readonly code?: number;
  readonly message?: string;
  readonly details?: readonly Detail[];
}

/** A refused call: the gRPC code's name, the rule (ErrorInfo reason) and its message. */
export class Refusal extends Error {
  readonly code: string;
  readonly reason: string;

  constructor(httpStatus: number, status: StatusLike) {
    const info = (status.details ?? []).find((d) => String(d["@type"]).endsWith("ErrorInfo")) ?? {};
    const meta = info.metadata ?? {};
    super(meta["message"] ?? status.message ?? `HTTP ${httpStatus}`);
    this.code = CODES[status.code ?? -1] ?? `HTTP ${httpStatus}`;
    this.reason = info.reason ?? this.code.toLowerCase();
  }
}

/** `value`, a message field the reply always carries (proto3 gives message fields
 * presence, so the contract marks them optional); a reply without it is refused as
 * INTERNAL rather than read as undefined. */
export function present<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new Refusal(0, { code: 13, message: `the reply has no ${field}` });
  return value;
}

const api = createClient<paths>();

/** POSTs `body` to the unary call at `path` with `authorization` ("" for none) in the
 * Authorization header (never in the URL). Resolves to the reply, rejects with a Refusal:
 * the server's Status, or UNAVAILABLE when it cannot be reached. */
export async function post<P extends UnaryPath>(path: P, body: RequestOf<P>, authorization: string): Promise<ReplyOf<P>> {
  const headers: Record<string, string> = {};
  if (authorization) headers["authorization"] = authorization;
  // openapi-fetch checks body and reply at a literal path; `path` here is generic (any
  // unary path), so its POST is seen through the one shape every unary call shares, and
  // this function's own signature carries the per-path types from `paths`.
  const postAt = api.POST as (url: P, init: { body: RequestOf<P>; headers: Record<string, string> }) =>
    Promise<{ data?: unknown; error?: unknown; response: Response }>;
  let result: Awaited<ReturnType<typeof postAt>>;
  try {
    result = await postAt(path, { body, headers });
  } catch (error) {
    if (error instanceof SyntaxError) throw new Refusal(0, { code: 13, message: `the reply is not JSON (${error.message})` });
    throw new Refusal(0, { code: 14, message: `the server cannot be reached (${String(error)})` });
  }
  const { response } = result;
  if (!response.ok) {
    const error: unknown = result.error;
    const status = error !== null && typeof error === "object" ? error as Status : { code: 13, message: response.statusText };
    throw new Refusal(response.status, status);
  }
  return result.data as ReplyOf<P>;
}

/** Calls GameService's `method` with a seat token ("" for none) as `Bearer`. */
export function call<M extends MethodOf<typeof GAME_SERVICE>>(
  method: M, body: RequestOf<PathOf<typeof GAME_SERVICE, M>>, token = "",
): Promise<ReplyOf<PathOf<typeof GAME_SERVICE, M>>> {
  return post(`${GAME_SERVICE}${method}` as PathOf<typeof GAME_SERVICE, M>, body, token ? `Bearer ${token}` : "");
}

/** A fresh random command id (hex, 128 bits): a retried move keeps it, so the server
 * applies it once. */
export function newId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
