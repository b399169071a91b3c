// Reference web client of the teoti web face (docs/web.md). Plain JS, no build step.
// Every call is POST /gameserver.v1.GameService/<Method> with the request message as
// JSON; refusals come back as google.rpc.Status JSON with an ErrorInfo detail whose
// `reason` names the broken rule. WatchGame is read as server-sent events over fetch
// (so the seat token can travel in the Authorization header). A seated player's moves
// and reads go over one WebSocket (GameService.Play, JSON frames, the token in each
// message) while it is open, else over the HTTP calls above.
"use strict";

const SERVICE = "/gameserver.v1.GameService/";
const CODES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
  "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
  "UNAUTHENTICATED",
];
const $ = (id) => document.getElementById(id);

/** A refused call: the gRPC code name, the rule (ErrorInfo reason) and its message. */
class Refusal extends Error {
  constructor(httpStatus, status) {
    const info = (status.details || []).find((d) => String(d["@type"]).endsWith("ErrorInfo")) || {};
    const meta = info.metadata || {};
    super(meta.message || status.message || `HTTP ${httpStatus}`);
    this.code = CODES[status.code] || `HTTP ${httpStatus}`;
    this.reason = info.reason || this.code.toLowerCase();
    this.retryAfter = meta.retry_after_s;
  }
}

// ---- GameService.Play over a WebSocket: one open connection for a seat's calls ----
const PLAY_KINDS = { SubmitAction: "submit_action", GetGame: "get_game", ListLegalActions: "list_legal_actions" };
const play = { socket: null, nextId: 0, pending: new Map(), retries: 0, moves: { socket: 0, http: 0 } };

/** The socket closed before answering: the caller falls back to HTTP. */
class SocketGone extends Error {}

function showTransport(note) {
  const status = $("play-status");
  const open = play.socket && play.socket.readyState === WebSocket.OPEN;
  status.dataset.socketMoves = String(play.moves.socket);
  status.dataset.httpMoves = String(play.moves.http);
  status.dataset.open = open ? "yes" : "no";
  status.textContent = `(${open ? "WebSocket" : "HTTP"}${note ? `: ${note}` : ""})`;
}

