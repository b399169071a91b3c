// Counted words as a person writes them: "1 card", "2 cards", never the developer's
// "card(s)". The generic client's one helper for it, used by every game's board
// (services/games/<game>/web); the Python twin is services/safe_text.py's `count`.

/**
 * `n` and the noun agreeing with it: `count(1, "card")` is "1 card", `count(2, "card")`
 * and `count(0, "card")` are "2 cards" and "0 cards". `many` names an irregular plural:
 * `count(3, "person", "people")` is "3 people".
 */
export function count(n: number, one: string, many?: string): string {
  return `${n} ${n === 1 ? one : (many ?? `${one}s`)}`;
}
