// Archaeology's board (issue 33): the expedition drawn from the seat's view (the game's
// `view`, services/games/archaeology/rules/view.py; never the internal state) with the
// seat's legal actions placed on the things they act on: a market card takes it, a hand
// card offers, sells or loses it, a room explores or peeks into it, a seat is robbed. A
// trade in progress is always in view with what is offered and taken and their values,
// and "cancel the trade" beside "make the trade". Actions the board does not place stay
// in the page's list of moves (table-view.tsx), described in the game's words.

import type { BoardProps } from "../../../../clients/web/src/boards";
import { registerBoard } from "../../../../clients/web/src/boards";
import type { LegalAction } from "../../../../clients/web/src/api";
import { count } from "../../../../clients/web/src/words";
import { useState } from "preact/hooks";
import { ARCH_CSS } from "./style";

type Cards = Record<string, number>;

interface Treasure { kind: string; trade: number; sale: number[] }

interface SeatView {
  hand_size: number;
  tent_uses: number;
  sets: { kind: string; count: number }[];
  points: number;
  cards_sold: number;
  hand?: Cards;
  known_rooms?: Record<string, Cards>;
}

interface Pending {
  kind: "thief" | "sandstorm" | "trade" | "mine" | "tomb" | "peek";
  drawer?: number;
  losses?: number[];
  give?: Cards;
  take?: Cards;
  give_value?: number;
  take_value?: number;
  room?: number;
  revealed?: Cards;
}

interface ArchView {
  ruin: string;
  maps_to_explore: number;
  turn: { seat: number; must_dig: boolean; acted: boolean; explored: boolean; sold: string[] };
  pending: Pending | null;
  treasures?: Treasure[];
  market: Cards;
  dig_site_size: number;
  dig_site_thieves: number;
  dig_site_sandstorms: number;
  rooms: { size: number; cards?: Cards }[];
  reserve_size: number;
  discard: { treasures: Cards; thieves: number; sandstorms: number };
  seats: SeatView[];
  compulsory_selling: boolean;
  ended: boolean;
}

/** One legal action, parsed, with the server's words for it. */
interface Move { json: string; words: string; action: Record<string, unknown> }

const ROMAN = ["I", "II", "III", "IV", "V"];

function words(kind: string): string {
  return kind.replace(/_/g, " ");
}

/** Each treasure kind id's words for one card and for several, in RULES.md's terms; the
 * same table as the log's (services/games/archaeology/rules/describe.py, KIND_NAMES; a
 * test compares them). */
const KIND_NAMES: Record<string, [string, string]> = {
  pottery_shards: ["pottery shard", "pottery shards"],
  parchment_scrolls: ["parchment scroll", "parchment scrolls"],
  coins: ["coin", "coins"],
  broken_tablets: ["broken tablet", "broken tablets"],
  talismans: ["talisman", "talismans"],
  broken_cups: ["broken cup", "broken cups"],
  maps: ["map", "maps"],
  broken_pendants: ["broken pendant", "broken pendants"],
  pharaoh_masks: ["pharaoh mask", "pharaoh masks"],
};

/** A kind's name agreeing with `n`: "coin" for 1, "coins" otherwise. */
function kindName(kind: string, n: number): string {
  const [one, many] = KIND_NAMES[kind] ?? [words(kind), words(kind)];
  return n === 1 ? one : many;
}

/** `n` cards of `kind`: "1 coin", "2 coins", "1 pottery shard". */
function kindCount(n: number, kind: string): string {
  const [one, many] = KIND_NAMES[kind] ?? [words(kind), words(kind)];
  return count(n, one, many);
}

function total(cards: Cards | undefined): number {
  return Object.values(cards ?? {}).reduce((a, b) => a + b, 0);
}

function isView(view: unknown): view is ArchView {
  return Boolean(view) && typeof view === "object" && "market" in (view as object)
    && Array.isArray((view as ArchView).seats);
}

function parse(actions: LegalAction[]): Move[] {
  const moves: Move[] = [];
  for (const a of actions) {
    try {
      const action = JSON.parse(a.action_json) as Record<string, unknown>;
      if (action && typeof action === "object") {
        moves.push({ json: a.action_json, words: a.description || a.action_json, action });
      }
    } catch { /* not JSON: left to the page's list of moves */ }
  }
  return moves;
}

/** The legal moves of `type` whose `key` is `value` (all of that type without a key). */
function find(moves: Move[], type: string, key?: string, value?: unknown): Move[] {
  return moves.filter((m) => m.action["type"] === type && (key === undefined || m.action[key] === value));
}

/** A button playing a legal move: labelled with `label` on the board; its accessible
 * name starts with that label and adds the server's description ("Offer: offer coins at
 * the market"); `data-action` is the move's JSON (client authors, tests). */
