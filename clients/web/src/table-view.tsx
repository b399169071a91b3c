// The table: whose turn, the seats, the game drawn (its board, or the generic view),
// the seat's legal actions in the game's words, the events as sentences (raw JSON one
// click away), resign, and the send-by-hand box for client authors.

import { useEffect, useState } from "preact/hooks";
import type { Game, GameEvent, LegalAction, Refusal } from "./api";
import { boardFor, isQuietEvent } from "./boards";
import { GenericBoard } from "./generic";
import { TableSession } from "./table";

/** What is special about a seat: ["bot", "resigned" or "a bot plays it", "you"]. */
function seatTags(game: Game, index: number, you: number | null): string[] {
  const tags: string[] = [];
  if (game.seats[index]?.kind === "SEAT_KIND_BOT") tags.push("bot");
  if ((game.seats_resigned ?? []).includes(index)) tags.push("resigned");
  else if ((game.seats_played_by_bot ?? []).includes(index)) tags.push("a bot plays it");
  if (index === you) tags.push("you");
  return tags;
}

/** "1 bob (bot) (resigned) (you)": a seat's index and name with its state. */
export function seatLabel(game: Game, index: number, you: number | null): string {
  const seat = game.seats[index];
  const name = seat?.name || (seat?.open ? "open seat" : `seat ${index}`);
  return [`${index} ${name}`, ...seatTags(game, index, you).map((tag) => `(${tag})`)].join(" ");
}

const STREAM_WORDS = {
  following: "(following)", reconnecting: "(reconnecting)", over: "(the game is over)", stopped: "(stopped)",
} as const;

/** Most moves listed open under a drawn board: past it (a construction step offers about
 * a hundred placements) the list starts folded, as the board makes those moves. */
const LIST_OPEN_MAX = 12;

const RESIGN_QUESTION = "Resign this game? In a 2-player or solo game it ends and you lose; "
  + "at a bigger table you are out (ranked last) and a bot plays your moves.";

function parsed(text: string): unknown {
  try { return JSON.parse(text) as unknown; } catch { return text; }
}

