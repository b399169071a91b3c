// Drives `matches` concurrent Nim matches on a boardgame.io server with boardgame.io's own
// socket.io client (one client per seat, as players would connect), always taking 1 stone.
// Protocol: prints "ready" when every match is connected, waits for a line on stdin, plays
// for `seconds`, then prints one JSON line {moves, errors, error_kinds, latencies_ms, elapsed_s}.
// A finished match is replaced by a new one (created through the lobby REST API).
// Usage: node driver.js HOST:PORT MATCHES SECONDS
const readline = require('readline');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Nim } = require('./nim');

const [server, matchesArg, secondsArg] = process.argv.slice(2);
const matches = Number(matchesArg);
const seconds = Number(secondsArg);
const MOVE_TIMEOUT_MS = 10000;
const errorKinds = {};
let errors = 0;
let moves = 0;
const latencies = [];
let running = false;
let stopAt = 0;

// Disconnects a match's clients (once: a second stop() would throw).
function stopAll(clients) {
  clients.forEach((c) => {
    if (!c.stopped) {
      c.stopped = true;
      c.stop();
    }
  });
}

function fail(kind) {
  errors += 1;
  errorKinds[kind] = (errorKinds[kind] || 0) + 1;
}

async function post(path, body) {
  const reply = await fetch(`http://${server}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(`${path}: HTTP ${reply.status}`);
  return reply.json();
}

// Resolves with the client's next state whose _stateID is above `after`. Waiters hang on
// one subscriber per client (watch()): boardgame.io numbers subscribers by their count,
// so subscribing again after an unsubscribe can overwrite a live subscriber.
function nextState(client, after) {
  const now = client.getState();
  if (now && now._stateID > after) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const waiter = { after, resolve };
    waiter.timer = setTimeout(() => {
      client.waiters.delete(waiter);
      reject(new Error('timeout'));
    }, MOVE_TIMEOUT_MS);
    client.waiters.add(waiter);
  });
}

function watch(client) {
  client.waiters = new Set();
  client.subscribe((state) => {
    if (!state) return;
    for (const waiter of client.waiters) {
      if (state._stateID > waiter.after) {
        client.waiters.delete(waiter);
        clearTimeout(waiter.timer);
        waiter.resolve(state);
      }
    }
  });
}

async function newMatch() {
  const { matchID } = await post('/games/nim/create', { numPlayers: 2 });
  const clients = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(`/games/nim/${matchID}/join`, {
      playerID,
      playerName: `p${playerID}`,
    });
    const client = Client({
      game: Nim,
      // websocket from the start: no long-polling phase before the upgrade
      multiplayer: SocketIO({ server, socketOpts: { transports: ['websocket'] } }),
      matchID,
      playerID,
      credentials: playerCredentials,
      debug: false,
    });
    watch(client);
    client.start();
    clients.push(client);
  }
  await Promise.all(clients.map((c) => nextState(c, -1)));
  return clients;
}

async function playMatches(clients) {
  for (;;) {
    const state = clients[0].getState();
    if (state.ctx.gameover) {
      stopAll(clients);
      return;
    }
    if (!running || Date.now() >= stopAt) return;
    const mover = clients[Number(state.ctx.currentPlayer)];
    const before = mover.getState()._stateID;
    const start = process.hrtime.bigint();
    const waiting = nextState(mover, before);
    mover.moves.take(1);
    await waiting;
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    moves += 1;
    // the other seat must have the update too before it moves
    const other = clients.find((c) => c !== mover);
    if (other.getState()._stateID <= before) await nextState(other, before);
  }
}

async function seat(first) {
  let clients = first;
  while (running && Date.now() < stopAt) {
    try {
      await playMatches(clients);
    } catch (error) {
      fail(String(error.message || error));
      stopAll(clients);
    }
    if (!running || Date.now() >= stopAt) break;
    try {
      clients = await newMatch();
    } catch (error) {
      fail(String(error.message || error));
    }
  }
  stopAll(clients);
}

function percentile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * q) / 100))];
}

async function main() {
  const firsts = [];
  for (let i = 0; i < matches; i += 1) firsts.push(await newMatch());
  process.stdout.write('ready\n');
  const rl = readline.createInterface({ input: process.stdin });
  await new Promise((resolve) => rl.once('line', resolve));
  rl.close();
  running = true;
  const started = Date.now();
  stopAt = started + seconds * 1000;
  await Promise.all(firsts.map((c) => seat(c)));
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      moves,
      errors,
      error_kinds: errorKinds,
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      elapsed_s: elapsed,
    })}\n`,
  );
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
