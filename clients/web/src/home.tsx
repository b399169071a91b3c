// The signed-in player's home (#me): quick match (Seek, then the game opens when
// matched), the open tables to join or a new one to open, and "your games".

import { useEffect, useRef, useState } from "preact/hooks";
import { Refusal, newId, present } from "./api";
import type { Seated } from "./lobby";
import { MyGames } from "./my-games";
import { type Account, LOBBY_SERVICE, type LobbyTable, callAs } from "./player";
import { go } from "./route";
import { defaultRuleset, titleOf, useRulesets } from "./rulesets";
import { Refused } from "./table-view";

/** The player's seat at a started table, or null. */
export function seatAt(table: LobbyTable, playerId: string): number | null {
  return table.seats.find((s) => s.player_id === playerId)?.seat ?? null;
}

function QuickMatch({ account, enter, refused }: {
  account: Account; enter: (seated: Seated) => void; refused: (error: unknown) => void;
}) {
  const rulesets = useRulesets();
  const [ruleset, setRuleset] = useState("");
  const [seats, setSeats] = useState("2");
  const [seek, setSeek] = useState("");
  const [waited, setWaited] = useState(0);
  const chosen = ruleset || defaultRuleset(rulesets);

  // While a seek waits, ask where it stands each second; open the game once placed.
  useEffect(() => {
    if (!seek) return undefined;
    let live = true;
    const poll = async () => {
      try {
        const got = await callAs(
          LOBBY_SERVICE, "GetSeek", { seek_id: seek }, account.credential);
        if (!live) return;
        setWaited(Math.round(got.waited_s));
        if (got.game_id) {
          const table = present((await callAs(LOBBY_SERVICE, "GetTable", { table_id: got.table_id }, account.credential)).table, "table");
          if (!live) return;
          setSeek("");
          enter({ gameId: got.game_id, seat: seatAt(table, account.player_id), token: account.credential });
          return;
        }
      } catch (error) {
        if (!live) return;
        setSeek("");
        refused(error);
        return;
      }
      if (live) timer = window.setTimeout(() => void poll(), 1000);
    };
    let timer = window.setTimeout(() => void poll(), 300);
    return () => { live = false; window.clearTimeout(timer); };
  }, [seek]);

  const start = async (event: Event) => {
    event.preventDefault();
    const size = Number(seats) || 2;
    try {
      const reply = await callAs(LOBBY_SERVICE, "Seek", {
        ruleset: chosen, min_seats: size, max_seats: size, rated: false, command_id: newId(),
      }, account.credential);
      setWaited(0);
      setSeek(reply.seek_id);
    } catch (error) {
      refused(error);
    }
  };
  const cancel = async () => {
    const cancelled = seek;
    setSeek("");
    try {
      await callAs(LOBBY_SERVICE, "CancelSeek", { seek_id: cancelled }, account.credential);
    } catch (error) {
      refused(error);
    }
  };

  return (
    <section class="panel" aria-labelledby="quick-match-title">
      <h2 id="quick-match-title">Quick match</h2>
      {seek ? (
        <div class="row" id="seeking">
          <p role="status" class="searching">Searching for {titleOf(rulesets, chosen)} players… {waited} s</p>
          <button id="cancel-seek" type="button" onClick={() => void cancel()}>Cancel</button>
        </div>
      ) : (
        <form id="seek-form" class="row" onSubmit={(e) => void start(e)}>
          <label class="wide">Game
            <select id="seek-ruleset" value={chosen} onChange={(e) => setRuleset((e.target as HTMLSelectElement).value)}>
              {rulesets.map((r) => <option key={r.name} value={r.name}>{r.title || r.name}</option>)}
            </select>
          </label>
          <label>Players
            <input id="seek-seats" type="number" min="2" max="5" value={seats}
              onInput={(e) => setSeats((e.target as HTMLInputElement).value)} />
          </label>
          <button id="seek" type="submit" class="primary">Find a game</button>
        </form>
      )}
    </section>
  );
}

function OpenTables({ account, refused }: { account: Account; refused: (error: unknown) => void }) {
  const rulesets = useRulesets();
  const [tables, setTables] = useState<LobbyTable[]>([]);
  const [ruleset, setRuleset] = useState("");
  const [seats, setSeats] = useState("2");
  const [rated, setRated] = useState(false);
  const chosen = ruleset || defaultRuleset(rulesets);
  const mounted = useRef(true);

  const refresh = async () => {
    try {
      const page = await callAs(LOBBY_SERVICE, "ListTables", { page_size: 50 }, account.credential);
      if (mounted.current) setTables(page.tables);
    } catch (error) {
      refused(error);
    }
  };
  useEffect(() => {
    void refresh();
    return () => { mounted.current = false; };
  }, []);

  const open = async (event: Event) => {
    event.preventDefault();
    try {
      const table = present((await callAs(LOBBY_SERVICE, "OpenTable", {
        ruleset: chosen, seat_count: Number(seats) || 2, rated, command_id: newId(),
      }, account.credential)).table, "table");
      go(`#table=${table.table_id}`);
    } catch (error) {
      refused(error);
    }
  };

  return (
    <section class="panel" aria-labelledby="tables-title">
      <h2 id="tables-title">Open tables</h2>
      <button id="refresh-tables" type="button" onClick={() => void refresh()}>Refresh</button>
      <ul id="tables" class="games">
        {!tables.length && <li class="muted">No open table: open one below.</li>}
        {tables.map((table) => (
          <li key={table.table_id} class="game-card">
            <div class="game-card-head">
              <span>{titleOf(rulesets, table.ruleset)}</span>
              <span class="muted">{table.seats.length - table.free_seats}/{table.seats.length} seated</span>
              {table.rated && <span class="badge">rated</span>}
            </div>
            <a class="button" href={`#table=${table.table_id}`} data-table={table.table_id}>
              {seatAt(table, account.player_id) === null ? "Sit down" : "Your table"}
            </a>
          </li>
        ))}
      </ul>
      <form id="open-table-form" class="row" onSubmit={(e) => void open(e)}>
        <label class="wide">Game
          <select id="table-ruleset" value={chosen} onChange={(e) => setRuleset((e.target as HTMLSelectElement).value)}>
            {rulesets.map((r) => <option key={r.name} value={r.name}>{r.title || r.name}</option>)}
          </select>
        </label>
        <label>Seats
          <input id="table-seats" type="number" min="1" max="5" value={seats}
            onInput={(e) => setSeats((e.target as HTMLInputElement).value)} />
        </label>
        <label>Counts for ratings
          <select id="table-rated" value={rated ? "rated" : "casual"}
            onChange={(e) => setRated((e.target as HTMLSelectElement).value === "rated")}>
            <option value="casual">no (casual)</option>
            <option value="rated">yes (rated, no bots)</option>
          </select>
        </label>
        <button id="open-table" type="submit">Open a table</button>
      </form>
    </section>
  );
}

export function Home({ account, enter }: { account: Account; enter: (seated: Seated) => void }) {
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const refused = (error: unknown) => {
    if (!(error instanceof Refusal)) throw error;
    setRefusal(error);
  };
  return (
    <div id="home" class="home">
      <Refused refusal={refusal} />
      <div class="home-grid">
        <MyGames account={account} enter={enter} refused={refused} />
        <div class="home-side">
          <QuickMatch account={account} enter={enter} refused={refused} />
          <OpenTables account={account} refused={refused} />
        </div>
      </div>
    </div>
  );
}
