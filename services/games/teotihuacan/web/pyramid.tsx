// The pyramid drawn from the view: the printed 8x8 grid of icons, every placed tile at
// its level (a level-L tile covers grid squares 2r+L-1..2r+L, components.json
// "geometry") turned by its rotation, and the tiles on offer. A construction step is made
// here: choose a tile on offer, click a highlighted slot, rotate the tile among the
// rotations the server allows there, and place it (RULES.md §3, Construction).

import { useState } from "preact/hooks";
import type { Move, TeoView } from "./model";
import { costWords } from "./model";

const CELL = 10;
const ICON_FILL: Record<string, string> = { b: "#2e6fb7", r: "#c0392b", g: "#2e8b57" };
const QUADRANTS: [number, number][] = [[0, 0], [1, 0], [1, 1], [0, 1]]; // TL, TR, BR, BL

interface Slot { level: number; row: number; col: number }

function slotKey(s: Slot): string {
  return `${s.level}-${s.row}-${s.col}`;
}

/** Icons at positions TL, TR, BR, BL of `icons` turned `rotation` quarter turns clockwise
 * (one turn maps [TL,TR,BR,BL] to [BL,TL,TR,BR]). */
export function turned(icons: string, rotation: number): string[] {
  const chars = [...icons];
  return chars.map((_, i) => chars[(i - rotation + 8) % 4] ?? "-");
}

function Tile({ icons, slot, rotation, preview }: { icons: string; slot: Slot; rotation: number; preview?: boolean }) {
  const x = (2 * slot.col + slot.level - 1) * CELL;
  const y = (2 * slot.row + slot.level - 1) * CELL;
  const faces = turned(icons, rotation);
  return (
    <g class={preview ? "teo-tile teo-preview" : "teo-tile"} data-level={String(slot.level)}>
      <rect x={x + 0.6} y={y + 0.6} width={2 * CELL} height={2 * CELL} rx="1.5" fill="#00000055" />
      <rect x={x} y={y} width={2 * CELL} height={2 * CELL} rx="1.5"
        fill={["#efe3c4", "#e2d0a4", "#d4bd86", "#c7aa6b"][slot.level - 1] ?? "#efe3c4"}
        stroke={preview ? "#e2a23b" : "#6b5536"} stroke-width={preview ? 1.2 : 0.5} />
      {faces.map((icon, i) => {
        const [dx, dy] = QUADRANTS[i] ?? [0, 0];
        const fill = ICON_FILL[icon.toLowerCase()];
        if (!fill) return null;
        const cx = x + dx * CELL + CELL / 2;
        const cy = y + dy * CELL + CELL / 2;
        return icon === icon.toUpperCase()
          ? <rect key={i} x={cx - 3.2} y={cy - 3.2} width="6.4" height="6.4" rx="1" fill={fill} stroke="#fff" stroke-width="0.8" />
          : <circle key={i} cx={cx} cy={cy} r="2.8" fill={fill} />;
      })}
      <text x={x + 2 * CELL - 1.2} y={y + 2 * CELL - 1.2} class="teo-level">{slot.level}</text>
    </g>
  );
}

function PrintedGrid({ grid }: { grid: string[] }) {
  return (
    <g aria-hidden="true">
      {grid.flatMap((row, r) => [...row].map((icon, c) => (
        <g key={`${r}-${c}`}>
          <rect x={c * CELL} y={r * CELL} width={CELL} height={CELL} fill="#b9a57c" stroke="#8f7b53" stroke-width="0.3" />
          {ICON_FILL[icon] && <circle cx={c * CELL + CELL / 2} cy={r * CELL + CELL / 2} r="2" fill={ICON_FILL[icon]} opacity="0.55" />}
        </g>
      )))}
    </g>
  );
}

function slotOf(move: Move): Slot {
  return { level: Number(move.action["level"]), row: Number(move.action["row"]), col: Number(move.action["col"]) };
}