/** The heading an action is listed under: its JSON `type` in words ("" for none). */
function groupOf(actionJson: string): string {
  const action = parsed(actionJson);
  const kind = action && typeof action === "object" ? (action as Record<string, unknown>)["type"] : undefined;
  if (typeof kind !== "string" || !kind) return "";
  const words = kind.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function Actions({ actions, seat, finished, submit }: {
  actions: LegalAction[]; seat: number | null; finished: boolean; submit: (a: string) => void;
}) {
  const groups = new Map<string, LegalAction[]>();
  for (const action of actions) {
    const group = groupOf(action.action_json);
    groups.set(group, [...(groups.get(group) ?? []), action]);
  }
  const many = groups.size > 1;
  return (
    <div id="legal-actions" class="actions">
      {!actions.length && (
        <p class="muted">{seat === null ? "(watching)" : finished ? "(the game is over)" : "(no move now)"}</p>
      )}
      {[...groups].map(([group, listed]) => (
        <section class="action-group" key={group}>
          {many && group && <h4>{group}</h4>}
          <ul>
            {listed.map((action) => (
              <li key={action.action_json}>
                <button type="button" class="action" data-action={action.action_json}
                  title={action.action_json} onClick={() => submit(action.action_json)}>
                  {action.description || action.action_json}
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** The seats as cards: name, what is special about the seat, score; the seats to act
 * marked (the list's text is seatLabel's, which tests and screen readers read). */
function Seats({ game, you }: { game: Game; you: number | null }) {
  return (
    <ul id="seats" class="seats" aria-label="Seats">
      {game.seats.map((s, i) => {
        const classes = [game.seats_to_act.includes(i) ? "to-act" : "", i === you ? "you" : ""];
        const label = seatLabel(game, i, you);
        const name = s.name || (s.open ? "open seat" : `seat ${i}`);
        return (
          <li key={i} class={classes.join(" ").trim() || undefined} aria-label={label}>
            <span class="seat-index">{i}</span>
            <span class="seat-name">{name}</span>
            <span class="seat-tags">{seatTags(game, i, you).join(" · ")}</span>
            <span class="seat-score" title="score">{game.scores[i] ?? ""}</span>
          </li>
        );
      })}
    </ul>
  );
}

function EventItem({ event, you, quiet }: { event: GameEvent; you: number | null; quiet: boolean }) {
  const seat = event.metadata?.seat ?? -1;
  // A game's bookkeeping event (registerQuietEvents) stays in the list, out of sight.
  return (
    <li data-version={String(event.version)} data-type={event.type} data-seat={String(seat)}
      class={you !== null && seat === you ? "mine" : undefined} hidden={quiet}>
      <span class="event-version">v{event.version}</span>{" "}
      <span class="event-text">{event.description || event.type}</span>
      <details class="raw">
        <summary aria-label={`event ${event.version} as JSON`}>JSON</summary>
        <pre>{JSON.stringify({ ...event, payload_json: parsed(event.payload_json) }, null, 1)}</pre>
      </details>
    </li>
  );
}

/** The last refusal, with its rule (kept in the page, hidden, when there is none). */
export function Refused({ refusal }: { refusal: Refusal | null }) {
  return (
    <div id="refusal" role="alert" hidden={!refusal}>
      {refusal && <span class="reason">{refusal.reason}</span>}
      {refusal && ` (${refusal.code}): ${refusal.message}`}
    </div>
  );
}

export function TableView({ gameId, seat, token, onLeave }: {
  gameId: string; seat: number | null; token: string; onLeave: () => void;
}) {
  const [, setDrawn] = useState(0);
  // The session is mutable; each change it reports draws the table again.
  const redraw = () => setDrawn((n) => n + 1);
  const [session, setSession] = useState<TableSession | null>(null);
  const [byHand, setByHand] = useState("");
  // The person's own choice to open or fold the list under a board (null: not made).
  const [listOpen, setListOpen] = useState<boolean | null>(null);
  useEffect(() => {
    const started = new TableSession(gameId, seat, token, redraw);
    setSession(started);
    started.start();
    return () => started.stop();
  }, [gameId, seat, token]);
  if (!session) return null;
  const { game, refusal, play } = session;
  const submit = (actionJson: string) => void session.submit(actionJson);
  const mine = game !== null && seat !== null && game.seats_to_act.includes(seat);
  const banner = !game ? "" : game.finished ? "The game is over."
    : mine ? "Your turn: choose a move." : "Waiting for the other seats…";
  const stillIn = game !== null && seat !== null && !(game.seats_out ?? []).includes(seat)
    && !(game.seats_resigned ?? []).includes(seat);
  const view = game ? parsed(game.state_json) : null;
  const Board = game ? boardFor(game.ruleset) : undefined;
  const transport = play.transport;
  const resign = () => { if (window.confirm(RESIGN_QUESTION)) void session.resign(); };
  return (
    <section id="table" class="table">
      <div class="table-head">
        <h2>Game <code id="game-id">{game?.game_id ?? gameId}</code></h2>
        <p class="facts">
          <span id="game-ruleset">{game?.ruleset}</span>
          <span>you are seat <b id="my-seat">{seat === null ? "none (watching)" : String(seat)}</b></span>
          <span>version <b id="game-version">{game ? String(game.version) : ""}</b></span>
          <span>to act: <b id="to-act">{game ? (game.seats_to_act.map((s) => seatLabel(game, s, seat)).join(", ") || "nobody") : ""}</b></span>
          <span>scores: <span id="scores">{(game?.scores ?? []).join(" / ")}</span></span>
        </p>
        <p id="finished" hidden={!game?.finished}>
          <b>finished</b> — ranking <span id="ranking">
            {(game?.result?.ranking ?? []).map((s) => game ? seatLabel(game, s, seat) : "").join(" > ")}
          </span>{" "}
          <a id="replay-link" class="button" href={`#replay=${encodeURIComponent(gameId)}`}>Replay</a>
        </p>
      </div>
      <Refused refusal={refusal} />
      <div class="table-grid">
        <div class="play-area">
          <p id="turn-banner" class={mine ? "banner yours" : "banner"}>{banner}</p>
          {game && <Seats game={game} you={seat} />}
          {/* A game's own board comes first (its moves are made on it) and the list of
              moves below it, for what the board does not place; the generic view is a
              summary, so the list comes first there. */}
          {game && Board && <Board game={game} view={view} seat={seat} actions={session.actions} submit={submit} />}
          {seat !== null && Board && (
            <details id="move-list" class="move-list"
              open={listOpen ?? session.actions.length <= LIST_OPEN_MAX}
              onToggle={(e) => setListOpen((e.currentTarget as HTMLDetailsElement).open)}>
              <summary>Your moves as a list ({session.actions.length})</summary>
              <Actions actions={session.actions} seat={seat} finished={Boolean(game?.finished)} submit={submit} />
            </details>
          )}
          {seat !== null && !Board && <h3>Your moves</h3>}
          {seat !== null && !Board && <Actions actions={session.actions} seat={seat} finished={Boolean(game?.finished)} submit={submit} />}
          {game && !Board && <GenericBoard game={game} view={view} seat={seat} actions={session.actions} submit={submit} />}
          <details id="by-hand" class="by-hand" hidden={seat === null}>
            <summary>Send an action by hand</summary>
            <label for="custom-action" class="sr-only">Action as JSON</label>
            <textarea id="custom-action" rows={3} placeholder='{"type": "..."}' value={byHand}
              onInput={(e) => setByHand((e.target as HTMLTextAreaElement).value)} />
            <button id="submit-custom" type="button" onClick={() => submit(byHand)}>Submit</button>
          </details>
          <p class="muted transport" hidden={seat === null}>Your moves go over <span id="play-status"
            data-socket-moves={String(transport.socketMoves)} data-http-moves={String(transport.httpMoves)}
            data-open={transport.open ? "yes" : "no"}>
            {`(${transport.open ? "WebSocket" : "HTTP"}${transport.note ? `: ${transport.note}` : ""})`}
          </span></p>
          <p class="table-buttons">
            <button id="resign" type="button" hidden={!game || game.finished || !stillIn} onClick={resign}
              title="ResignSeat: a 2-player or solo game ends and you lose; at a bigger table you are out and a bot plays your moves">
              Resign
            </button>
            <button id="leave" type="button" onClick={onLeave}>Back to the games</button>
          </p>
          <details class="view-json">
            <summary>{seat === null ? "The public view of the game (JSON, as the ruleset shows it to everyone)"
              : "Your view of the game (JSON, as the ruleset shows it to your seat)"}</summary>
            <pre id="view">{game ? JSON.stringify(view, null, 1) : ""}</pre>
          </details>
        </div>
        <aside class="log">
          <h3>Events <span id="stream-status" class="muted">{STREAM_WORDS[session.stream]}</span></h3>
          <ol id="events" reversed>
            {session.events.map((event) => <EventItem key={event.version} event={event} you={seat}
              quiet={Boolean(game && isQuietEvent(game.ruleset, event.type))} />)}
          </ol>
        </aside>
      </div>
    </section>
  );
}