function openPlay() {
  closePlay();
  if (table.seat === null || typeof WebSocket !== "function") { showTransport(); return; }
  const gameId = table.gameId;
  let socket;
  try {
    socket = new WebSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${SERVICE}Play`);
  } catch (error) {
    showTransport(error.message);
    return;
  }
  const pending = new Map(); // request_id -> the caller's promise, for this socket
  Object.assign(play, { socket, pending });
  socket.onopen = () => { play.retries = 0; showTransport(); };
  socket.onmessage = (event) => {
    let answer;
    try { answer = JSON.parse(event.data); } catch (_) { return; }
    const waiting = pending.get(Number(answer.request_id));
    if (!waiting) return; // request_id 0: the stream itself was refused; its close follows
    pending.delete(Number(answer.request_id));
    if (answer.error) waiting.reject(new Refusal(0, answer.error)); else waiting.resolve(answer);
  };
  socket.onclose = (event) => {
    if (play.socket === socket) play.socket = null;
    for (const waiting of pending.values()) waiting.reject(new SocketGone(`closed ${event.code}`));
    pending.clear();
    showTransport(event.reason || (event.code === 1000 ? "" : `closed ${event.code}`));
    // Reopen while still at this table, unless refused for good (1008: policy).
    if (table.gameId === gameId && event.code !== 1008 && play.retries < 5) {
      play.retries += 1;
      setTimeout(() => { if (table.gameId === gameId && !play.socket) openPlay(); }, 1000 * play.retries);
    }
  };
}

function closePlay() {
  const socket = play.socket;
  play.socket = null;
  if (socket) socket.close(1000);
}

/** Ask over the open socket: the answer's response, or null if no socket is open. */
function overSocket(kind, body, token) {
  const socket = play.socket;
  if (!socket || socket.readyState !== WebSocket.OPEN) return null;
  play.nextId += 1;
  const id = play.nextId;
  const request = { ...body };
  if (token) request.seat_token = token; // no headers on a WebSocket: the token per message
  return new Promise((resolve, reject) => {
    play.pending.set(id, { resolve: (answer) => resolve(answer[kind]), reject });
    socket.send(JSON.stringify({ request_id: id, [kind]: request }));
  });
}

/** A Play call (SubmitAction, GetGame, ListLegalActions) over the socket when it is
 * open, else (or if it closes first) over HTTP. A move retried over HTTP keeps its
 * command_id: the server applies it once. */
async function ask(method, body, token) {
  const kind = PLAY_KINDS[method];
  const answered = kind ? overSocket(kind, body, token) : null;
  if (answered) {
    try {
      const reply = await answered;
      if (method === "SubmitAction") { play.moves.socket += 1; showTransport(); }
      return reply;
    } catch (error) {
      if (!(error instanceof SocketGone)) throw error;
    }
  }
  const reply = await call(method, body, token);
  if (method === "SubmitAction") { play.moves.http += 1; showTransport(); }
  return reply;
}

async function call(method, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(SERVICE + method, { method: "POST", headers, body: JSON.stringify(body || {}) });
  } catch (error) {
    throw new Refusal(0, { code: 14, message: `the server cannot be reached (${error.message})` });
  }
  const data = await response.json().catch(() => ({ code: 13, message: response.statusText }));
  if (!response.ok) throw new Refusal(response.status, data);
  return data;
}

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  return node;
}

function newId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- the table: one game, one seat (or none: a spectator) ----
const table = {
  gameId: "", seat: null, token: "", lastVersion: 0, game: null,
  watch: null, refreshing: false, refreshAgain: false, refreshTimer: 0,
};

function showRefusal(error) {
  const box = $("refusal");
  box.replaceChildren(
    el("span", error.reason, { class: "reason" }),
    document.createTextNode(` (${error.code}): ${error.message}`),
  );
  box.hidden = false;
}

function clearRefusal() { $("refusal").hidden = true; }

function seatLabel(game, index) {
  const seat = (game.seats || [])[index] || {};
  const name = seat.name || (seat.open ? "open seat" : `seat ${index}`);
  const left = (game.seats_resigned || []).includes(index) ? " (resigned)"
    : (game.seats_played_by_bot || []).includes(index) ? " (a bot plays it)" : "";
  return `${index} ${name}${seat.kind === "SEAT_KIND_BOT" ? " (bot)" : ""}${left}${index === table.seat ? " (you)" : ""}`;
}

function renderGame(game, actions) {
  // Replies may arrive out of order (a refresh started before a move ends after it):
  // never go back to an older version of the game.
  if (table.game && table.game.game_id === game.game_id && game.version < table.game.version) return;
  table.game = game;
  $("game-id").textContent = game.game_id;
  $("game-ruleset").textContent = game.ruleset;
  $("my-seat").textContent = table.seat === null ? "none (watching)" : String(table.seat);
  $("game-version").textContent = String(game.version);
  $("to-act").textContent = (game.seats_to_act || []).map((s) => seatLabel(game, s)).join(", ") || "nobody";
  $("scores").textContent = (game.scores || []).join(" / ");
  $("finished").hidden = !game.finished;
  $("ranking").textContent = ((game.result || {}).ranking || []).map((s) => seatLabel(game, s)).join(" > ");
  const mine = table.seat !== null && (game.seats_to_act || []).includes(table.seat);
  $("turn-banner").textContent = game.finished ? "The game is over."
    : mine ? "Your turn: choose a move." : "Waiting for the other seats…";
  const stillIn = table.seat !== null && !(game.seats_out || []).includes(table.seat)
    && !(game.seats_resigned || []).includes(table.seat);
  $("resign").hidden = game.finished || !stillIn;
  const seats = $("seats");
  seats.replaceChildren(...(game.seats || []).map((_, i) => el("li", seatLabel(game, i))));
  let view = game.state_json;
  try { view = JSON.stringify(JSON.parse(game.state_json), null, 1); } catch (_) { /* as sent */ }
  $("view").textContent = view;
  if (actions !== undefined) renderActions(actions);
}

function renderActions(actions) {
  const list = $("legal-actions");
  // The same moves as shown: keep the buttons (a click landing while they were
  // redrawn would be lost).
  const key = JSON.stringify(actions.map((a) => a.action_json));
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...actions.map((action) => {
    const button = el("button", action.description, { "data-action": action.action_json, title: action.action_json });
    button.addEventListener("click", () => submit(action.action_json));
    const item = el("li");
    item.append(button);
    return item;
  }));
  if (!actions.length) list.append(el("li", table.seat === null ? "(watching)" : "(no move now)", { class: "muted" }));
}

async function refresh() {
  if (!table.gameId) return;
  if (table.refreshing) { table.refreshAgain = true; return; }
  table.refreshing = true;
  try {
    const request = { game_id: table.gameId };
    if (table.seat !== null) request.seat = table.seat;
    const game = await ask("GetGame", request, table.token);
    let actions = [];
    if (table.seat !== null && !game.finished) {
      actions = (await ask("ListLegalActions", { game_id: table.gameId, seat: table.seat }, table.token)).actions;
    }
    renderGame(game, actions);
  } catch (error) {
    if (error instanceof Refusal) showRefusal(error); else throw error;
  } finally {
    table.refreshing = false;
    if (table.refreshAgain) { table.refreshAgain = false; refresh(); }
  }
}

function refreshSoon() {
  clearTimeout(table.refreshTimer);
  table.refreshTimer = setTimeout(refresh, 80);
}

async function submit(actionJson) {
  clearRefusal();
  try {
    const reply = await ask("SubmitAction", {
      game_id: table.gameId, seat: table.seat, action_json: actionJson,
      command_id: newId(), return_view: true,
    }, table.token);
    renderGame(reply.game, reply.legal_actions || []);
  } catch (error) {
    if (error instanceof Refusal) showRefusal(error); else throw error;
  }
}

/** ResignSeat after the person confirms (docs/events.md, "Leaving a game"). */
async function resign() {
  clearRefusal();
  const question = "Resign this game? In a 2-player or solo game it ends and you lose; "
    + "at a bigger table you are out (ranked last) and a bot plays your moves.";
  if (!window.confirm(question)) return;
  try {
    await call("ResignSeat", { game_id: table.gameId, seat: table.seat, command_id: newId() }, table.token);
  } catch (error) {
    if (error instanceof Refusal) showRefusal(error); else throw error;
  }
  refresh();
}

// ---- the event stream (WatchGame as server-sent events) ----
function addEvent(event) {
  const meta = event.metadata || {};
  // Events can arrive before GetGame has answered: a seat's event is still the seat's.
  const seatName = table.game ? seatLabel(table.game, meta.seat) : `seat ${meta.seat}`;
  const who = meta.seat >= 0 ? seatName : "system";
  let payload = event.payload_json || "";
  if (payload.length > 160) payload = `${payload.slice(0, 159)}…`;
  const item = el("li", `v${event.version} ${event.type} — ${who} ${payload}`, {
    "data-version": String(event.version), "data-type": event.type, "data-seat": String(meta.seat),
  });
  if (table.seat !== null && meta.seat === table.seat) item.classList.add("mine");
  $("events").prepend(item);
}

function parseFrame(frame) {
  let event = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith(":")) continue; // keepalive comment
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return data.length ? { event, data: JSON.parse(data.join("\n")) } : null;
}

async function watch(controller) {
  const headers = { "content-type": "application/json", accept: "text/event-stream" };
  if (table.token) headers.authorization = `Bearer ${table.token}`;
  while (!controller.signal.aborted) {
    $("stream-status").textContent = "(following)";
    try {
      const response = await fetch(`${SERVICE}WatchGame`, {
        method: "POST", headers, signal: controller.signal,
        body: JSON.stringify({ game_id: table.gameId, from_version: table.lastVersion }),
      });
      if (!response.ok) throw new Refusal(response.status, await response.json());
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const frame = parseFrame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (!frame) continue;
          if (frame.event === "message") {
            addEvent(frame.data.event);
            table.lastVersion = Math.max(table.lastVersion, Number(frame.data.event.version));
            refreshSoon();
          } else if (frame.event === "end") {
            $("stream-status").textContent = "(the game is over)";
            refreshSoon();
            return;
          } else if (frame.event === "error") {
            const refusal = new Refusal(0, frame.data);
            if (refusal.reason !== "watch_too_slow") throw refusal;
          }
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof Refusal && error.reason !== "watch_too_slow" && error.code !== "UNAVAILABLE"
          && error.code !== "RESOURCE_EXHAUSTED") {
        showRefusal(error);
        $("stream-status").textContent = "(stopped)";
        return;
      }
    }
    $("stream-status").textContent = "(reconnecting)";
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function enterGame(gameId, seat, token) {
  leaveGame();
  Object.assign(table, { gameId, seat, token: token || "", lastVersion: 0, game: null });
  if (token) localStorage.setItem(`teoti:${gameId}`, JSON.stringify({ seat, token }));
  history.replaceState(null, "", `#game=${gameId}${seat === null ? "" : `&seat=${seat}`}`);
  $("events").replaceChildren();
  clearRefusal();
  $("lobby").hidden = true;
  $("table").hidden = false;
  table.watch = new AbortController();
  watch(table.watch);
  play.retries = 0;
  openPlay();
  refresh();
}

function leaveGame() {
  if (table.watch) table.watch.abort();
  table.watch = null;
  table.gameId = "";
  closePlay();
}

// ---- the lobby ----
async function refreshGames() {
  try {
    const page = await call("ListGames", { status: $("list-filter").value, page_size: 100 });
    const rows = page.games.slice().reverse().map((game) => {
      const row = el("tr");
      row.append(el("td", game.game_id.slice(0, 8), { title: game.game_id }), el("td", game.ruleset));
      row.append(el("td", game.seats.map((s, i) => `${i}:${s.open ? "open" : s.name}`).join(" ")));
      row.append(el("td", String(game.version)));
      const actions = el("td");
      game.seats.forEach((seat, index) => {
        if (!seat.open || game.finished) return;
        const join = el("button", `Join seat ${index}`, { "data-game": game.game_id, "data-seat": String(index) });
        join.addEventListener("click", () => joinGame(game.game_id, index));
        actions.append(join);
      });
      const look = el("button", "Watch", { "data-watch": game.game_id });
      look.addEventListener("click", () => enterGame(game.game_id, null, ""));
      actions.append(look);
      row.append(actions);
      return row;
    });
    $("games").tBodies[0].replaceChildren(...rows);
    $("server-status").textContent = "connected";
  } catch (error) {
    if (error instanceof Refusal) { $("server-status").textContent = `${error.reason}: ${error.message}`; return; }
    throw error;
  }
}

/** Fill the ruleset list from ListRulesets (the games this server has installed; the
 * page names none): each game's title, the server's default selected, and the players
 * field's maximum the largest table of them (a form outside it is not sent). */
async function loadRulesets() {
  let rulesets;
  try {
    rulesets = (await call("ListRulesets", {})).rulesets || [];
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    $("server-status").textContent = `${error.reason}: ${error.message}`;
    return;
  }
  const select = $("create-ruleset");
  select.replaceChildren(...rulesets.map((r) => el("option", r.title || r.name, { value: r.name })));
  const chosen = rulesets.find((r) => r.is_default);
  if (chosen) select.value = chosen.name;
  const most = Math.max(...rulesets.map((r) => r.max_seats || 1));
  if (Number.isFinite(most)) $("create-players").max = String(most);
}

async function createGame(event) {
  event.preventDefault();
  const ruleset = $("create-ruleset-other").value.trim() || $("create-ruleset").value;
  const players = Math.max(1, Number($("create-players").value) || 1);
  const others = $("create-others").value;
  const seats = [{ kind: "SEAT_KIND_HUMAN", name: $("player-name").value }];
  for (let i = 1; i < players; i += 1) {
    seats.push(others === "bot" ? { kind: "SEAT_KIND_BOT", name: `bot ${i}` } : { kind: "SEAT_KIND_HUMAN", open: true });
  }
  try {
    const created = await call("CreateGame", {
      ruleset, seats, options_json: $("create-options").value.trim(), command_id: newId(),
    });
    const mine = created.seat_tokens.find((t) => t.seat === 0);
    enterGame(created.game_id, 0, mine ? mine.token : "");
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showRefusal(error);
  }
}

async function joinGame(gameId, seat) {
  try {
    const joined = await call("JoinGame", { game_id: gameId, seat, name: $("player-name").value, command_id: newId() });
    enterGame(gameId, seat, joined.seat_token.token);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    showRefusal(error);
  }
}

function resume() {
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("game");
  if (!gameId) return false;
  const saved = JSON.parse(localStorage.getItem(`teoti:${gameId}`) || "null");
  if (saved && String(saved.seat) === params.get("seat")) enterGame(gameId, saved.seat, saved.token);
  else enterGame(gameId, null, "");
  return true;
}

$("refresh-games").addEventListener("click", refreshGames);
$("list-filter").addEventListener("change", refreshGames);
$("create-form").addEventListener("submit", createGame);
$("submit-custom").addEventListener("click", () => submit($("custom-action").value));
$("resign").addEventListener("click", resign);
$("leave").addEventListener("click", () => {
  leaveGame();
  clearRefusal();
  history.replaceState(null, "", "#");
  $("table").hidden = true;
  $("lobby").hidden = false;
  refreshGames();
});
loadRulesets();
if (!resume()) refreshGames(); else $("server-status").textContent = "connected";
