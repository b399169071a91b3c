// A game's exported public log (docs/public-log.md, format teoti-public-log v1) checked in
// the browser with WebCrypto: the hash chain recomputed exactly as the server defines it
// (services/engine/domain/chain.py: hash(v) = SHA-256(hash(v-1) as hex text followed by
// the canonical JSON of {version, type, schema_version, payload, metadata: {command_id,
// seat, recorded_at}}), hash(0) = 64 zeros), the header's head and event count, and the
// service's Ed25519 signatures over the head (head_signing.py) with the keys it publishes.
// Not checked here: the rules' re-fold, commitments and reveals, the seed (the server's
// VerifyGame and `teoti replay FILE --verify` do those with the game's rules).
// No DOM and no API calls: node runs this module too (tests/web/test_replay_verifier.py).

import { type Json, JsonNumber, type JsonObject, canonicalJson, parseJson } from "./canonical";

export const LOG_FORMAT = "teoti-public-log";
export const GENESIS_HASH = "0".repeat(64);
const KNOWN_VERSIONS = new Set([1]);

/** One signed head of the header: the statement's exact text, its signature (base64), the key. */
export interface LogSignature {
  statement: string;
  signature: string;
  key_id: string;
}

/** A public log as read from its lines: the header's fields the checks need, and each
 * event line parsed with numbers kept as written (so its content hashes as the server's). */
export interface PublicLog {
  gameId: string;
  ruleset: string;
  finished: boolean;
  headVersion: number;
  headHash: string;
  events: number;
  signatures: LogSignature[];
  /** Each event line (line 2 on), or the reason it is not a JSON object. */
  lines: (JsonObject | string)[];
}

/** A key of ListSigningKeys (or /.well-known/teoti-signing-keys.json). */
export interface PublishedKey {
  key_id: string;
  algorithm: string;
  public_key: string;
  valid_from?: string;
  valid_until?: string;
  current?: boolean;
}

/** The file is not a public log this page reads (bad header line, unknown version). */
export class LogFormatError extends Error {}

function field(object: JsonObject, key: string): Json | undefined {
  return object.get(key);
}

function text(value: Json | undefined): string {
  return typeof value === "string" ? value : "";
}

function integer(value: Json | undefined): number | null {
  if (value instanceof JsonNumber && Number.isFinite(value.value)) return Math.trunc(value.value);
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) return Number(value);
  return null;
}

/** Reads a teoti-public-log file's text (JSON lines; line 1 the header). Throws
 * LogFormatError for a header it cannot use; a bad event line is kept as its reason and
 * reported by verifyChain as that version's failure. */
export function readPublicLog(fileText: string): PublicLog {
  const rows = fileText.split("\n").filter((line) => line.trim() !== "");
  let header: Json;
  try {
    header = parseJson(rows[0] ?? "");
  } catch (error) {
    throw new LogFormatError(`line 1 is not JSON (${String(error)})`);
  }
  if (!(header instanceof Map) || field(header, "format") !== LOG_FORMAT) {
    throw new LogFormatError(`line 1 is not a ${LOG_FORMAT} header`);
  }
  const formatVersion = integer(field(header, "format_version"));
  if (formatVersion === null || !KNOWN_VERSIONS.has(formatVersion)) {
    throw new LogFormatError(`${LOG_FORMAT} format_version ${String(formatVersion)} is not one this page reads (1)`);
  }
  const head = field(header, "head");
  const headVersion = head instanceof Map ? integer(field(head, "version")) : null;
  const count = integer(field(header, "events"));
  if (headVersion === null || count === null || !(head instanceof Map)) {
    throw new LogFormatError("line 1: the header's head or events is missing");
  }
  const listed = field(header, "signatures");
  const signatures = (Array.isArray(listed) ? listed : []).map((entry) => {
    const signed = entry instanceof Map ? entry : new Map<string, Json>();
    return {
      statement: text(field(signed, "statement")),
      signature: text(field(signed, "signature")),
      key_id: text(field(signed, "key_id")),
    };
  });
  const lines = rows.slice(1).map((line, index) => {
    try {
      const event = parseJson(line);
      return event instanceof Map ? event : `line ${index + 2} is not a JSON object`;
    } catch (error) {
      return `line ${index + 2} is not JSON (${String(error)})`;
    }
  });
  return {
    gameId: text(field(header, "game_id")),
    ruleset: text(field(header, "ruleset")),
    finished: field(header, "finished") === true,
    headVersion,
    headHash: text(field(head, "hash")),
    events: count,
    signatures,
    lines,
  };
}

