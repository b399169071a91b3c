// boardgame.io server with its default in-memory storage, on 127.0.0.1:<port>.
// Usage: node server.js PORT   (prints "listening" once it accepts connections)
const { Server, Origins } = require('boardgame.io/server');
const { Nim } = require('./nim');

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [Nim], origins: [Origins.LOCALHOST] });
server.run({ port, lobbyConfig: undefined }, () => {
  process.stdout.write('listening\n');
});
