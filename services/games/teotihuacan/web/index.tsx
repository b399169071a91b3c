// Teotihuacan's board (issue 33): the city drawn from the seat's view (the game's `view`,
// services/games/teotihuacan/rules/describe.py, with the printed faces of the components
// in view from rules/drawing.py; never the internal state): the calendar, the eight
// action boards with every worker and its power, the temples, the Avenue of the Dead and
// the Pyramid track, the pyramid with its tiles turned as placed, the technologies and
// the Nobles, each seat's player board and Teotibot in a solo game. The seat's legal
// moves are made on the board: a worker then a destination, a pyramid slot then a
// rotation, a temple, a technology, a row of Nobles; the others in the choice panel in
// the game's words. Moves the board cannot show stay in the page's list (table-view.tsx).

import { useState } from "preact/hooks";
import type { BoardProps } from "../../../../clients/web/src/boards";
import { registerBoard, registerQuietEvents } from "../../../../clients/web/src/boards";
import { isView, parseMoves } from "./model";
import { Choices, PlayerBoards, Teotibot } from "./players";
import { Pyramid } from "./pyramid";
import { Rondel } from "./rondel";
import { TEO_CSS } from "./style";
import { Avenue, Calendar, Nobles, Technologies, Temples } from "./tracks";

export function TeotihuacanBoard(props: BoardProps) {
  const [worker, setWorker] = useState<number | null>(null);
  const view = props.view;
  if (!isView(view)) return null;
  const moves = parseMoves(props.actions);
  const names = props.game.seats.map((s) => s.name);
  const submit = props.submit;
  return (
    <section id="teo-board" class="teo-board" aria-label="The city of Teotihuacan"
      data-version={String(props.game.version)}>
      <style>{TEO_CSS}</style>
      <Calendar view={view} />
      <Choices view={view} seat={props.seat} moves={moves} submit={submit} />
      <Rondel view={view} seat={props.seat} names={names} moves={moves}
        selection={{ worker, choose: setWorker }} submit={submit} />
      <div class="teo-middle">
        {/* Keyed by version: a half-made construction choice starts over after any move. */}
        <Pyramid key={props.game.version} view={view} moves={moves} submit={submit} />
        <div class="teo-side">
          <Temples view={view} names={names} moves={moves} submit={submit} />
          <Avenue view={view} names={names} />
        </div>
      </div>
      <div class="teo-lower">
        <Technologies view={view} names={names} moves={moves} submit={submit} />
        <Nobles view={view} moves={moves} submit={submit} />
      </div>
      <Teotibot view={view} />
      <PlayerBoards view={view} names={names} you={props.seat} />
    </section>
  );
}

registerBoard("teotihuacan", TeotihuacanBoard);
// The rules' own bookkeeping: the order of the steps to come, the offers refilled (each
// shows on the board); kept in the log with their JSON, without a sentence.
registerQuietEvents("teotihuacan", ["AgendaUpdated", "PyramidOfferRefilled", "DecorationOfferRefilled"]);
