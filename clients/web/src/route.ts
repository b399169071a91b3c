// The player and tournament pages' routes (the URL's fragment: shareable, never a
// credential in it): #me, #table=<id>, #tournaments, #tournament=<id>. main.tsx routes
// #game= itself and the lobby when none of these match.

export type Page =
  | { kind: "me" }
  | { kind: "table"; id: string }
  | { kind: "tournaments" }
  | { kind: "tournament"; id: string };

/** The page the URL names, or null (the lobby, or a game). */
export function pageFromUrl(): Page | null {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has("me")) return { kind: "me" };
  if (params.has("tournaments")) return { kind: "tournaments" };
  const table = params.get("table");
  if (table) return { kind: "table", id: table };
  const tournament = params.get("tournament");
  if (tournament) return { kind: "tournament", id: tournament };
  return null;
}

/** Goes to `hash` as a new history entry (so the back button returns) and tells the
 * app, which follows popstate. */
export function go(hash: string): void {
  history.pushState(null, "", hash);
  window.dispatchEvent(new PopStateEvent("popstate"));
}