/** The canonical JSON text an event line's hash covers (chain.py's content_text), or a
 * reason the line is not a stored event (event_json.py's event_from_json refuses it). */
export function contentText(event: JsonObject): string {
  const metadata = field(event, "metadata");
  const payload = field(event, "payload");
  const version = integer(field(event, "version"));
  const schemaVersion = integer(field(event, "schema_version"));
  const type = field(event, "type");
  if (!(metadata instanceof Map) || !(payload instanceof Map) || version === null
      || schemaVersion === null || typeof type !== "string") {
    throw new LogFormatError("not a stored event (version, type, schema_version, payload or metadata missing)");
  }
  const seat = integer(field(metadata, "seat"));
  const commandId = field(metadata, "command_id");
  const recordedAt = field(metadata, "recorded_at");
  if (seat === null || typeof commandId !== "string" || typeof recordedAt !== "string") {
    throw new LogFormatError("not a stored event (its metadata lacks command_id, seat or recorded_at)");
  }
  const content: JsonObject = new Map<string, Json>([
    ["version", new JsonNumber(String(version))],
    ["type", type],
    ["schema_version", new JsonNumber(String(schemaVersion))],
    ["payload", payload],
    ["metadata", new Map<string, Json>([
      ["command_id", commandId],
      ["seat", new JsonNumber(String(seat))],
      ["recorded_at", recordedAt],
    ])],
  ]);
  return canonicalJson(content);
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 hex of `previous` (hex text) followed by `content`'s UTF-8 bytes (chain.py's _digest). */
export async function chainHash(previous: string, content: string): Promise<string> {
  const bytes = new TextEncoder().encode(previous + content);
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/** What verifyChain found: every version chained up to the header's head, or the first
 * version that does not (chain.py's verify_chain reports the same version). */
export interface ChainVerdict {
  ok: boolean;
  /** Versions that chained. */
  checked: number;
  /** Hash of the last version that chained (the head when ok). */
  head: string;
  /** First version that breaks the chain (0 when ok). */
  firstBad: number;
  reason: string;
}

/** Recomputes the whole chain of `log` (versions 1..N each hashing onto the one before,
 * N the header's event count and head). `progress(done)` is called every 200 versions. */
export async function verifyChain(
  log: PublicLog, progress: (done: number) => void = () => undefined,
): Promise<ChainVerdict> {
  let previous = GENESIS_HASH;
  const fail = (version: number, reason: string, checked: number): ChainVerdict => (
    { ok: false, checked, head: previous, firstBad: version, reason });
  for (const [index, line] of log.lines.entries()) {
    const version = index + 1;
    if (typeof line === "string") return fail(version, line, index);
    const found = integer(field(line, "version"));
    if (found !== version) return fail(version, `expected version ${version}, found ${String(found)}`, index);
    let content: string;
    try {
      content = contentText(line);
    } catch (error) {
      return fail(version, error instanceof Error ? error.message : String(error), index);
    }
    if (await chainHash(previous, content) !== text(field(line, "hash"))) {
      return fail(version, "its hash is not SHA-256 of the previous hash and its content", index);
    }
    previous = text(field(line, "hash"));
    if (version % 200 === 0) progress(version);
  }
  const count = log.lines.length;
  if (log.headVersion > count) return fail(count + 1, `events missing: the head is at ${log.headVersion}`, count);
  if (log.headVersion !== count || log.headHash !== previous) {
    return fail(count, "the last event is not the header's head", count);
  }
  if (log.events !== count) return fail(count, `the header says ${log.events} events, the file has ${count}`, count);
  return { ok: true, checked: count, head: previous, firstBad: 0, reason: "" };
}

function bytesOf(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** One signature's outcome: `ok`, or why not; `unsupported` when this browser's
 * WebCrypto has no Ed25519 (the signature is then not checked, and said so). */
export interface SignatureVerdict {
  keyId: string;
  ok: boolean;
  unsupported: boolean;
  detail: string;
}

/** Checks one signed head of `log` (head_signing.py verify_signed_head, and the header
 * promises public_log.py check_signatures asks): the key is one `keys` publishes and its
 * id is its SHA-256 prefix, the Ed25519 signature verifies over the statement's bytes, the
 * statement is a teoti-signed-head of this header's game, ruleset, head and finished, and
 * a retired key signed before its valid_until. */
export async function verifySignature(
  log: PublicLog, signed: LogSignature, keys: PublishedKey[],
): Promise<SignatureVerdict> {
  const verdict = (ok: boolean, detail: string, unsupported = false): SignatureVerdict => (
    { keyId: signed.key_id, ok, unsupported, detail });
  const key = keys.find((k) => k.key_id === signed.key_id && k.algorithm === "ed25519");
  if (!key) return verdict(false, `key ${signed.key_id} is not one this server publishes`);
  let raw: Uint8Array<ArrayBuffer>;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    raw = bytesOf(key.public_key);
    signature = bytesOf(signed.signature);
  } catch {
    return verdict(false, "the key or the signature is not base64");
  }
  if (hex(await crypto.subtle.digest("SHA-256", raw)).slice(0, 16) !== key.key_id) {
    return verdict(false, `key ${key.key_id} is not the SHA-256 prefix of its public key`);
  }
  let publicKey: CryptoKey;
  try {
    publicKey = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch {
    return verdict(false, "not checked: this browser's WebCrypto has no Ed25519", true);
  }
  const good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature,
    new TextEncoder().encode(signed.statement));
  if (!good) return verdict(false, `the signature does not verify with key ${key.key_id}`);
  let statement: Json;
  try {
    statement = parseJson(signed.statement);
  } catch {
    return verdict(false, "the signed statement is not JSON");
  }
  if (!(statement instanceof Map) || field(statement, "format") !== "teoti-signed-head"
      || integer(field(statement, "format_version")) !== 1) {
    return verdict(false, "the signed statement is not a teoti-signed-head v1");
  }
  const promised: [string, unknown, unknown][] = [
    ["game_id", text(field(statement, "game_id")), log.gameId],
    ["ruleset", text(field(statement, "ruleset")), log.ruleset],
    ["version", integer(field(statement, "version")), log.headVersion],
    ["head_hash", text(field(statement, "head_hash")), log.headHash],
    ["finished", field(statement, "finished") === true, log.finished],
    ["key_id", text(field(statement, "key_id")), signed.key_id],
  ];
  const broken = promised.find(([, said, header]) => said !== header);
  if (broken) return verdict(false, `the header's ${broken[0]} is not what was signed`);
  const signedAt = text(field(statement, "signed_at"));
  if (key.valid_until && Date.parse(signedAt) > Date.parse(key.valid_until)) {
    return verdict(false, `key ${key.key_id} was retired (${key.valid_until}) before it signed (${signedAt})`);
  }
  const whose = key.current ? "the current key" : "a retired key";
  return verdict(true, `${whose} ${key.key_id} signed version ${log.headVersion}, head ${log.headHash.slice(0, 16)}…, `
    + `finished=${String(log.finished)}, at ${signedAt}`);
}