/** The offered tile face as a small button-like picture (also used by the choice panel). */
export function TileFace({ icons, rotation = 0, label }: { icons: string; rotation?: number; label: string }) {
  const faces = turned(icons, rotation);
  return (
    <svg viewBox="0 0 20 20" class="teo-face" role="img" aria-label={label}>
      <rect width="20" height="20" rx="2" fill="#efe3c4" stroke="#6b5536" stroke-width="0.6" />
      {faces.map((icon, i) => {
        const [dx, dy] = QUADRANTS[i] ?? [0, 0];
        const fill = ICON_FILL[icon.toLowerCase()];
        if (!fill) return null;
        return icon === icon.toUpperCase()
          ? <rect key={i} x={dx * 10 + 1.8} y={dy * 10 + 1.8} width="6.4" height="6.4" rx="1" fill={fill} />
          : <circle key={i} cx={dx * 10 + 5} cy={dy * 10 + 5} r="2.8" fill={fill} />;
      })}
    </svg>
  );
}

function iconWords(icons: string): string {
  const names: Record<string, string> = { b: "blue", r: "red", g: "green" };
  const shown = [...icons].filter((c) => c !== "-").map((c) => (c === c.toUpperCase() ? `big ${names[c.toLowerCase()]}` : names[c]));
  return shown.length ? shown.join(", ") : "no icons";
}

/** The decorations placed on the pyramid's sides and those on offer, by their icons. */
function Decorations({ view }: { view: TeoView }) {
  const icons = (t: number) => iconWords(view.printed.decoration_tiles[String(t)] ?? "--");
  return (
    <p class="teo-small teo-decorations">
      Decorations: {view.decorations.length
        ? view.decorations.map(([side, step, t]) => `${side} side step ${step} (${icons(t)})`).join("; ")
        : "none placed yet"}
      {view.decoration_offer.length > 0 && ` · on offer: ${view.decoration_offer.map(icons).join("; ")}`}
    </p>
  );
}

