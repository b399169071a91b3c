// Teotihuacan's view as the board reads it (services/games/teotihuacan/rules/describe.py
// `view`, with `printed` from rules/drawing.py) and the seat's legal moves parsed, with
// the words the board uses for them. Nothing here reads the internal state.

import type { LegalAction } from "../../../../clients/web/src/api";
import { count } from "../../../../clients/web/src/words";

export interface Worker { board: number; power: number; locked: boolean; space: number }

export interface Player {
  cocoa: number; wood: number; stone: number; gold: number; vp: number;
  avenue: number; pyramid: number; temples: [number, number, number];
  workers: Worker[]; technologies: number[]; discoveries: number[];
  used_discoveries: number[]; masks: number[];
  starting_tiles: number[]; chosen_starting_tiles: number[];
}

export interface Discovery { kind: string; cost: Record<string, number>; mask?: number; amount?: number; temple?: string }

export interface Printed {
  boards: string[];
  pyramid_grid: string[];
  pyramid_levels: { level: number; size: number; cost: Record<string, number>; vp: number }[];
  pyramid_tiles: Record<string, string>;
  decoration_tiles: Record<string, string>;
  technologies: { number: number; cost_gold: number; text: string }[];
  royal_tiles: string[];
  temple_bonus_tiles: string[];
  discoveries: Record<string, Discovery>;
  nobles_rows: number[][];
  temple_steps: Record<string, (Record<string, number> | null)[]>;
}

export interface TeoView {
  options: { solo: boolean; first_game: boolean };
  players: Player[];
  turn_order: number[];
  current: number;
  rondel: number[];
  neutral_workers: [number, number][];
  light: number; dark: number; eclipses: number; eclipse_countdown: number; final_eclipse: boolean;
  round: number;
  phase: string;
  buildings_taken: number;
  technologies: number[];
  pyramid_tiles: [number, number, number, number, number][];
  pyramid_offer: number[];
  pyramid_supply_size?: number;
  decorations: [string, number, number][];
  decoration_offer: number[];
  nobles_rows: number[];
  /** Only when a row has a gap (Teotibot built right of an empty space); else filled from the left. */
  nobles_built?: number[][];
  worship_discoveries: number[];
  avenue_discoveries: number[][];
  temple_discoveries: number[][][];
  teotibot_tiles: string[];
  teotibot_set_aside: string;
  teotibot_directions: string[];
  scores: number[];
  avenue_value: number;
  waiting_for: { seat: number; decision: string; kind: string } | null;
  printed: Printed;
}

/** One legal action, parsed, with the server's words for it. */
export interface Move { json: string; words: string; action: Record<string, unknown> }

export const TEMPLES = ["blue", "red", "green"] as const;

/** Seat colours (players' dice and markers), then the neutral colours. */
export const SEAT_COLOURS = ["#c0392b", "#2874a6", "#b7950b", "#7d3c98", "#5d6d7e", "#6e2c00", "#117a65"];

export function isView(view: unknown): view is TeoView {
  return Boolean(view) && typeof view === "object" && "rondel" in (view as object)
    && "printed" in (view as object) && Array.isArray((view as TeoView).players);
}

export function parseMoves(actions: LegalAction[]): Move[] {
  const moves: Move[] = [];
  for (const a of actions) {
    try {
      const action = JSON.parse(a.action_json) as unknown;
      if (action && typeof action === "object") {
        moves.push({ json: a.action_json, words: a.description || a.action_json, action: action as Record<string, unknown> });
      }
    } catch { /* not JSON: left to the page's list of moves */ }
  }
  return moves;
}

export function ofType(moves: Move[], ...types: string[]): Move[] {
  return moves.filter((m) => types.includes(String(m.action["type"])));
}

export function boardName(view: TeoView, board: number): string {
  return view.printed.boards[board] ?? `board ${board}`;
}

/** The board a worker reaches from `from` moving `steps` boards on along the rondel. */
export function destination(view: TeoView, from: number, steps: number): number {
  const at = view.rondel.indexOf(from);
  return view.rondel[(at + steps) % view.rondel.length] ?? from;
}

/** Where a legal move or teleport takes the seat's worker (undefined for other moves). */
export function moveTarget(view: TeoView, seat: number, move: Move): number | undefined {
  const worker = view.players[seat]?.workers[Number(move.action["worker"])];
  if (!worker) return undefined;
  if (move.action["type"] === "teleport") return Number(move.action["board"] ?? 1);
  if (move.action["type"] === "move") return destination(view, worker.board, Number(move.action["steps"]));
  return undefined;
}

export function seatName(names: string[], seat: number, you: number | null): string {
  const name = names[seat] || `seat ${seat}`;
  return seat === you ? `${name} (you)` : name;
}

/** "2 stone + 1 wood" (or "free"). */
export function costWords(cost: Record<string, number>): string {
  return Object.entries(cost).map(([good, n]) => `${n} ${good}`).join(" + ") || "free";
}

/** A discovery tile in words: "mask 3", "2 VP", "blue temple step", "double move". */
export function discoveryWords(face: Discovery | undefined): string {
  if (!face) return "a discovery tile";
  const amount = face.amount ?? "";
  switch (face.kind) {
    case "mask": return `mask ${face.mask ?? ""}`;
    case "vp": return `${amount} VP`;
    case "cocoa": return `${amount} cocoa`;
    case "temple": return `${face.temple ?? ""} temple step`;
    case "temple_any": return "any temple step";
    case "avenue_step": return "Avenue step";
    case "power_up": return face.amount === undefined ? "power-ups" : count(face.amount, "power-up");
    case "resources_any": return `${amount} resources`;
    default: return face.kind.replace(/_/g, " ");
  }
}
