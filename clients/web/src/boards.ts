// Game-specific drawing is a plug-in: a registry of boards keyed by ruleset name. A
// game's board lives in its own folder (services/games/<game>/web/index.tsx, found by
// build.mjs and bundled through the virtual module "virtual:game-boards"), calls
// registerBoard with its ruleset's name, and reads only the seat's view (the game's
// `view`, GetGame's state_json) and the legal actions: never the internal state. A
// ruleset without a board gets the generic one (generic.tsx).

import type { ComponentChildren } from "preact";
import type { Game, LegalAction } from "./api";

export interface BoardProps {
  game: Game;
  /** The seat's view (or the public one), parsed from state_json. */
  view: unknown;
  /** The seat this page plays, or null for a spectator. */
  seat: number | null;
  /** The seat's legal actions now (empty when it is not to act). */
  actions: LegalAction[];
  /** Plays one of `actions` (its action_json). */
  submit: (actionJson: string) => void;
}

export type Board = (props: BoardProps) => ComponentChildren;

const boards = new Map<string, Board>();

/** Registers `board` as the drawing of `ruleset`'s games (a game's web folder calls it). */
export function registerBoard(ruleset: string, board: Board): void {
  boards.set(ruleset, board);
}

/** The board registered for `ruleset`, or undefined (the page then draws the generic one). */
export function boardFor(ruleset: string): Board | undefined {
  return boards.get(ruleset);
}

const quietEvents = new Map<string, ReadonlySet<string>>();

/** Names `types` of `ruleset`'s events as bookkeeping (e.g. an updated order of steps):
 * the page keeps them in the log, their JSON one click away, but shows no sentence. */
export function registerQuietEvents(ruleset: string, types: readonly string[]): void {
  quietEvents.set(ruleset, new Set(types));
}

/** True if `type` is a bookkeeping event of `ruleset` (registerQuietEvents). */
export function isQuietEvent(ruleset: string, type: string): boolean {
  return quietEvents.get(ruleset)?.has(type) ?? false;
}
