// "Your games": the signed-in player's games, live from their stream (WatchPlayer over
// server-sent events), each with a "your turn" badge, a way in, resign, and rematch
// once it is over. A badge comes from a `your_turn` notice and is checked with GetGame
// (a move since clears it: the stream says when a turn starts, not when it ends).

import { useEffect, useRef, useState } from "preact/hooks";
import { Refusal, call, newId } from "./api";
import type { Seated } from "./lobby";
import { type MyGame, applyNotice, dataOf, newestFirst } from "./notices";
import { type Account, LOBBY_SERVICE, PLAYER_SERVICE, callAs } from "./player";
import { titleOf, useRulesets } from "./rulesets";
import { type FollowState, follow } from "./stream";

/** `MyGame.rematchOffer` once this page offered a rematch, or answered one. */
const SENT = "sent";
const ANSWERED = "answered";

/** Games whose badge is checked after a batch of notices (the newest). */
const CHECKED = 30;

export function MyGames({ account, enter, refused }: {
  account: Account; enter: (seated: Seated) => void; refused: (error: unknown) => void;
}) {
  const rulesets = useRulesets();
  const [games, setGames] = useState<Map<string, MyGame>>(new Map());
  const [stream, setStream] = useState<FollowState>("following");
  const latest = useRef(games);
  const touched = useRef(new Set<string>());
  const timer = useRef<number | undefined>(undefined);

  /** Confirms the badges of the games touched since the last check against GetGame. */
  const check = async () => {
    const ids = [...touched.current];
    touched.current.clear();
    const wanted = newestFirst(latest.current).slice(0, CHECKED).map((g) => g.gameId);
    await Promise.all(ids.filter((id) => wanted.includes(id)).map(async (id) => {
      try {
        const game = await call("GetGame", { game_id: id });
        const mine = latest.current.get(id);
        if (!mine) return;
        const yourTurn = !game.finished && game.seats_to_act.includes(mine.seat);
        if (yourTurn !== mine.yourTurn || game.finished !== mine.finished) {
          latest.current = new Map(latest.current).set(id, { ...mine, yourTurn, finished: mine.finished || game.finished });
          setGames(latest.current);
        }
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
      }
    }));
  };

  useEffect(() => {
    const stop = new AbortController();
    let after = "";
    void follow(`${PLAYER_SERVICE}WatchPlayer`, `Player ${account.credential}`, stop.signal, {
      body: () => ({ after }),
      message: (data) => {
        const notice = data.notice;
        if (!notice) return;
        after = notice.id;
        latest.current = applyNotice(latest.current, notice);
        setGames(latest.current);
        const gameId = dataOf(notice)["game_id"];
        if (typeof gameId === "string" && gameId) touched.current.add(gameId);
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => void check(), 250);
      },
      state: setStream,
      refused,
    });
    return () => { stop.abort(); window.clearTimeout(timer.current); };
  }, [account.credential]);

  const act = async (work: () => Promise<unknown>) => {
    try { await work(); } catch (error) { refused(error); }
  };
  const resign = (game: MyGame) => void act(async () => {
    if (!window.confirm("Resign this game?")) return;
    await call("ResignSeat", { game_id: game.gameId, seat: game.seat, command_id: newId() }, account.credential);
    touched.current.add(game.gameId);
    await check();
  });
  const rematch = (game: MyGame, method: "OfferRematch" | "AcceptRematch" | "DeclineRematch") => void act(async () => {
    await callAs(LOBBY_SERVICE, method, { game_id: game.gameId }, account.credential);
    latest.current = new Map(latest.current).set(game.gameId, { ...game, rematchOffer: method === "OfferRematch" ? SENT : ANSWERED });
    setGames(latest.current);
  });

  const listed = newestFirst(games);
  return (
    <section class="panel" aria-labelledby="my-games-title">
      <h2 id="my-games-title">Your games <span id="player-stream" class="muted small" data-state={stream}>({stream})</span></h2>
      <ul id="my-games" class="games">
        {!listed.length && <li class="muted">No games yet: quick match, or join a table.</li>}
        {listed.map((game) => (
          <li key={game.gameId} class={`game-card${game.yourTurn ? " your-turn" : ""}`} data-game={game.gameId}>
            <div class="game-card-head">
              <span>{titleOf(rulesets, game.ruleset)}</span>
              <code title={game.gameId}>{game.gameId.slice(0, 8)}</code>
              <span class="muted">seat {game.seat}</span>
              {game.yourTurn && <span class="badge turn-badge">your turn</span>}
              {game.finished && <span class="badge done">{game.place ? `over: place ${game.place}` : "over"}</span>}
              {game.tournamentId && <a href={`#tournament=${game.tournamentId}`}>tournament</a>}
            </div>
            <div class="game-card-buttons">
              <button type="button" class={game.yourTurn ? "primary" : undefined} data-open={game.gameId}
                onClick={() => enter({ gameId: game.gameId, seat: game.seat, token: account.credential })}>
                {game.finished ? "Look at it" : game.yourTurn ? "Play your turn" : "Open"}
              </button>
              {!game.finished && <button type="button" data-resign={game.gameId} onClick={() => resign(game)}>Resign</button>}
              {game.finished && !game.rematchOffer && (
                <button type="button" data-rematch={game.gameId} onClick={() => rematch(game, "OfferRematch")}>Offer a rematch</button>
              )}
              {game.rematchOffer === SENT && <span class="muted" role="status">rematch offered</span>}
              {game.finished && game.rematchOffer && game.rematchOffer !== SENT && game.rematchOffer !== ANSWERED && (
                <>
                  <button type="button" class="primary" data-accept={game.gameId} onClick={() => rematch(game, "AcceptRematch")}>Accept the rematch</button>
                  <button type="button" data-decline={game.gameId} onClick={() => rematch(game, "DeclineRematch")}>Decline the rematch</button>
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