function Act({ move, label, submit, primary }: {
  move: Move | undefined; label: string; submit: (json: string) => void; primary?: boolean;
}) {
  if (!move) return null;
  return (
    <button type="button" class={primary ? "arch-act arch-primary" : "arch-act"} data-action={move.json}
      title={move.words} aria-label={`${label}: ${move.words}`} onClick={() => submit(move.json)}>
      {label}
    </button>
  );
}

function CardsLine({ cards, id }: { cards: Cards | undefined; id?: string }) {
  const entries = Object.entries(cards ?? {}).filter(([, n]) => n > 0);
  if (!entries.length) return <span class="arch-none" id={id}>nothing</span>;
  return (
    <ul class="arch-cardline" id={id}>
      {entries.map(([kind, n]) => (
        <li key={kind} data-kind={kind} data-count={String(n)}>
          <span class={`arch-chip k-${kind}`} aria-hidden="true" />{kindCount(n, kind)}
        </li>
      ))}
    </ul>
  );
}

function seatName(props: BoardProps, index: number): string {
  const seat = props.game.seats[index];
  const name = seat?.name || `seat ${index}`;
  return index === props.seat ? `${name} (you)` : name;
}

function Trade({ pending, view, props, moves, mine }: {
  pending: Pending; view: ArchView; props: BoardProps; moves: Move[]; mine: boolean;
}) {
  const giveValue = pending.give_value ?? 0;
  const takeValue = pending.take_value ?? 0;
  const left = giveValue - takeValue;
  return (
    <section id="arch-trade" class="arch-trade" aria-label="The trade in progress">
      <h4>{mine ? "Your trade" : `${seatName(props, view.turn.seat)}'s trade`} at the market</h4>
      <div class="arch-trade-sides">
        <div>
          <b>Offered</b> <span class="arch-value" id="arch-trade-give-value">value {giveValue}</span>
          <CardsLine cards={pending.give} id="arch-trade-give" />
          <small>{count(total(pending.give), "card")} leave the hand</small>
        </div>
        <div>
          <b>Taken</b> <span class="arch-value" id="arch-trade-take-value">value {takeValue}</span>
          <CardsLine cards={pending.take} id="arch-trade-take" />
          <small>{count(total(pending.take), "card")} join the hand; {left} value left to take</small>
        </div>
      </div>
      {left > 0 && total(pending.take) > 0 && (
        <p class="arch-warn" id="arch-trade-warning">
          {mine ? "You give" : "This trade gives"} {left} value more than {mine ? "you take" : "it takes"}.
        </p>
      )}
      {mine && (
        <p class="arch-buttons">
          <Act move={find(moves, "confirm_trade")[0]} submit={props.submit} primary
            label={`Make the trade: ${total(pending.give)} for ${total(pending.take)}`} />
          <Act move={find(moves, "cancel_trade")[0]} submit={props.submit} label="Cancel the trade" />
        </p>
      )}
    </section>
  );
}

