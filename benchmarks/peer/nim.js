// The benchmark's Nim for boardgame.io: the same game as tests/nim.py (a pile of 10..20
// stones drawn at setup, seats take 1..maxTake in turn, whoever takes the last wins).
// `client: false` makes the move run on the server only, so a client sees its move's
// effect only when the server's update arrives (a true round trip, as with SubmitAction).
const { INVALID_MOVE } = require('boardgame.io/core');

const Nim = {
  name: 'nim',
  setup: ({ ctx, random }) => ({
    pile: random.Die(11) + 9,
    maxTake: 3,
    taken: Array(ctx.numPlayers).fill(0),
  }),
  moves: {
    take: {
      move: ({ G, playerID }, count) => {
        if (!Number.isInteger(count) || count < 1 || count > Math.min(G.maxTake, G.pile)) {
          return INVALID_MOVE;
        }
        G.pile -= count;
        G.taken[playerID] += count;
        if (G.pile === 0) G.winner = playerID;
        return undefined;
      },
      client: false,
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => (G.winner !== undefined ? { winner: G.winner } : undefined),
};

module.exports = { Nim };
