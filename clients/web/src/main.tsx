// The reference web client of the teoti web face (docs/web.md): the lobby and one table
// at a time, routed by the URL's fragment (#game=<id>&seat=<n>: shareable, the seat's
// token never in it; it stays in this browser's localStorage), so the back button
// leaves a table and a link opens it again. #replay=<id>&v=<version> opens a game's
// replay (replay.tsx).

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "virtual:game-boards";
import { Lobby, type Seated } from "./lobby";
import { PlayerPages } from "./pages";
import { ReplayView } from "./replay";
import { type Page, pageFromUrl } from "./route";
import { TableView } from "./table-view";

const saved = (gameId: string): { seat: number; token: string } | null => {
  try {
    return JSON.parse(localStorage.getItem(`teoti:${gameId}`) ?? "null") as { seat: number; token: string } | null;
  } catch {
    return null;
  }
};

/** The table the URL names (a seat only if this browser holds its token), or null. */
function fromUrl(): Seated | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("game");
  if (!gameId) return null;
  const mine = saved(gameId);
  if (mine && String(mine.seat) === params.get("seat")) return { gameId, seat: mine.seat, token: mine.token };
  return { gameId, seat: null, token: "" };
}

/** The replay the URL names (#replay=<id>&v=<version>), or null. */
function replayFromUrl(): { gameId: string; version: number | null } | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("replay");
  return gameId ? { gameId, version: Number(params.get("v")) || null } : null;
}

function App() {
  const [seated, setSeated] = useState<Seated | null>(fromUrl);
  const [replay, setReplay] = useState(replayFromUrl);
  const [page, setPage] = useState<Page | null>(pageFromUrl);
  const [status, setStatus] = useState(seated || replay || page ? "connected" : "connecting…");
  const [renderedHash] = useState(() => location.hash);
  useEffect(() => {
    const follow = () => { setSeated(fromUrl()); setReplay(replayFromUrl()); setPage(pageFromUrl()); };
    window.addEventListener("popstate", follow);
    window.addEventListener("hashchange", follow); // a link to #me, #table=..., #replay=...
    // Effects run after the first paint: a link followed before then fired no listener.
    if (location.hash !== renderedHash) follow();
    return () => { window.removeEventListener("popstate", follow); window.removeEventListener("hashchange", follow); };
  }, []);
  const enter = (next: Seated) => {
    if (next.token) localStorage.setItem(`teoti:${next.gameId}`, JSON.stringify({ seat: next.seat, token: next.token }));
    history.pushState(null, "", `#game=${next.gameId}${next.seat === null ? "" : `&seat=${next.seat}`}`);
    setSeated(next);
  };
  const leave = () => {
    history.pushState(null, "", "#");
    setSeated(null);
    setReplay(null);
    setPage(null);
  };
  return (
    <>
      <header class="top">
        <h1>teoti</h1>
        <span id="server-status" class="muted">{status}</span>
        <nav aria-label="Pages"><a href="#">Games</a><a href="#me">You</a><a href="#tournaments">Tournaments</a></nav>
      </header>
      <main>
        {replay
          ? <ReplayView key={replay.gameId} gameId={replay.gameId} initial={replay.version} onLeave={leave} />
          : seated
          ? <TableView key={`${seated.gameId}:${String(seated.seat)}`} gameId={seated.gameId}
              seat={seated.seat} token={seated.token} onLeave={leave} />
          : page ? <PlayerPages page={page} enter={enter} />
          : <Lobby enter={enter} setStatus={setStatus} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
