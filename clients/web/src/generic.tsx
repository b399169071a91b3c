// The board of a game that has none of its own: the seat's view as facts (its plain
// values at the top level: "pile 12", "round 3") so a person sees the state without
// reading JSON. Nested parts stay in the JSON view below the actions.

import type { BoardProps } from "./boards";

type Fact = [string, string];

function facts(view: unknown): Fact[] {
  if (!view || typeof view !== "object" || Array.isArray(view)) return [];
  const shown: Fact[] = [];
  for (const [key, value] of Object.entries(view as Record<string, unknown>)) {
    const words = key.replace(/_/g, " ");
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      shown.push([words, value === null ? "—" : String(value)]);
    } else if (Array.isArray(value) && value.length <= 8
        && value.every((v) => ["string", "number", "boolean"].includes(typeof v))) {
      shown.push([words, value.length ? value.join(", ") : "none"]);
    }
  }
  return shown;
}

export function GenericBoard({ view }: BoardProps) {
  const shown = facts(view);
  if (!shown.length) return null;
  return (
    <details class="glance" open>
      <summary>The game at a glance</summary>
      <dl class="facts-board">
        {shown.map(([key, value]) => (
          <div key={key}><dt>{key}</dt><dd>{value}</dd></div>
        ))}
      </dl>
    </details>
  );
}