function Market({ view, moves, props, values }: {
  view: ArchView; moves: Move[]; props: BoardProps; values: Map<string, Treasure>;
}) {
  const taking = view.pending?.kind === "trade" ? view.pending.take ?? {} : {};
  const kinds = Object.entries(view.market).filter(([, n]) => n > 0);
  return (
    <section class="arch-market" aria-label="The market">
      <h4>Market <small>{count(total(view.market), "card")}</small></h4>
      {!kinds.length && <p class="arch-none">empty</p>}
      <ul class="arch-cards">
        {kinds.map(([kind, n]) => {
          const take = find(moves, "choose", "kind", kind)[0];
          return (
            <li key={kind} class={`arch-card k-${kind}${take ? " arch-legal" : ""}`} data-kind={kind} data-count={String(n)}>
              <span class="arch-card-name">{kindName(kind, n)}</span>
              <span class="arch-card-count">× {n}</span>
              <span class="arch-card-value" title="trade value of one card">value {values.get(kind)?.trade ?? "?"}</span>
              {(taking[kind] ?? 0) > 0 && <span class="arch-tag">{taking[kind]} taken</span>}
              <Act move={take} submit={props.submit} label="Take" />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Hand({ view, seat, moves, props, values }: {
  view: ArchView; seat: SeatView; moves: Move[]; props: BoardProps; values: Map<string, Treasure>;
}) {
  const hand = seat.hand ?? {};
  const offered = view.pending?.kind === "trade" ? view.pending.give ?? {} : {};
  const kinds = Object.entries(hand).filter(([, n]) => n > 0);
  return (
    <section id="arch-hand" class="arch-hand" aria-label="Your hand">
      <h4>Your hand <small>{count(total(hand), "card")}</small></h4>
      {!kinds.length && <p class="arch-none">no cards</p>}
      <ul class="arch-cards">
        {kinds.map(([kind, n]) => {
          const treasure = values.get(kind);
          const sales = find(moves, "sell", "kind", kind);
          const legal = sales.length > 0 || moves.some((m) => m.action["kind"] === kind
            && (m.action["type"] === "offer" || m.action["type"] === "lose"));
          return (
            <li key={kind} class={`arch-card k-${kind}${legal ? " arch-legal" : ""}`} data-kind={kind} data-count={String(n)}>
              <span class="arch-card-name">{kindName(kind, n)}</span>
              <span class="arch-card-count">× {n}</span>
              <span class="arch-card-value">value {treasure?.trade ?? "?"}</span>
              {treasure && <span class="arch-sale" title="museum points for a set of 1, 2, … cards">
                sets: {treasure.sale.join(" / ")}</span>}
              {(offered[kind] ?? 0) > 0 && <span class="arch-tag">{offered[kind]} offered</span>}
              <span class="arch-card-acts">
                <Act move={find(moves, "offer", "kind", kind)[0]} submit={props.submit} label="Offer" />
                <Act move={find(moves, "lose", "kind", kind)[0]} submit={props.submit} label="Lose this" />
                {sales.map((m) => (
                  <Act key={m.json} move={m} submit={props.submit}
                    label={`Sell ${String(m.action["count"])} (${treasure?.sale[Number(m.action["count"]) - 1] ?? "?"} pts)`} />
                ))}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The sphinx's exploration (RULES.md E10): name two different kinds, then explore;
 * the kinds offered are those the server's legal moves name. */
function SphinxNaming({ room, moves, submit }: { room: number; moves: Move[]; submit: (json: string) => void }) {
  const named = (m: Move) => (Array.isArray(m.action["named"]) ? (m.action["named"] as string[]) : []);
  const kinds = [...new Set(moves.flatMap(named))];
  const [first, setFirst] = useState(kinds[0] ?? "");
  const [second, setSecond] = useState(kinds[1] ?? "");
  const move = moves.find((m) => {
    const pair = named(m);
    return pair.length === 2 && pair.includes(first) && pair.includes(second) && first !== second;
  });
  const choice = (label: string, value: string, set: (v: string) => void) => (
    <label class="arch-name">{label}
      <select value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        {kinds.map((k) => <option key={k} value={k}>{words(k)}</option>)}
      </select>
    </label>
  );
  return (
    <span class="arch-sphinx" data-room={String(room)}>
      {choice("name a kind", first, setFirst)}
      {choice("and another", second, setSecond)}
      {move ? <Act move={move} submit={submit} label="Explore" />
        : <span class="arch-muted">name two different kinds</span>}
    </span>
  );
}

function Ruin({ view, moves, props, me }: {
  view: ArchView; moves: Move[]; props: BoardProps; me: SeatView | undefined;
}) {
  const pending = view.pending;
  return (
    <section class="arch-ruin" aria-label={`The ${words(view.ruin)}`}>
      <h4>The {words(view.ruin)} <small>{count(view.maps_to_explore, "map")} to explore</small></h4>
      <ol class="arch-rooms">
        {view.rooms.map((room, r) => {
          const known = me?.known_rooms?.[String(r)];
          const explores = find(moves, "explore", "room", r);
          const peek = find(moves, "peek", "room", r)[0];
          const legal = explores.length > 0 || peek !== undefined;
          const here = pending && pending.room === r;
          return (
            <li key={r} class={`arch-room${legal ? " arch-legal" : ""}${here ? " arch-here" : ""}`} data-room={String(r)}>
              <span class="arch-room-name">Room {ROMAN[r] ?? r + 1}</span>
              <span>{count(room.size, "card")}</span>
              {room.cards && <CardsLine cards={room.cards} />}
              {known && <span class="arch-known">you saw: <CardsLine cards={known} /></span>}
              {explores.length === 1 && <Act move={explores[0]} submit={props.submit} label="Explore" />}
              {explores.length > 1 && <SphinxNaming room={r} moves={explores} submit={props.submit} />}
              <Act move={peek} submit={props.submit} label="Look inside" />
            </li>
          );
        })}
      </ol>
      {pending?.kind === "mine" && (
        <div class="arch-step" aria-label="The mine">
          <b>The mine reveals</b> <CardsLine cards={pending.revealed} />
        </div>
      )}
    </section>
  );
}

/** A seat's museum sets grouped by kind: "coins (2, 1), maps (1)". */
function museum(sets: { kind: string; count: number }[]): string {
  const byKind = new Map<string, number[]>();
  for (const set of sets) byKind.set(set.kind, [...(byKind.get(set.kind) ?? []), set.count]);
  return [...byKind].map(([kind, counts]) => `${words(kind)} (${counts.join(", ")})`).join(", ");
}

function Seats({ view, moves, props }: { view: ArchView; moves: Move[]; props: BoardProps }) {
  return (
    <ul class="arch-seats" aria-label="The expedition members">
      {view.seats.map((s, i) => {
        const rob = find(moves, "rob", "victim", i)[0];
        return (
          <li key={i} data-seat={String(i)}
            class={`arch-seat${i === view.turn.seat && !view.ended ? " arch-turn" : ""}${i === props.seat ? " arch-me" : ""}${rob ? " arch-legal" : ""}`}>
            <b class="arch-seat-name">{seatName(props, i)}</b>
            <span class="arch-hand-size" title="cards in hand">{count(s.hand_size, "card")}</span>
            <span title="points from the museum">{s.points} pts</span>
            <span title="tent uses left">tent {s.tent_uses}</span>
            {s.sets.length > 0 && (
              <span class="arch-museum" title="sets sold to the museum, by kind (cards in each set)">
                museum: {museum(s.sets)}
              </span>
            )}
            <Act move={rob} submit={props.submit} label="Rob this seat" />
          </li>
        );
      })}
    </ul>
  );
}

function Steps({ view, moves, props }: { view: ArchView; moves: Move[]; props: BoardProps }) {
  const pending = view.pending;
  const tents = find(moves, "tent");
  const mine = find(moves, "mine");
  const takes = find(moves, "take");
  const noPeek = find(moves, "no_peek")[0];
  const step = pending?.kind === "sandstorm"
    ? `Sandstorm! cards to lose per seat: ${(pending.losses ?? []).join(", ")}`
    : pending?.kind === "thief" ? "A thief: choose whom to rob (on a seat above)."
    : pending?.kind === "tomb" ? `The tomb: take cards from room ${ROMAN[pending.room ?? 0] ?? ""}`
    : pending?.kind === "peek" ? "The temple: you may look into a room."
    : pending?.kind === "mine" ? "The mine: reveal another card, or stop and take the revealed ones."
    : view.compulsory_selling ? "Everyone passed: selling is compulsory." : "";
  const buttons = tents.length + mine.length + takes.length + (noPeek ? 1 : 0)
    + find(moves, "end_turn").length;
  if (!step && !buttons) return null;
  return (
    <div class="arch-steps">
      {step && <p class="arch-step-text" id="arch-step">{step}</p>}
      <p class="arch-buttons">
        {tents.map((m) => <Act key={m.json} move={m} submit={props.submit}
          label={m.action["use"] ? "Shelter in the tent" : "Keep the tent"} />)}
        {mine.map((m) => <Act key={m.json} move={m} submit={props.submit}
          label={m.action["go"] ? "Reveal another card" : "Stop and take"} />)}
        {takes.map((m) => <Act key={m.json} move={m} submit={props.submit} label={m.words} />)}
        <Act move={noPeek} submit={props.submit} label="Don't look" />
        <Act move={find(moves, "end_turn")[0]} submit={props.submit}
          label={view.turn.acted ? "End the turn" : "Pass"} />
      </p>
    </div>
  );
}

export function ArchaeologyBoard(props: BoardProps) {
  const view = props.view;
  if (!isView(view)) return null;
  const moves = parse(props.actions);
  const values = new Map((view.treasures ?? []).map((t) => [t.kind, t]));
  const me = props.seat === null ? undefined : view.seats[props.seat];
  const dig = find(moves, "dig")[0];
  const trade = view.pending?.kind === "trade" ? view.pending : null;
  return (
    <section id="arch-board" class="arch-board" aria-label="The expedition">
      <style>{ARCH_CSS}</style>
      <Seats view={view} moves={moves} props={props} />
      <div class="arch-table">
        <section class={`arch-dig${dig ? " arch-legal" : ""}`} aria-label="The dig site">
          <h4>Dig site</h4>
          <p class="arch-pile" id="arch-dig-size">{count(view.dig_site_size, "card")}</p>
          <p class="arch-small">of them {count(view.dig_site_thieves, "thief", "thieves")},
            {" "}{count(view.dig_site_sandstorms, "sandstorm")}</p>
          <Act move={dig} submit={props.submit} label="Dig" primary />
          <p class="arch-small">discard: {count(total(view.discard.treasures), "treasure")},
            {" "}{count(view.discard.thieves, "thief", "thieves")},
            {" "}{count(view.discard.sandstorms, "sandstorm")}{view.reserve_size ? `; reserve ${view.reserve_size}` : ""}</p>
        </section>
        <Market view={view} moves={moves} props={props} values={values} />
        <Ruin view={view} moves={moves} props={props} me={me} />
      </div>
      {trade && <Trade pending={trade} view={view} props={props} moves={moves} mine={view.turn.seat === props.seat} />}
      <Steps view={view} moves={moves} props={props} />
      {me && <Hand view={view} seat={me} moves={moves} props={props} values={values} />}
    </section>
  );
}

registerBoard("archaeology", ArchaeologyBoard);
