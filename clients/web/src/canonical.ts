// The server's canonical JSON, byte for byte, in the browser: what an event's hash covers
// (services/engine/domain/records.py canonical_json: Python's json.dumps with sorted keys,
// separators "," and ":", ensure_ascii=False). JSON.parse cannot be used to read what is
// hashed: it turns 1.0 into 1 and loses integers past 2^53, so a number would be written
// back differently from the server. This parser keeps each number's text, and the writer
// prints it as Python does (an integer's digits, a float's repr).

/** A JSON number as written in the text it was read from. */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** True when Python's json reads it as an int (no fraction, no exponent). */
  get isInteger(): boolean {
    return /^-?\d+$/.test(this.text);
  }

  /** Its value as a JavaScript number (rounded past 2^53). */
  get value(): number {
    return Number(this.text);
  }
}

/** A parsed JSON value; objects are Maps (a repeated key keeps its last value, as Python's json). */
export type Json = null | boolean | string | JsonNumber | Json[] | JsonObject;
export type JsonObject = Map<string, Json>;

/** Malformed JSON text; `offset` is where reading stopped (UTF-16 units). */
export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at character ${offset}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
const SPACE = /[ \t\n\r]*/y;
// Python's json reads these too (allow_nan), and canonical_json writes them back so.
const NAMED: Record<string, Json> = {
  true: true, false: false, null: null,
  NaN: new JsonNumber("NaN"), Infinity: new JsonNumber("Infinity"), "-Infinity": new JsonNumber("-Infinity"),
};

/** Reads `text` (one JSON value, whitespace around it allowed) keeping numbers' text.
 * Throws JsonSyntaxError. */
export function parseJson(text: string): Json {
  let at = 0;
  const skip = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const match = (pattern: RegExp): string | null => {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (!found) return null;
    at = pattern.lastIndex;
    return found[0];
  };
  const value = (depth: number): Json => {
    if (depth > 512) throw new JsonSyntaxError("nested too deep", at);
    skip();
    const head = text[at];
    if (head === "{") {
      at += 1;
      const object: JsonObject = new Map();
      skip();
      if (text[at] === "}") { at += 1; return object; }
      for (;;) {
        skip();
        const key = match(STRING);
        if (key === null) throw new JsonSyntaxError("expected a key", at);
        skip();
        if (text[at] !== ":") throw new JsonSyntaxError("expected ':'", at);
        at += 1;
        object.set(JSON.parse(key) as string, value(depth + 1));
        skip();
        if (text[at] === ",") { at += 1; continue; }
        if (text[at] === "}") { at += 1; return object; }
        throw new JsonSyntaxError("expected ',' or '}'", at);
      }
    }
    if (head === "[") {
      at += 1;
      const array: Json[] = [];
      skip();
      if (text[at] === "]") { at += 1; return array; }
      for (;;) {
        array.push(value(depth + 1));
        skip();
        if (text[at] === ",") { at += 1; continue; }
        if (text[at] === "]") { at += 1; return array; }
        throw new JsonSyntaxError("expected ',' or ']'", at);
      }
    }
    if (head === '"') {
      const literal = match(STRING);
      if (literal === null) throw new JsonSyntaxError("bad string", at);
      return JSON.parse(literal) as string;
    }
    for (const [word, named] of Object.entries(NAMED)) {
      if (text.startsWith(word, at)) { at += word.length; return named; }
    }
    const number = match(NUMBER);
    if (number === null) throw new JsonSyntaxError("unexpected character", at);
    return new JsonNumber(number);
  };
  const parsed = value(0);
  skip();
  if (at !== text.length) throw new JsonSyntaxError("text after the value", at);
  return parsed;
}

/** Python's repr of a float (what json.dumps writes): the shortest digits that read back
 * to the same double, fixed notation for decimal exponents -4..15 with ".0" when whole,
 * else "d.ddde+XX" (at least two exponent digits). */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa = "", exponent = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const point = Number(exponent) + 1; // the value is 0.<digits> × 10^point
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const power = point - 1;
  return `${sign}${shown}e${power < 0 ? "-" : "+"}${String(Math.abs(power)).padStart(2, "0")}`;
}

function numberText(number: JsonNumber): string {
  if (number.isInteger) return number.text === "-0" ? "0" : number.text.replace(/^(-?)0+(?=\d)/, "$1");
  if (/^-?Infinity$|^NaN$/.test(number.text)) return number.text;
  return pythonFloat(number.value);
}

/** Orders keys as Python sorts str: by code point (JavaScript's < compares UTF-16 units,
 * which differs for characters beyond U+FFFF). */
function byCodePoint(a: string, b: string): number {
  const left = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const right = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const step = (left[i] ?? 0) - (right[i] ?? 0);
    if (step) return step;
  }
  return left.length - right.length;
}

/** `value` as the server's canonical_json writes it (sorted keys, no spaces, non-ASCII
 * kept as is; strings escaped as Python's encoder does, which JSON.stringify matches). */
export function canonicalJson(value: Json): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof JsonNumber) return numberText(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = [...value.keys()].sort(byCodePoint);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value.get(key) ?? null)}`).join(",")}}`;
}

/** `value` as plain JavaScript (objects, numbers): for showing, not for hashing. */
export function plain(value: Json): unknown {
  if (value instanceof JsonNumber) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  return value;
}