export function Pyramid({ view, moves, submit }: { view: TeoView; moves: Move[]; submit: (json: string) => void }) {
  const placing = moves.filter((m) => m.action["type"] === "place_pyramid_tile");
  const tiles = [...new Set(placing.map((m) => Number(m.action["tile"])))];
  const [tile, setTile] = useState<number | null>(null);
  const [slot, setSlot] = useState<string | null>(null);
  const [turn, setTurn] = useState(0);
  const [discount, setDiscount] = useState<string | null>(null);
  const chosenTile = tile !== null && tiles.includes(tile) ? tile : tiles[0];
  const forTile = placing.filter((m) => Number(m.action["tile"]) === chosenTile);
  const slots = new Map<string, Slot>();
  for (const m of forTile) slots.set(slotKey(slotOf(m)), slotOf(m));
  const atSlot = forTile.filter((m) => slot !== null && slotKey(slotOf(m)) === slot);
  const rotations = [...new Set(atSlot.map((m) => Number(m.action["rotation"])))].sort();
  const rotation = rotations[turn % Math.max(rotations.length, 1)] ?? 0;
  const discounts = [...new Set(atSlot.filter((m) => Number(m.action["rotation"]) === rotation)
    .map((m) => String(m.action["discount"] ?? "")))];
  const chosenDiscount = discount !== null && discounts.includes(discount) ? discount : discounts[0] ?? "";
  const move = atSlot.find((m) => Number(m.action["rotation"]) === rotation
    && String(m.action["discount"] ?? "") === chosenDiscount);
  const icons = (t: number) => view.printed.pyramid_tiles[String(t)] ?? "----";
  const chosenSlot = slot !== null ? slots.get(slot) : undefined;
  const level = chosenSlot ? view.printed.pyramid_levels[chosenSlot.level - 1] : undefined;
  const pick = (key: string) => { setSlot(key); setTurn(0); setDiscount(null); };
  return (
    <section class="teo-pyramid" aria-label="The pyramid">
      <h4>Pyramid <small>{view.pyramid_tiles.length} tiles placed</small></h4>
      <svg viewBox="-1 -1 82 82" class="teo-pyramid-svg" role="group" aria-label="Pyramid grid">
        <PrintedGrid grid={view.printed.pyramid_grid} />
        {[...view.pyramid_tiles].sort((a, b) => a[0] - b[0]).map(([lvl, row, col, t, rot]) => (
          <Tile key={`${lvl}-${row}-${col}`} icons={icons(t)} slot={{ level: lvl, row, col }} rotation={rot} />
        ))}
        {chosenSlot && chosenTile !== undefined && (
          <Tile icons={icons(chosenTile)} slot={chosenSlot} rotation={rotation} preview />
        )}
        {[...slots].map(([key, s]) => {
          if (key === slot) return null;
          const x = (2 * s.col + s.level - 1) * CELL;
          const y = (2 * s.row + s.level - 1) * CELL;
          const label = `Pyramid slot: level ${s.level}, row ${s.row + 1}, column ${s.col + 1}`;
          return (
            <g key={key} class="teo-slot" role="button" tabindex={0} aria-label={label} data-slot={key}
              onClick={() => pick(key)} onKeyDown={(e) => { if (e.key === "Enter" || e.key === " ") pick(key); }}>
              <rect x={x + 0.8} y={y + 0.8} width={2 * CELL - 1.6} height={2 * CELL - 1.6} rx="1.5" />
              <text x={x + CELL} y={y + CELL + 1.6} text-anchor="middle">+</text>
            </g>
          );
        })}
      </svg>
      <div class="teo-offer">
        <span class="teo-small">On offer ({view.pyramid_supply_size ?? "?"} in the bag):</span>
        {view.pyramid_offer.map((t) => {
          const legal = tiles.includes(t);
          const label = `Pyramid tile ${t}: ${iconWords(icons(t))}`;
          return legal
            ? <button key={t} type="button" class={`teo-offer-tile${t === chosenTile ? " teo-chosen" : ""}`}
                aria-pressed={t === chosenTile} aria-label={`Choose ${label}`} data-tile={String(t)}
                onClick={() => { setTile(t); setSlot(null); }}>
                <TileFace icons={icons(t)} label={label} />
              </button>
            : <span key={t} class="teo-offer-tile"><TileFace icons={icons(t)} label={label} /></span>;
        })}
      </div>
      <Decorations view={view} />
      {placing.length > 0 && !chosenSlot && (
        <p class="teo-hint" id="teo-pyramid-hint">Choose a tile on offer, then a highlighted slot of the pyramid.</p>
      )}
      {chosenSlot && move && (
        <div class="teo-place" id="teo-place">
          <TileFace icons={icons(chosenTile ?? 0)} rotation={rotation} label={`the tile turned ${rotation * 90}°`} />
          <span>Level {chosenSlot.level}, row {chosenSlot.row + 1}, column {chosenSlot.col + 1}
            {level && <> · costs {costWords(level.cost)}, {level.vp} VP</>}</span>
          {rotations.length > 1 && (
            <button type="button" id="teo-rotate" aria-label="Rotate the tile a quarter turn clockwise"
              onClick={() => setTurn(turn + 1)}>↻ Rotate</button>
          )}
          {discounts.length > 1 && discounts.map((d) => (
            <button key={d} type="button" aria-pressed={d === chosenDiscount} onClick={() => setDiscount(d)}>
              {d ? `${d} discount` : "no discount"}
            </button>
          ))}
          <button type="button" class="teo-primary" id="teo-place-tile" data-action={move.json}
            aria-label={`Place the tile: ${move.words}`} title={move.words} onClick={() => submit(move.json)}>
            Place the tile
          </button>
          <button type="button" onClick={() => setSlot(null)}>Another slot</button>
        </div>
      )}
    </section>
  );
}
