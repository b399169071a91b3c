// The tracks of the main board drawn from the view: the calendar (round, the light and
// dark markers, eclipses), the three temples, the Avenue of the Dead and the Pyramid
// track with every seat's marker, the technology board and the Nobles' rows. Advancing
// on a temple, taking a technology and building are chosen on the thing they act on.

import type { ComponentChildren } from "preact";
import { count } from "../../../../clients/web/src/words";
import type { Move, TeoView } from "./model";
import { SEAT_COLOURS, TEMPLES, costWords, discoveryWords, ofType } from "./model";

function Markers({ seats, names }: { seats: number[]; names: string[] }) {
  return (
    <>
      {seats.map((s) => (
        <span key={s} class="teo-marker" style={{ background: SEAT_COLOURS[s] ?? "#555" }}
          role="img" aria-label={`${names[s] || `seat ${s}`}'s marker`} />
      ))}
    </>
  );
}

/** One track as a row of steps, each with the markers standing on it. */
function Track({ steps, at, names, label, extra, className }: {
  steps: number; at: (step: number) => number[]; names: string[]; label: (step: number) => string;
  extra?: (step: number) => ComponentChildren; className?: string;
}) {
  return (
    <ol class={`teo-track ${className ?? ""}`}>
      {Array.from({ length: steps }, (_, step) => (
        <li key={step} data-step={String(step)} title={label(step)}>
          <span class="teo-step-num">{step}</span>
          <Markers seats={at(step)} names={names} />
          {extra?.(step)}
        </li>
      ))}
    </ol>
  );
}

function rewardWords(reward: Record<string, number> | null | undefined): string {
  if (!reward) return "";
  return Object.entries(reward).map(([k, n]) => `${n} ${k.replace("resource_any", "resource").replace("vp", "VP")}`).join(", ");
}

export function Calendar({ view }: { view: TeoView }) {
  const cells = Math.max(view.dark, 1);
  return (
    <section class="teo-calendar" aria-label="The calendar">
      <h4>Calendar <small>round {view.round + 1} · {count(view.eclipses, "eclipse")} scored
        {view.final_eclipse ? " · the next eclipse is the last" : ""}
        {view.eclipse_countdown ? ` · eclipse in ${count(view.eclipse_countdown, "round end")}` : ""}</small></h4>
      <ol class="teo-track teo-days" aria-label={`light marker on ${view.light}, dark marker on ${view.dark}`}>
        {Array.from({ length: cells + 1 }, (_, day) => (
          <li key={day} class={day === view.light ? "teo-light" : day === view.dark ? "teo-dark" : undefined}>
            {day === view.light ? "☀" : day === view.dark ? "●" : ""}
          </li>
        ))}
      </ol>
      <p class="teo-small" id="teo-calendar-words">The eclipse comes when the light marker ☀ meets the dark one ●.</p>
    </section>
  );
}

export function Temples({ view, names, moves, submit }: {
  view: TeoView; names: string[]; moves: Move[]; submit: (json: string) => void;
}) {
  const advances = ofType(moves, "advance_temple", "royal_temple");
  return (
    <section class="teo-temples" aria-label="The temples">
      <h4>Temples</h4>
      {TEMPLES.map((temple, t) => {
        const move = advances.find((m) => m.action["temple"] === temple);
        const bonus = view.printed.temple_bonus_tiles[t];
        return (
          <div key={temple} class={`teo-temple t-${temple}${move ? " teo-legal" : ""}`} data-temple={temple}>
            <div class="teo-temple-head">
              <b>{temple[0]?.toUpperCase()}{temple.slice(1)} temple</b>
              {bonus && <span class="teo-small" title="temple bonus tile (step 10)">bonus: {bonus}</span>}
              {move && (
                <button type="button" class="teo-act" data-action={move.json} title={move.words}
                  aria-label={`Advance on the ${temple} temple: ${move.words}`} onClick={() => submit(move.json)}>
                  Advance here
                </button>
              )}
            </div>
            <Track steps={12} names={names} className="teo-temple-track"
              at={(step) => view.players.map((p, s) => (p.temples[t] === step ? s : -1)).filter((s) => s >= 0)}
              label={(step) => rewardWords(view.printed.temple_steps[temple]?.[step]) || (step === 10 ? "bonus tile" : "")}
              extra={(step) => ((view.temple_discoveries[t]?.[step]?.length ?? 0) > 0
                ? <span class="teo-disc-dot" title="discovery tiles here">◆{view.temple_discoveries[t]?.[step]?.length}</span> : null)} />
          </div>
        );
      })}
    </section>
  );
}

