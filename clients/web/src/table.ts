// One game at the table: a seat (with its token) or a spectator. Holds what the page
// shows (the game, the seat's legal actions, the events, a refusal) and keeps it live:
// the event stream brings the others' moves, each followed by a fresh read; the seat's
// moves and reads go over the Play socket (play.ts).

import { type Game, type GameEvent, type LegalAction, Refusal, type RequestOf, call, newId, present } from "./api";
import { PlaySocket } from "./play";
import { type StreamState, watchGame } from "./watch";

export class TableSession {
  game: Game | null = null;
  actions: LegalAction[] = [];
  events: GameEvent[] = []; // newest first
  refusal: Refusal | null = null;
  stream: StreamState = "following";
  readonly play: PlaySocket;
  private readonly watching = new AbortController();
  private lastVersion = 0;
  private refreshing = false;
  private refreshAgain = false;
  private refreshTimer = 0;

  /** `changed` is called after every change of what the page shows. */
  constructor(
    readonly gameId: string,
    readonly seat: number | null,
    readonly token: string,
    private readonly changed: () => void,
  ) {
    this.play = new PlaySocket(changed);
  }

  start(): void {
    void watchGame(this.gameId, this.token, this.watching.signal, {
      after: () => this.lastVersion,
      event: (event) => this.received(event),
      state: (state) => {
        this.stream = state;
        if (state === "over") this.refreshSoon();
        this.changed();
      },
      refused: (refusal) => this.refused(refusal),
    });
    if (this.seat !== null) this.play.open();
    void this.refresh();
  }

  stop(): void {
    this.watching.abort();
    this.play.close();
    clearTimeout(this.refreshTimer);
  }

  private received(event: GameEvent): void {
    const version = Number(event.version);
    if (this.events.some((e) => Number(e.version) === version)) return;
    this.events = [event, ...this.events];
    this.lastVersion = Math.max(this.lastVersion, version);
    this.changed();
    this.refreshSoon();
  }

  private refused(error: unknown): void {
    if (!(error instanceof Refusal)) throw error;
    this.refusal = error;
    this.changed();
  }

  clearRefusal(): void {
    if (this.refusal) { this.refusal = null; this.changed(); }
  }

  /** Shows `game` (and the seat's `actions`) unless an older version than shown:
   * replies may arrive out of order (a refresh started before a move ends after it). */
  private show(game: Game, actions: LegalAction[]): void {
    if (this.game && Number(game.version) < Number(this.game.version)) return;
    this.game = game;
    this.actions = actions;
    this.changed();
  }

  async refresh(): Promise<void> {
    if (this.refreshing) { this.refreshAgain = true; return; }
    this.refreshing = true;
    try {
      const request: RequestOf<"/gameserver.v1.GameService/GetGame"> = { game_id: this.gameId };
      if (this.seat !== null) request.seat = this.seat;
      const game = await this.play.ask("GetGame", request, this.token);
      let actions: LegalAction[] = [];
      if (this.seat !== null && !game.finished) {
        const listed = await this.play.ask(
          "ListLegalActions", { game_id: this.gameId, seat: this.seat }, this.token);
        actions = listed.actions;
      }
      this.show(game, actions);
    } catch (error) {
      this.refused(error);
    } finally {
      this.refreshing = false;
      if (this.refreshAgain) { this.refreshAgain = false; void this.refresh(); }
    }
  }

  private refreshSoon(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = window.setTimeout(() => void this.refresh(), 80);
  }

  /** Plays `actionJson` for the seat; the reply carries the seat's next view. */
  async submit(actionJson: string): Promise<void> {
    this.clearRefusal();
    try {
      const reply = await this.play.ask("SubmitAction", {
        game_id: this.gameId, seat: this.seat, action_json: actionJson,
        command_id: newId(), return_view: true,
      }, this.token);
      this.show(present(reply.game, "game"), reply.legal_actions ?? []);
    } catch (error) {
      this.refused(error);
    }
  }

  /** ResignSeat (docs/events.md, "Leaving a game"); the caller asked the person first. */
  async resign(): Promise<void> {
    this.clearRefusal();
    try {
      await call("ResignSeat", { game_id: this.gameId, seat: this.seat, command_id: newId() }, this.token);
    } catch (error) {
      this.refused(error);
    }
    await this.refresh();
  }
}
