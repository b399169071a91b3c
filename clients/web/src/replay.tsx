// The replay page (#replay=<game id>&v=<version>): a game stepped version by version on
// its own board (boardFor(ruleset), given GetGameAt's public view at that version; the
// generic board when it has none), the event at that version as a sentence with its raw
// JSON one click away, and the log verified in the browser (verify-panel.tsx). A running
// game grows as its events arrive (WatchGame, as a spectator). Stepping replaces the URL's
// version (a link opens the same step) without adding history entries, so the back
// button leaves the replay.

import { useEffect, useRef, useState } from "preact/hooks";
import { type Game, type GameEvent, Refusal, call, present } from "./api";
import { boardFor } from "./boards";
import { GenericBoard } from "./generic";
import { listAllEvents } from "./public-log";
import { Refused, seatLabel } from "./table-view";
import { VerifyPanel } from "./verify-panel";
import { type StreamState, watchGame } from "./watch";

const FIRST_VIEW = 2; // GetGameAt's first version: version 1 creates the game, 2 sets it up.

function parsed(text: string): unknown {
  try { return JSON.parse(text) as unknown; } catch { return text; }
}

/** The URL of `gameId`'s replay at `version` (no token: a replay is public). */
export function replayHash(gameId: string, version?: number): string {
  return `#replay=${encodeURIComponent(gameId)}${version ? `&v=${version}` : ""}`;
}

function EventAt({ event, game }: { event: GameEvent | undefined; game: Game | null }) {
  if (!event) return <p class="muted">(no event)</p>;
  const seat = event.metadata?.seat ?? -1;
  const actor = game && seat >= 0 ? seatLabel(game, seat, null) : "the game";
  return (
    <div id="replay-event" class="replay-event" data-version={String(event.version)} data-type={event.type}>
      <p class="event-sentence"><span class="event-version">v{event.version}</span>{" "}
        <span id="replay-sentence">{event.description || event.type}</span></p>
      <p class="muted event-actor">{event.type} · by {actor}</p>
      <details class="raw">
        <summary>Raw event JSON (as ListEvents sends it)</summary>
        <pre id="replay-event-json">{JSON.stringify({ ...event, payload_json: parsed(event.payload_json) }, null, 1)}</pre>
      </details>
    </div>
  );
}

function Stepper({ version, last, go }: { version: number; last: number; go: (v: number) => void }) {
  return (
    <div class="stepper" role="group" aria-label="Step through the versions"
      aria-keyshortcuts="ArrowLeft ArrowRight Home End">
      <button id="step-first" type="button" aria-label="First version" disabled={version <= 1} onClick={() => go(1)}>|◀</button>
      <button id="step-prev" type="button" aria-label="Previous version" disabled={version <= 1} onClick={() => go(version - 1)}>◀</button>
      <input id="step-slider" type="range" min="1" max={String(Math.max(1, last))} value={String(version)}
        aria-label="Version" aria-valuetext={`version ${version} of ${last}`}
        onInput={(e) => go(Number((e.target as HTMLInputElement).value))} />
      <button id="step-next" type="button" aria-label="Next version" disabled={version >= last} onClick={() => go(version + 1)}>▶</button>
      <button id="step-last" type="button" aria-label="Last version" disabled={version >= last} onClick={() => go(last)}>▶|</button>
      <span class="step-count" aria-live="polite">version <b id="replay-version">{version}</b> of <b id="replay-last">{last}</b></span>
      <span class="muted step-keys">keys: ← → step, Home / End jump</span>
    </div>
  );
}

/** Arrow keys step, Home and End jump, unless a form field has the keys. The listener
 * is added once and reads `step` through a ref: a listener re-added after each render
 * would, for a key pressed between a render and its effects, step from a stale version. */
