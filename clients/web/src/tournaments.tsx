// #tournaments: every tournament (ListTournaments) with a link to its page, and a
// ruleset's leaderboard (RatingService.GetRatingLeaderboard) as people read ratings:
// rank, the rating rounded (mu − 3σ, as the service shows it), rated games played.

import { useEffect, useState } from "preact/hooks";
import { Refusal } from "./api";
import { RATING_SERVICE, type RatedPlayer, TOURNAMENT_SERVICE, type TournamentSummary, callAs } from "./player";
import { defaultRuleset, titleOf, useRulesets } from "./rulesets";
import { Refused } from "./table-view";

const STATUS_WORDS: Record<string, string> = { registering: "open for entries", running: "playing", finished: "finished" };

function Leaderboard() {
  const rulesets = useRulesets();
  const [ruleset, setRuleset] = useState("");
  const [rows, setRows] = useState<RatedPlayer[]>([]);
  const [total, setTotal] = useState(0);
  const chosen = ruleset || defaultRuleset(rulesets);
  useEffect(() => {
    if (!chosen) return;
    callAs(RATING_SERVICE, "GetRatingLeaderboard", { ruleset: chosen, page_size: 50 }, "")
      .then((reply) => { setRows(reply.players ?? []); setTotal(reply.total ?? 0); }, (error: unknown) => {
        if (!(error instanceof Refusal)) throw error;
        setRows([]);
      });
  }, [chosen]);
  return (
    <section class="panel" aria-labelledby="leaderboard-title">
      <h2 id="leaderboard-title">Leaderboard</h2>
      <label class="wide">Game
        <select id="leaderboard-ruleset" value={chosen} onChange={(e) => setRuleset((e.target as HTMLSelectElement).value)}>
          {rulesets.map((r) => <option key={r.name} value={r.name}>{r.title || r.name}</option>)}
        </select>
      </label>
      {rows.length ? (
        <table id="leaderboard" class="grid-table">
          <caption class="sr-only">{titleOf(rulesets, chosen)} ratings</caption>
          <thead><tr><th scope="col">#</th><th scope="col">Player</th><th scope="col">Rating</th><th scope="col">Games</th></tr></thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.player_id}:${row.name}`}>
                <td>{row.rank}</td>
                <td>{row.name}{row.bot && <span class="muted"> (bot)</span>}</td>
                <td class="num">{row.rating?.rating}</td>
                <td class="num">{row.rating?.games}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <p class="muted">Nobody is rated in this game yet.</p>}
      {total > rows.length && <p class="muted">The best {rows.length} of {total}.</p>}
      <p class="muted small">A rating is the conservative estimate (skill minus three uncertainties): it starts at 0 and rises as games are played.</p>
    </section>
  );
}

export function Tournaments() {
  const rulesets = useRulesets();
  const [listed, setListed] = useState<TournamentSummary[] | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  useEffect(() => {
    callAs(TOURNAMENT_SERVICE, "ListTournaments", { page_size: 100 }, "")
      .then((reply) => setListed((reply.tournaments ?? []).slice().reverse()), (error: unknown) => {
        if (error instanceof Refusal) setRefusal(error); else throw error;
      });
  }, []);
  return (
    <div class="home-grid">
      <section class="panel" aria-labelledby="tournaments-title">
        <h2 id="tournaments-title">Tournaments</h2>
        <Refused refusal={refusal} />
        <ul id="tournaments" class="games">
          {listed && !listed.length && <li class="muted">No tournament yet.</li>}
          {(listed ?? []).map((t) => (
            <li key={t.tournament_id} class="game-card">
              <div class="game-card-head">
                <a href={`#tournament=${t.tournament_id}`} data-tournament={t.tournament_id}>{t.name}</a>
                <span>{titleOf(rulesets, t.ruleset)}</span>
                <span class="badge">{STATUS_WORDS[t.status] ?? t.status}</span>
              </div>
              <p class="muted">{t.players} players · {t.rounds_paired} rounds paired</p>
            </li>
          ))}
        </ul>
      </section>
      <Leaderboard />
    </div>
  );
}
