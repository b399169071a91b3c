// The lobby: games with open seats (or being played, or all) to join or watch, and a
// form to create one from the rulesets the server has installed (ListRulesets: the page
// names no game).

import { useEffect, useState } from "preact/hooks";
import { type GameSummary, Refusal, type RequestOf, type Ruleset, call, newId, present } from "./api";
import { Refused } from "./table-view";

export interface Seated {
  gameId: string;
  seat: number | null;
  token: string;
}

const FILTERS = [
  ["GAME_STATUS_FILTER_OPEN", "open seats"],
  ["GAME_STATUS_FILTER_ACTIVE", "being played"],
  ["GAME_STATUS_FILTER_UNSPECIFIED", "all"],
] as const;
type Filter = (typeof FILTERS)[number][0];

export function Lobby({ enter, setStatus }: {
  enter: (seated: Seated) => void; setStatus: (status: string) => void;
}) {
  const [name, setName] = useState("player");
  const [filter, setFilter] = useState<Filter>(FILTERS[0][0]);
  const [games, setGames] = useState<GameSummary[]>([]);
  const [rulesets, setRulesets] = useState<Ruleset[]>([]);
  const [ruleset, setRuleset] = useState("");
  const [other, setOther] = useState("");
  const [players, setPlayers] = useState("2");
  const [others, setOthers] = useState("open");
  const [options, setOptions] = useState("");
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  const refused = (error: unknown) => {
    if (!(error instanceof Refusal)) throw error;
    setRefusal(error);
  };

  const refresh = async (status = filter) => {
    try {
      const page = await call("ListGames", { status, page_size: 100 });
      setGames(page.games.slice().reverse());
      setStatus("connected");
    } catch (error) {
      if (error instanceof Refusal) setStatus(`${error.reason}: ${error.message}`); else throw error;
    }
  };

  useEffect(() => {
    void refresh();
    call("ListRulesets", {}).then((reply) => {
      const listed = reply.rulesets ?? [];
      setRulesets(listed);
      setRuleset((listed.find((r) => r.is_default) ?? listed[0])?.name ?? "");
    }, (error: unknown) => {
      if (error instanceof Refusal) setStatus(`${error.reason}: ${error.message}`); else throw error;
    });
  }, []);

  const most = Math.max(1, ...rulesets.map((r) => r.max_seats || 1));

  const create = async (event: Event) => {
    event.preventDefault();
    setRefusal(null);
    const count = Math.max(1, Number(players) || 1);
    const seats: NonNullable<RequestOf<"/gameserver.v1.GameService/CreateGame">["seats"]> = [{ kind: "SEAT_KIND_HUMAN", name }];
    for (let i = 1; i < count; i += 1) {
      seats.push(others === "bot" ? { kind: "SEAT_KIND_BOT", name: `bot ${i}` } : { kind: "SEAT_KIND_HUMAN", open: true });
    }
    try {
      const created = await call("CreateGame", {
        ruleset: other.trim() || ruleset, seats, options_json: options.trim(), command_id: newId(),
      });
      const mine = created.seat_tokens.find((t) => t.seat === 0);
      enter({ gameId: created.game_id, seat: 0, token: mine?.token ?? "" });
    } catch (error) {
      refused(error);
    }
  };

  const join = async (gameId: string, seat: number) => {
    setRefusal(null);
    try {
      const joined = await call("JoinGame", { game_id: gameId, seat, name, command_id: newId() });
      enter({ gameId, seat, token: present(joined.seat_token, "seat_token").token });
    } catch (error) {
      refused(error);
    }
  };

  return (
    <section id="lobby" class="lobby">
      <Refused refusal={refusal} />
      <div class="panel">
        <h2>Games</h2>
        <div class="row">
          <label>Your name <input id="player-name" value={name} maxLength={40}
            onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
          <label>Show
            <select id="list-filter" value={filter} onChange={(e) => {
              const value = (e.target as HTMLSelectElement).value as Filter;
              setFilter(value);
              void refresh(value);
            }}>
              {FILTERS.map(([value, words]) => <option key={value} value={value}>{words}</option>)}
            </select>
          </label>
          <button id="refresh-games" type="button" onClick={() => void refresh()}>Refresh</button>
        </div>
        <ul id="games" class="games">
          {!games.length && <li class="muted">No games here yet: create one below.</li>}
          {games.map((game) => (
            <li key={game.game_id} class="game-card">
              <div class="game-card-head">
                <code title={game.game_id}>{game.game_id.slice(0, 8)}</code>
                <span>{rulesets.find((r) => r.name === game.ruleset)?.title ?? game.ruleset}</span>
                <span class="muted">version {String(game.version)}</span>
              </div>
              <p class="game-seats">{game.seats.map((s, i) => `${i}: ${s.open ? "open" : s.name}`).join(" · ")}</p>
              <div class="game-card-buttons">
                {!game.finished && game.seats.map((s, i) => s.open && (
                  <button key={i} type="button" data-game={game.game_id} data-seat={String(i)}
                    onClick={() => void join(game.game_id, i)}>Join seat {i}</button>
                ))}
                <button type="button" data-watch={game.game_id}
                  onClick={() => enter({ gameId: game.game_id, seat: null, token: "" })}>Watch</button>
                {game.finished && <a class="button" data-replay={game.game_id}
                  href={`#replay=${encodeURIComponent(game.game_id)}`}>Replay</a>}
              </div>
            </li>
          ))}
        </ul>
      </div>
      <div class="panel">
        <h2>New game</h2>
        <form id="create-form" class="row" onSubmit={(e) => void create(e)}>
          <label>Game
            <select id="create-ruleset" value={ruleset}
              onChange={(e) => setRuleset((e.target as HTMLSelectElement).value)}>
              {rulesets.map((r) => <option key={r.name} value={r.name}>{r.title || r.name}</option>)}
            </select>
          </label>
          <label>or other ruleset <input id="create-ruleset-other" placeholder="ruleset name" value={other}
            onInput={(e) => setOther((e.target as HTMLInputElement).value)} /></label>
          <label>Players <input id="create-players" type="number" min="1" max={String(most)} value={players}
            onInput={(e) => setPlayers((e.target as HTMLInputElement).value)} /></label>
          <label>Other seats
            <select id="create-others" value={others} onChange={(e) => setOthers((e.target as HTMLSelectElement).value)}>
              <option value="open">open (others join)</option>
              <option value="bot">bots</option>
            </select>
          </label>
          <label>Options <input id="create-options" placeholder='{"first_game": true}' value={options}
            onInput={(e) => setOptions((e.target as HTMLInputElement).value)} /></label>
          <button id="create-game" type="submit" class="primary">Create and sit at seat 0</button>
        </form>
      </div>
    </section>
  );
}
