// GameService.Play over a WebSocket (docs/web.md, "Play over a WebSocket"): one open
// connection for a seat's moves and reads, JSON frames, the seat token in each message
// (a browser cannot set headers on a WebSocket). When no socket is open, or it closes
// before answering, the same call goes over HTTP; a move retried there keeps its
// command_id, so the server applies it once.

import { GAME_SERVICE, type PathOf, Refusal, type ReplyOf, type RequestOf, type Schema, call } from "./api";

type PlayRequest = Schema<"gameserver.v1.PlayRequest">;
type PlayResponse = Schema<"gameserver.v1.PlayResponse">;

/** The calls a Play stream carries, each by its field of PlayRequest / PlayResponse. */
const PLAY_KINDS = {
  SubmitAction: "submit_action",
  GetGame: "get_game",
  ListLegalActions: "list_legal_actions",
} as const satisfies Record<string, keyof PlayRequest & keyof PlayResponse>;

export type PlayMethod = keyof typeof PLAY_KINDS;
type PlayPath<M extends PlayMethod> = PathOf<typeof GAME_SERVICE, M>;

/** The socket closed before answering: the caller falls back to HTTP. */
class SocketGone extends Error {}

interface Waiting {
  resolve: (answer: PlayResponse) => void;
  reject: (error: Error) => void;
}

/** What the page shows of the transport: open or not, moves sent each way, a note. */
export interface Transport {
  open: boolean;
  socketMoves: number;
  httpMoves: number;
  note: string;
}

export class PlaySocket {
  private socket: WebSocket | null = null;
  private pending = new Map<number, Waiting>();
  private nextId = 0;
  private retries = 0;
  private wanted = false;
  readonly transport: Transport = { open: false, socketMoves: 0, httpMoves: 0, note: "" };

  /** `changed` is called whenever `transport` changes. */
  constructor(private readonly changed: () => void) {}

  /** Opens the socket (and reopens it, with a growing pause, while wanted). */
  open(): void {
    this.wanted = true;
    this.connect();
  }

  private connect(): void {
    if (typeof WebSocket !== "function") { this.show(""); return; }
    let socket: WebSocket;
    try {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      socket = new WebSocket(`${scheme}//${location.host}${GAME_SERVICE}Play`);
    } catch (error) {
      this.show(String(error));
      return;
    }
    const pending = new Map<number, Waiting>(); // request_id -> its caller, for this socket
    this.socket = socket;
    this.pending = pending;
    socket.onopen = () => { this.retries = 0; this.show(""); };
    socket.onmessage = (event: MessageEvent) => {
      let answer: PlayResponse;
      try { answer = JSON.parse(String(event.data)) as PlayResponse; } catch { return; }
      const id = Number(answer.request_id);
      const waiting = pending.get(id);
      if (!waiting) return; // request_id 0: the stream itself was refused; its close follows
      pending.delete(id);
      if (answer.error) waiting.reject(new Refusal(0, answer.error));
      else waiting.resolve(answer);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket === socket) this.socket = null;
      for (const waiting of pending.values()) waiting.reject(new SocketGone(`closed ${event.code}`));
      pending.clear();
      this.show(event.reason || (event.code === 1000 ? "" : `closed ${event.code}`));
      // Reopen while still wanted, unless refused for good (1008: policy).
      if (this.wanted && event.code !== 1008 && this.retries < 5) {
        this.retries += 1;
        setTimeout(() => { if (this.wanted && !this.socket) this.connect(); }, 1000 * this.retries);
      }
    };
  }

  /** Closes the socket for good (leaving the table). */
  close(): void {
    this.wanted = false;
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000);
  }

  private show(note: string): void {
    this.transport.open = this.socket !== null && this.socket.readyState === WebSocket.OPEN;
    this.transport.note = note;
    this.changed();
  }

  private overSocket<M extends PlayMethod>(
    method: M, body: RequestOf<PlayPath<M>>, token: string,
  ): Promise<ReplyOf<PlayPath<M>>> | null {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return null;
    const kind = PLAY_KINDS[method];
    this.nextId += 1;
    const id = this.nextId;
    const request = { ...body };
    if (token) request.seat_token = token;
    const message: PlayRequest = { request_id: id, [kind]: request };
    return new Promise((resolve, reject) => {
      // The answer to a `kind` request carries its reply in the same field.
      this.pending.set(id, { resolve: (answer) => resolve(answer[kind] as ReplyOf<PlayPath<M>>), reject });
      socket.send(JSON.stringify(message));
    });
  }

  /** A Play call (SubmitAction, GetGame, ListLegalActions) over the socket when it is
   * open, else (or if it closes first) over HTTP. Rejects with a Refusal. */
  async ask<M extends PlayMethod>(
    method: M, body: RequestOf<PlayPath<M>>, token: string,
  ): Promise<ReplyOf<PlayPath<M>>> {
    const answered = this.overSocket(method, body, token);
    if (answered) {
      try {
        const reply = await answered;
        if (method === "SubmitAction") { this.transport.socketMoves += 1; this.changed(); }
        return reply;
      } catch (error) {
        if (!(error instanceof SocketGone)) throw error;
      }
    }
    const reply = await call(method, body, token);
    if (method === "SubmitAction") { this.transport.httpMoves += 1; this.changed(); }
    return reply;
  }
}
