// The eight action boards in rondel order, each with the workers standing there (their
// colour and power; a worker on the worship space is drawn there) and the discovery tile
// of its worship area. Moving is done here: click one of your workers, and the boards the
// server lets it reach light up with a "Move here" button (RULES.md §2, Move a worker).

import type { Move, TeoView, Worker } from "./model";
import { SEAT_COLOURS, boardName, discoveryWords, moveTarget } from "./model";

const PALACE = 1;

const MAIN_ACTION: Record<number, string> = {
  1: "no main action; 3 worship spaces with royal tiles",
  2: "harvest wood", 3: "harvest stone", 4: "harvest gold",
  5: "acquire a technology", 6: "build on the Avenue (Nobles)",
  7: "place a decoration", 8: "place pyramid tiles",
};

export interface Selection { worker: number | null; choose: (worker: number | null) => void }

function Die({ worker, colour, label }: { worker: Worker; colour: string; label: string }) {
  return <span class="teo-die" style={{ background: colour }} role="img" aria-label={label}>{worker.power}</span>;
}

function Neutral({ colour }: { colour: number }) {
  return <span class="teo-die teo-neutral" role="img" aria-label={`neutral worker (colour ${colour})`}>·</span>;
}

/** A worker button of the seat: selects it, so its destinations light up. */
function OwnWorker({ worker, index, view, colour, selected, choose }: {
  worker: Worker; index: number; view: TeoView; colour: string; selected: boolean; choose: (w: number | null) => void;
}) {
  const label = `Your worker ${index + 1} on ${boardName(view, worker.board)}, power ${worker.power}: `
    + (selected ? "chosen, now choose where it goes" : "choose it to move it");
  return (
    <button type="button" class={`teo-die teo-own${selected ? " teo-chosen" : ""}`} data-worker={String(index)}
      aria-pressed={selected} aria-label={label} onClick={() => choose(selected ? null : index)}
      style={{ background: colour }}>
      {worker.power}
    </button>
  );
}

export function Rondel({ view, seat, names, moves, selection, submit }: {
  view: TeoView; seat: number | null; names: string[]; moves: Move[]; selection: Selection;
  submit: (json: string) => void;
}) {
  const moving = moves.filter((m) => m.action["type"] === "move" || m.action["type"] === "teleport");
  const movable = new Set(moving.map((m) => Number(m.action["worker"])));
  const chosen = selection.worker !== null && movable.has(selection.worker) ? selection.worker : null;
  const targets = new Map<number, Move[]>();
  if (chosen !== null && seat !== null) {
    for (const m of moving.filter((mv) => Number(mv.action["worker"]) === chosen)) {
      const to = moveTarget(view, seat, m);
      if (to !== undefined) targets.set(to, [...(targets.get(to) ?? []), m]);
    }
  }
  const from = chosen !== null && seat !== null ? view.players[seat]?.workers[chosen]?.board : undefined;
  return (
    <section class="teo-rondel" aria-label="The action boards">
      <h4>Action boards {movable.size > 0 && <small>{chosen === null
        ? "— choose one of your workers to move"
        : "— choose a highlighted board"}</small>}</h4>
      <ol class="teo-boards">
        {view.rondel.map((board, position) => {
          const here = targets.get(board) ?? [];
          const discovery = view.worship_discoveries[board] ?? -1;
          return (
            <li key={board} data-board={String(board)}
              class={`teo-boardcard b-${board}${here.length ? " teo-legal" : ""}${board === from ? " teo-from" : ""}`}>
              <div class="teo-board-head">
                <span class="teo-board-num">{position + 1}</span>
                <b>{boardName(view, board)}</b>
              </div>
              <span class="teo-small">{MAIN_ACTION[board] ?? ""}</span>
              {board === PALACE && view.printed.royal_tiles.length > 0 && (
                <ol class="teo-royal" aria-label="royal tiles of the worship spaces">
                  {view.printed.royal_tiles.map((text, space) => (
                    <li key={space} class="teo-small" title={text}>{space + 1}. {text}</li>
                  ))}
                </ol>
              )}
              <div class="teo-workers">
                {view.players.flatMap((p, s) => p.workers.map((w, i) => {
                  if (w.board !== board || w.locked) return null;
                  if (s === seat && movable.has(i)) {
                    return <OwnWorker key={`${s}-${i}`} worker={w} index={i} view={view} selected={chosen === i}
                      colour={SEAT_COLOURS[s] ?? "#555"}
                      choose={selection.choose} />;
                  }
                  return <Die key={`${s}-${i}`} worker={w} colour={SEAT_COLOURS[s] ?? "#555"}
                    label={`${names[s] || `seat ${s}`}'s worker, power ${w.power}`} />;
                }))}
                {view.neutral_workers.filter(([, b]) => b === board).map(([colour], i) => <Neutral key={`n${i}`} colour={colour} />)}
              </div>
              <div class="teo-worship" aria-label="worship area">
                {view.players.flatMap((p, s) => p.workers.map((w, i) => (w.board === board && w.locked
                  ? <Die key={`l${s}-${i}`} worker={w} colour={SEAT_COLOURS[s] ?? "#555"}
                      label={`${names[s] || `seat ${s}`}'s worker worshipping, power ${w.power}`} />
                  : null)))}
                {discovery >= 0 && (
                  <span class="teo-disc" title="discovery tile of the worship area">
                    ◆ {discoveryWords(view.printed.discoveries[String(discovery)])}
                  </span>
                )}
              </div>
              {here.map((m) => (
                <button key={m.json} type="button" class="teo-act" data-action={m.json} title={m.words}
                  aria-label={`Move your worker from ${boardName(view, from ?? 0)} to ${boardName(view, board)}: ${m.words}`}
                  onClick={() => { selection.choose(null); submit(m.json); }}>
                  {m.action["type"] === "teleport" ? "Teleport here"
                    : m.action["with_workers"] ? "Move here, with others" : "Move here"}
                </button>
              ))}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
