// One lobby table (#table=<id>, a link to share): its seats with their players' names,
// sit down, stand up, start early with bots (the host), and its game once it opened.
// Read again every 2 s while it is open (a table has no stream of its own).

import { useEffect, useState } from "preact/hooks";
import { type PathOf, Refusal, type RequestOf, present } from "./api";
import { seatAt } from "./home";
import type { Seated } from "./lobby";
import { type Account, LOBBY_SERVICE, type LobbyTable, PLAYER_SERVICE, callAs } from "./player";
import { titleOf, useRulesets } from "./rulesets";
import { Refused } from "./table-view";

const names = new Map<string, Promise<string>>();

/** A player's display name by id (asked once per page; the id's start if unknown). */
function nameOf(playerId: string): Promise<string> {
  let known = names.get(playerId);
  if (!known) {
    known = callAs(PLAYER_SERVICE, "GetPlayer", { player_id: playerId }, "")
      .then((reply) => present(reply.player, "player").name, () => playerId.slice(0, 8));
    names.set(playerId, known);
  }
  return known;
}

const STATUS_WORDS: Record<string, string> = {
  LOBBY_TABLE_STATUS_OPEN: "waiting for players",
  LOBBY_TABLE_STATUS_STARTED: "started",
  LOBBY_TABLE_STATUS_CLOSED: "closed (its host left)",
  LOBBY_TABLE_STATUS_FAILED: "its game could not be created",
};

export function TablePage({ tableId, account, enter }: {
  tableId: string; account: Account; enter: (seated: Seated) => void;
}) {
  const rulesets = useRulesets();
  const [table, setTable] = useState<LobbyTable | null>(null);
  const [seen, setSeen] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    callAs(LOBBY_SERVICE, "GetTable", { table_id: tableId }, account.credential).then((reply) => {
      if (!live) return;
      const got = present(reply.table, "table");
      setTable(got);
      for (const seat of got.seats) {
        if (seat.player_id) void nameOf(seat.player_id).then((name) => live && setSeen((was) => ({ ...was, [seat.player_id]: name })));
      }
    }, (error: unknown) => {
      if (error instanceof Refusal) setRefusal(error); else throw error;
    });
    return () => { live = false; };
  }, [tableId, tick]);

  const waiting = table?.status === "LOBBY_TABLE_STATUS_OPEN" || (table?.status === "LOBBY_TABLE_STATUS_STARTED" && !table.game_id);
  useEffect(() => {
    if (!waiting) return undefined;
    const timer = window.setTimeout(() => setTick((n) => n + 1), 2000);
    return () => window.clearTimeout(timer);
  }, [waiting, tick]);

  /** JoinTable, LeaveTable or StartTable (`fields` besides the table's id); the reply is
   * the table after it. */
  const act = async <M extends "JoinTable" | "LeaveTable" | "StartTable">(
    method: M, fields: Omit<RequestOf<PathOf<typeof LOBBY_SERVICE, M>>, "table_id">,
  ) => {
    setRefusal(null);
    try {
      const body = { table_id: tableId, ...fields } as RequestOf<PathOf<typeof LOBBY_SERVICE, M>>;
      const reply = await callAs(LOBBY_SERVICE, method, body, account.credential);
      setTable(present(reply.table, "table"));
      setTick((n) => n + 1);
    } catch (error) {
      if (error instanceof Refusal) setRefusal(error); else throw error;
    }
  };

  if (!table) return <section id="table-page" class="panel"><Refused refusal={refusal} /><p class="muted">Loading the table…</p></section>;
  const mine = seatAt(table, account.player_id);
  const open = table.status === "LOBBY_TABLE_STATUS_OPEN";
  const host = table.host_player_id === account.player_id;
  return (
    <section id="table-page" class="panel">
      <h2>{titleOf(rulesets, table.ruleset)} table</h2>
      <p class="facts">
        <span>status <b id="table-status">{STATUS_WORDS[table.status] ?? table.status}</b></span>
        <span>{table.rated ? "rated" : "casual"}</span>
        {table.failure && <span>reason <b>{table.failure}</b></span>}
      </p>
      {open && <p class="muted">Invite players with this page's link: it names the table, never your credential.</p>}
      <Refused refusal={refusal} />
      <ul id="table-seats" class="seats" aria-label="Seats">
        {table.seats.map((seat) => (
          <li key={seat.seat} class={seat.seat === mine ? "you" : undefined}>
            <span class="seat-index">{seat.seat}</span>
            <span class="seat-name">
              {seat.player_id ? (seen[seat.player_id] ?? "…") : seat.bot ? "bot" : "free"}
            </span>
            <span class="seat-tags">{[seat.player_id === table.host_player_id ? "host" : "", seat.seat === mine ? "you" : ""].filter(Boolean).join(" · ")}</span>
            {open && mine === null && !seat.player_id && !seat.bot && (
              <button type="button" data-sit={String(seat.seat)} onClick={() => void act("JoinTable", { seat: seat.seat })}>Sit here</button>
            )}
          </li>
        ))}
      </ul>
      <div class="table-buttons">
        {table.game_id && (
          <button id="open-table-game" type="button" class="primary"
            onClick={() => enter({ gameId: table.game_id, seat: mine, token: mine === null ? "" : account.credential })}>
            {mine === null ? "Watch the game" : "Play the game"}
          </button>
        )}
        {open && mine !== null && <button id="leave-table" type="button" onClick={() => void act("LeaveTable", {})}>
          {host ? "Close the table" : "Stand up"}</button>}
        {open && host && !table.rated && (
          <button id="start-table" type="button" onClick={() => void act("StartTable", { fill_with_bots: true })}>Start now, bots in the free seats</button>
        )}
        <a class="button" href="#me">Back to your games</a>
      </div>
    </section>
  );
}