export function Avenue({ view, names }: { view: TeoView; names: string[] }) {
  return (
    <section class="teo-avenue" aria-label="The Avenue of the Dead and the Pyramid track">
      <h4>Avenue of the Dead <small>{view.avenue_value} VP a step at an eclipse</small></h4>
      <Track steps={10} names={names}
        at={(step) => view.players.map((p, s) => (p.avenue === step ? s : -1)).filter((s) => s >= 0)}
        label={(step) => `step ${step}`}
        extra={(step) => ((view.avenue_discoveries[step]?.length ?? 0) > 0
          ? <span class="teo-disc-dot" title={(view.avenue_discoveries[step] ?? [])
              .map((d) => discoveryWords(view.printed.discoveries[String(d)])).join(", ")}>◆{view.avenue_discoveries[step]?.length}</span>
          : null)} />
      <h4>Pyramid track</h4>
      <Track steps={11} names={names}
        at={(step) => view.players.map((p, s) => (p.pyramid === step ? s : -1)).filter((s) => s >= 0)}
        label={(step) => `step ${step}`} />
    </section>
  );
}

export function Technologies({ view, names, moves, submit }: {
  view: TeoView; names: string[]; moves: Move[]; submit: (json: string) => void;
}) {
  const takes = ofType(moves, "choose_technology");
  return (
    <section class="teo-techs" aria-label="The technologies (Alchemy)">
      <h4>Technologies <small>Alchemy</small></h4>
      <ol class="teo-tech-list">
        {view.printed.technologies.map((tech, slot) => {
          const move = takes.find((m) => Number(m.action["slot"]) === slot);
          const owners = view.players.map((p, s) => (p.technologies.includes(slot) ? s : -1)).filter((s) => s >= 0);
          return (
            <li key={slot} class={`teo-tech${move ? " teo-legal" : ""}`} data-slot={String(slot)}>
              <b>#{tech.number}</b> <span class="teo-small">{tech.cost_gold} gold</span>
              <Markers seats={owners} names={names} />
              <span class="teo-tech-text">{tech.text}</span>
              {move && (
                <button type="button" class="teo-act" data-action={move.json} title={move.words}
                  aria-label={`Take technology #${tech.number}: ${move.words}`} onClick={() => submit(move.json)}>
                  Take it
                </button>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

export function Nobles({ view, moves, submit }: { view: TeoView; moves: Move[]; submit: (json: string) => void }) {
  const builds = ofType(moves, "build");
  return (
    <section class="teo-nobles" aria-label="The Nobles' rows">
      <h4>Nobles <small>{count(view.buildings_taken, "building")} taken</small></h4>
      {(["top", "middle", "bottom"] as const).map((row, r) => {
        const move = builds.find((m) => m.action["row"] === row);
        const built = view.nobles_built?.[r]
          ?? Array.from({ length: view.nobles_rows[r] ?? 0 }, (_, i) => i);
        return (
          <div key={row} class={`teo-noble-row${move ? " teo-legal" : ""}`} data-row={row}>
            <span class="teo-small">{row}</span>
            {(view.printed.nobles_rows[r] ?? []).map((vp, i) => (
              <span key={i} class={built.includes(i) ? "teo-building teo-built" : "teo-building"}
                title={built.includes(i) ? "built" : `${vp} VP`}>{built.includes(i) ? "▲" : vp}</span>
            ))}
            {move && (
              <button type="button" class="teo-act" data-action={move.json} title={move.words}
                aria-label={`Build on the ${row} row: ${move.words}`} onClick={() => submit(move.json)}>Build</button>
            )}
          </div>
        );
      })}
      {view.printed.pyramid_levels.length > 0 && (
        <p class="teo-small">Pyramid levels cost {view.printed.pyramid_levels.map((l) => `L${l.level} ${costWords(l.cost)}`).join(" · ")}</p>
      )}
    </section>
  );
}
