// Each seat's player board drawn from the view (cocoa, wood, stone, gold, VP, workers
// with their power, technologies, discovery tiles and masks, starting tiles), Teotibot's
// action pyramid in a solo game, and the choice panel: the seat's moves the board does
// not place on a thing, as buttons in the game's own words.

import type { Move, TeoView } from "./model";
import { SEAT_COLOURS, boardName, discoveryWords } from "./model";

const TEOTIBOT_SEAT = 1;

const GOODS = ["cocoa", "wood", "stone", "gold"] as const;

/** Moves the board places on the thing they act on; every other move is a choice. */
export const PLACED = new Set(["move", "teleport", "place_pyramid_tile", "advance_temple", "royal_temple",
  "choose_technology", "build"]);

export function PlayerBoards({ view, names, you }: { view: TeoView; names: string[]; you: number | null }) {
  const order = view.turn_order.length === view.players.length ? view.turn_order : view.players.map((_, i) => i);
  return (
    <ul class="teo-players" aria-label="The player boards">
      {order.map((s) => {
        const p = view.players[s];
        if (!p) return null;
        // RULES.md §8: in a solo game seat 1 is Teotibot, whatever the seat is called.
        const seatName = names[s] || `seat ${s}`;
        const name = view.options.solo && s === TEOTIBOT_SEAT ? `Teotibot (${seatName})` : seatName;
        const turn = view.waiting_for?.seat === s && view.phase !== "ended";
        return (
          <li key={s} data-seat={String(s)} class={`teo-player${turn ? " teo-turn" : ""}${s === you ? " teo-me" : ""}`}
            style={{ borderLeftColor: SEAT_COLOURS[s] ?? "#555" }}>
            <div class="teo-player-head">
              <b>{name}{s === you ? " (you)" : ""}</b>
              <span class="teo-vp" title="victory points">{p.vp} VP</span>
              {turn && <span class="teo-tag">to play</span>}
            </div>
            <ul class="teo-goods">
              {GOODS.map((good) => (
                <li key={good} data-good={good} data-count={String(p[good])} title={good}>
                  <span class={`teo-chip g-${good}`} aria-hidden="true" /> {p[good]} <span class="teo-small">{good}</span>
                </li>
              ))}
            </ul>
            <p class="teo-line">
              <span class="teo-small">workers</span>{" "}
              {p.workers.map((w, i) => (
                <span key={i} class="teo-die teo-mini" style={{ background: SEAT_COLOURS[s] ?? "#555" }}
                  title={w.board ? `${boardName(view, w.board)}${w.locked ? " (worshipping)" : ""}` : "not in play yet"}>
                  {w.board ? w.power : "–"}
                </span>
              ))}
            </p>
            <p class="teo-line"><span class="teo-small">temples</span> {p.temples.join(" / ")}
              {" · "}<span class="teo-small">avenue</span> {p.avenue}{" · "}<span class="teo-small">pyramid</span> {p.pyramid}</p>
            {p.technologies.length > 0 && (
              <p class="teo-line"><span class="teo-small">technologies</span>{" "}
                {p.technologies.map((slot) => `#${view.printed.technologies[slot]?.number ?? slot}`).join(", ")}</p>
            )}
            {p.discoveries.length + p.masks.length > 0 && (
              <p class="teo-line"><span class="teo-small">discoveries</span>{" "}
                {[...p.discoveries, ...p.masks].map((d) => discoveryWords(view.printed.discoveries[String(d)])).join(", ")}</p>
            )}
            {p.starting_tiles.length > 0 && (
              <p class="teo-line"><span class="teo-small">starting tiles</span> {p.starting_tiles.join(", ")}</p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function Teotibot({ view }: { view: TeoView }) {
  if (!view.options.solo || !view.teotibot_tiles.length) return null;
  return (
    <section class="teo-bot" aria-label="Teotibot">
      <h4>Teotibot <small>its action pyramid (position 1 at the top)</small></h4>
      <ol class="teo-bot-tiles">
        {view.teotibot_tiles.map((tile, i) => (
          <li key={i}><span class="teo-step-num">{i + 1}</span> {tile.replace(/_/g, " ")}</li>
        ))}
      </ol>
      <p class="teo-small">set aside: {view.teotibot_set_aside.replace(/_/g, " ") || "—"}
        {view.teotibot_directions.length ? ` · direction: ${view.teotibot_directions[0]}` : ""}</p>
    </section>
  );
}

/** A choice's words: the server's, with what the view tells about the thing it names. */
function choiceWords(view: TeoView, seat: number | null, move: Move): string {
  const a = move.action;
  if (a["type"] === "claim_discovery" || a["type"] === "flip_discovery") {
    return `${move.words}: ${discoveryWords(view.printed.discoveries[String(a["tile"])])}`;
  }
  if (a["type"] === "power_up" && seat !== null) {
    const w = view.players[seat]?.workers[Number(a["worker"])];
    return w ? `${move.words} (on ${boardName(view, w.board)}, power ${w.power})` : move.words;
  }
  if (a["type"] === "place_decoration") {
    return `${move.words} [${view.printed.decoration_tiles[String(a["tile"])] ?? "?"}]`;
  }
  return move.words;
}

export function Choices({ view, seat, moves, submit }: {
  view: TeoView; seat: number | null; moves: Move[]; submit: (json: string) => void;
}) {
  const choices = moves.filter((m) => !PLACED.has(String(m.action["type"])));
  if (!choices.length) return null;
  return (
    <section id="teo-choices" class="teo-choices" aria-label="Your choices">
      <h4>{view.waiting_for?.decision ? `Choose ${view.waiting_for.decision}` : "Your choices"}</h4>
      <ul>
        {choices.map((m) => {
          const words = choiceWords(view, seat, m);
          return (
            <li key={m.json}>
              <button type="button" class="teo-act" data-action={m.json} title={m.words} aria-label={words}
                onClick={() => submit(m.json)}>{words}</button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
