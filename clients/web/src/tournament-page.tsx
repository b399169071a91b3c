// One tournament (#tournament=<id>, a link to share): standings and the pairings of
// every round, redrawn as its log grows (WatchTournament over server-sent events, each
// event answered by reading the tournament again), the signed-in player's "your game is
// ready" with the way to it, and entering or withdrawing.

import { useEffect, useRef, useState } from "preact/hooks";
import { Refusal, present } from "./api";
import type { Seated } from "./lobby";
import { type Account, TOURNAMENT_SERVICE, type Tournament, type TournamentTable, callAs } from "./player";
import { titleOf, useRulesets } from "./rulesets";
import { type FollowState, follow } from "./stream";
import { Refused } from "./table-view";

/** Points as people write them: 2, 1.5, 0.25 (no float noise). */
export function points(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** Short column heads for the usual tie-breaks (the full name in the abbr's title), so
 * the standings fit a phone. */
const SHORT: Record<string, string> = { buchholz: "Buch.", sonneborn_berger: "SB", wins: "Wins" };

/** The signed-in player's unfinished table of the last round, with their seat, or null. */
function readyFor(tournament: Tournament, me: string): { table: TournamentTable; seat: number } | null {
  const round = tournament.rounds[tournament.rounds.length - 1];
  for (const table of round?.tables ?? []) {
    const seat = table.players.indexOf(me);
    if (seat >= 0 && !table.finished) return { table, seat };
  }
  return null;
}

function Pairings({ tournament, me }: { tournament: Tournament; me: string }) {
  return (
    <section class="panel" aria-labelledby="rounds-title">
      <h3 id="rounds-title">Rounds</h3>
      {!tournament.rounds.length && <p class="muted">Not paired yet.</p>}
      {tournament.rounds.slice().reverse().map((round) => (
        <div key={round.round} class="round" data-round={String(round.round)}>
          <h4>Round {round.round} {round.finished ? "(finished)" : "(playing)"}</h4>
          <ul class="pairings">
            {round.tables.map((table) => (
              <li key={table.table} class={table.players.includes(me) ? "you" : undefined}>
                <span class="muted">table {table.table}</span>{" "}
                {table.players.map((p, i) => `${p}${table.finished && table.places[i] ? ` (${table.places[i]})` : ""}`).join(" · ")}{" "}
                <a href={`#game=${table.game_id}`} aria-label={`watch round ${round.round} table ${table.table}`}>
                  {table.finished ? "see" : "watch"}
                </a>
              </li>
            ))}
            {round.byes.length > 0 && <li class="muted">bye: {round.byes.join(", ")}</li>}
          </ul>
        </div>
      ))}
    </section>
  );
}

function Standings({ tournament, me }: { tournament: Tournament; me: string }) {
  return (
    <section class="panel" aria-labelledby="standings-title">
      <h3 id="standings-title">Standings</h3>
      <div class="scroll-x">
        <table id="standings" class="grid-table">
          <thead>
            <tr>
              <th scope="col">#</th><th scope="col">Player</th><th scope="col"><abbr title="points">Pts</abbr></th>
              <th scope="col"><abbr title="rounds played">Rds</abbr></th>
              {tournament.tiebreaks.map((name) => (
                <th key={name} scope="col"><abbr title={name.replace(/_/g, " ")}>{SHORT[name] ?? name.replace(/_/g, " ")}</abbr></th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tournament.standings.map((row) => (
              <tr key={row.player} class={row.player === me ? "you" : undefined} data-player={row.player}>
                <td>{row.rank}</td>
                <td>{row.player}{row.withdrawn && <span class="muted"> (withdrew)</span>}</td>
                <td class="num">{points(row.points)}</td>
                <td class="num">{row.rounds_played}{row.byes ? ` +${row.byes} bye` : ""}</td>
                {row.tiebreaks.map((value, i) => <td key={i} class="num">{points(value)}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function TournamentPage({ tournamentId, account, enter }: {
  tournamentId: string; account: Account | null; enter: (seated: Seated) => void;
}) {
  const rulesets = useRulesets();
  const [tournament, setTournament] = useState<Tournament | null>(null);
  const [stream, setStream] = useState<FollowState>("following");
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const pending = useRef<number | undefined>(undefined);

  const read = async () => {
    try {
      const reply = await callAs(TOURNAMENT_SERVICE, "GetTournament", { tournament_id: tournamentId }, "");
      const tournament = present(reply.tournament, "tournament");
      setTournament(tournament);
      return tournament;
    } catch (error) {
      if (error instanceof Refusal) { setRefusal(error); return null; }
      throw error;
    }
  };

  useEffect(() => {
    const stop = new AbortController();
    void read().then((first) => {
      if (!first || stop.signal.aborted) return;
      if (first.status === "finished") { setStream("over"); return; } // its log grows no more
      let after = Number(first.version);
      void follow(`${TOURNAMENT_SERVICE}WatchTournament`, "", stop.signal, {
        body: () => ({ tournament_id: tournamentId, after_version: after }),
        message: (data) => {
          after = Math.max(after, Number(data.event?.version ?? 0));
          // A burst of events (a round pairing its tables) is read once.
          window.clearTimeout(pending.current);
          pending.current = window.setTimeout(() => void read(), 150);
        },
        state: (state) => { setStream(state); if (state === "over") void read(); },
        refused: setRefusal,
      });
    });
    return () => { stop.abort(); window.clearTimeout(pending.current); };
  }, [tournamentId]);

  if (!tournament) return <section class="panel"><Refused refusal={refusal} /><p class="muted">Loading the tournament…</p></section>;
  const entry = account ? tournament.players.find((p) => p.player_id === account.player_id) : undefined;
  const me = entry?.name ?? "";
  const ready = me ? readyFor(tournament, me) : null;
  const enterOrLeave = async (method: "RegisterPlayer" | "WithdrawPlayer") => {
    if (!account) return;
    setRefusal(null);
    try {
      const reply = await callAs(TOURNAMENT_SERVICE, method,
        { tournament_id: tournamentId, player: me || account.name }, account.credential);
      setTournament(present(reply.tournament, "tournament"));
    } catch (error) {
      if (error instanceof Refusal) setRefusal(error); else throw error;
    }
  };
  return (
    <div id="tournament" class="tournament">
      <section class="panel">
        <h2 id="tournament-name">{tournament.config?.name}</h2>
        <p class="facts">
          <span>{titleOf(rulesets, tournament.config?.ruleset ?? "")}</span>
          <span>status <b id="tournament-status">{tournament.status}</b></span>
          <span>{tournament.players.length} players</span>
          <span>round <b>{tournament.rounds.length}</b> of {tournament.config?.rounds}</span>
          <span id="tournament-stream" class="muted" data-state={stream}>({stream === "over" ? "final" : stream})</span>
        </p>
        <Refused refusal={refusal} />
        {ready && (
          <p id="your-game" class="banner yours" role="status">
            Your game is ready: round {tournament.rounds.length}, table {ready.table.table}.{" "}
            <a id="your-game-link" class="button primary" href={`#game=${ready.table.game_id}&seat=${ready.seat}`}
              onClick={(e) => {
                e.preventDefault();
                if (account) enter({ gameId: ready.table.game_id, seat: ready.seat, token: account.credential });
              }}>Play it</a>
          </p>
        )}
        <div class="table-buttons">
          {!account && tournament.status === "registering" && <a class="button" href="#me">Sign in to enter</a>}
          {account && !entry && tournament.status === "registering" && (
            <button id="register-tournament" type="button" class="primary" onClick={() => void enterOrLeave("RegisterPlayer")}>Enter as {account.name}</button>
          )}
          {account && entry && !entry.withdrawn && tournament.status !== "finished" && (
            <button id="withdraw-tournament" type="button" onClick={() => void enterOrLeave("WithdrawPlayer")}>Withdraw</button>
          )}
          <a class="button" href="#tournaments">All tournaments</a>
        </div>
      </section>
      <div class="home-grid">
        <Standings tournament={tournament} me={me} />
        <Pairings tournament={tournament} me={me} />
      </div>
    </div>
  );
}