function useStepKeys(step: (key: string) => void): void {
  const latest = useRef(step);
  latest.current = step;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.altKey || event.ctrlKey || event.metaKey || target?.closest("input, textarea, select")) return;
      if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) {
        event.preventDefault();
        latest.current(event.key);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** The replay of `gameId`, opened at `initial` (the last version when null). */
export function ReplayView({ gameId, initial, onLeave }: {
  gameId: string; initial: number | null; onLeave: () => void;
}) {
  const [head, setHead] = useState<Game | null>(null);
  const [events, setEvents] = useState<GameEvent[]>([]);
  const [version, setVersion] = useState(0);
  const [shown, setShown] = useState<Game | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [stream, setStream] = useState<StreamState | "">("");
  const views = useRef(new Map<number, Game>());
  const wanted = useRef(0);
  const last = Math.max(events.length, Number(head?.version ?? 0));

  const refused = (error: unknown) => {
    if (!(error instanceof Refusal)) throw error;
    setRefusal(error);
  };

  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        // The head's board first (GetGame is the view at the head), then the events.
        const game = await call("GetGame", { game_id: gameId });
        views.current.set(Number(game.version), game);
        setHead(game);
        setVersion(Math.min(Math.max(1, initial ?? Number(game.version)), Number(game.version)));
        const listed = await listAllEvents(gameId);
        setEvents(listed);
        if (game.finished) return;
        let after = listed.length;
        await watchGame(gameId, "", stop.signal, {
          after: () => after,
          event: (event) => {
            if (Number(event.version) !== after + 1) return;
            after = Number(event.version);
            setEvents((known) => [...known, event]);
          },
          state: (state) => {
            setStream(state);
            if (state === "over") void call("GetGame", { game_id: gameId }).then(setHead, refused);
          },
          refused: setRefusal,
        });
      } catch (error) {
        refused(error);
      }
    })();
    return () => stop.abort();
  }, [gameId]);

  useEffect(() => {
    if (!version) return;
    history.replaceState(history.state, "", replayHash(gameId, version));
    wanted.current = version;
    if (version < FIRST_VIEW) { setShown(null); return; }
    const known = views.current.get(version);
    if (known) { setShown(known); return; }
    call("GetGameAt", { game_id: gameId, version }).then((reply) => {
      const game = present(reply.game, "game");
      views.current.set(version, game);
      if (wanted.current === version) setShown(game);
    }, refused);
  }, [gameId, version]);

  const go = (next: number) => setVersion(Math.min(Math.max(1, next), Math.max(1, last)));
  useStepKeys((key) => {
    if (key === "ArrowLeft") go(version - 1);
    else if (key === "ArrowRight") go(version + 1);
    else if (key === "Home") go(1);
    else go(last);
  });

  const Board = head ? boardFor(head.ruleset) : undefined;
  const view = shown ? parsed(shown.state_json) : null;
  const board = shown && (Board
    ? <Board game={shown} view={view} seat={null} actions={[]} submit={() => undefined} />
    : <GenericBoard game={shown} view={view} seat={null} actions={[]} submit={() => undefined} />);
  const drawnAt = shown ? Number(shown.version) : 0;
  return (
    <section id="replay" class="replay" aria-labelledby="replay-title">
      <div class="table-head">
        <h2 id="replay-title">Replay of <code id="game-id">{gameId}</code></h2>
        <p class="facts">
          <span id="game-ruleset">{head?.ruleset}</span>
          <span>{head?.finished ? "finished" : `being played${stream ? ` (${stream})` : ""}`}</span>
          {shown && <span>to act: <b id="replay-to-act">{shown.seats_to_act.map((s) => seatLabel(shown, s, null)).join(", ") || "nobody"}</b></span>}
          {shown && <span>scores: <b id="replay-scores">{shown.scores.join(" / ")}</b></span>}
        </p>
        <p class="table-buttons">
          <a id="replay-watch" class="button" href={`#game=${encodeURIComponent(gameId)}`}>Watch the table</a>
          <button id="leave" type="button" onClick={onLeave}>Back to the games</button>
        </p>
      </div>
      <Refused refusal={refusal} />
      {last > 0 && <Stepper version={version} last={last} go={go} />}
      <EventAt event={events[version - 1]} game={shown ?? head} />
      <div id="replay-board" class="replay-board" data-version={String(drawnAt)} aria-busy={drawnAt !== version && version >= FIRST_VIEW}>
        {version > 0 && version < FIRST_VIEW
          ? <p class="muted">Version 1 creates the game; its board is drawn from version 2, its setup.</p>
          : board}
      </div>
      <VerifyPanel gameId={gameId} />
    </section>
  );
}
