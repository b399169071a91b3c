// Archaeology's board styles, scoped under .arch-board (injected by the board itself, so
// the generic build copies no per-game stylesheet). A card table on a desktop: dig site,
// market and ruin side by side, the hand below; one column on a phone, nothing wider than
// the screen, every button a 44 px touch target.
export const ARCH_CSS = `
.arch-board { --sand: #e8d7b0; --felt: #2f5d46; --card: #fffaf0; --legal: #e2a23b;
  margin: .75rem 0; padding: .6rem; border-radius: 12px; background: var(--felt); color: #1d1a16;
  overflow-wrap: anywhere; }
.arch-board h4 { margin: 0 0 .35rem; color: #3c2f1e; }
.arch-board h4 small { text-transform: none; letter-spacing: 0; font-weight: normal; }
.arch-board ul, .arch-board ol { list-style: none; margin: 0; padding: 0; }
.arch-table { display: grid; grid-template-columns: minmax(0, 10rem) minmax(0, 1.4fr) minmax(0, 1fr);
  gap: .6rem; margin: .6rem 0; }
.arch-table > section, .arch-trade, .arch-hand, .arch-steps:not(:empty) { background: var(--sand);
  border-radius: 10px; padding: .5rem; min-width: 0; }
.arch-pile { font-size: 1.6rem; font-weight: bold; margin: .1rem 0; }
.arch-small, .arch-board small { font-size: .8rem; color: #5a4a36; margin: .2rem 0; }
.arch-seats { display: flex; flex-wrap: wrap; gap: .4rem; }
.arch-seat { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: center; background: var(--card);
  border-radius: 8px; padding: .3rem .6rem; border: 2px solid transparent; min-width: 0; }
.arch-seat.arch-turn { border-color: #6f9e5a; }
.arch-seat.arch-me { background: #eef6ea; }
.arch-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.5rem, 1fr)); gap: .4rem; }
.arch-card { display: flex; flex-direction: column; gap: .1rem; background: var(--card); border-radius: 8px;
  padding: .35rem .45rem; border: 2px solid #c9b48a; border-top-width: 6px; min-width: 0; }
.arch-card-name { font-weight: bold; text-transform: capitalize; }
.arch-card-count { font-size: 1.15rem; }
.arch-card-value, .arch-sale { font-size: .8rem; color: #5a4a36; }
.arch-card-acts { display: flex; flex-wrap: wrap; gap: .25rem; margin-top: .2rem; }
.arch-tag { align-self: flex-start; font-size: .8rem; background: #a8431f; color: #fff; border-radius: 6px; padding: 0 .35rem; }
.arch-legal { border-color: var(--legal) !important; box-shadow: 0 0 0 2px var(--legal); }
.arch-board button.arch-act { padding: .3rem .6rem; background: #fff; border: 2px solid var(--legal); font-size: .9rem; }
.arch-board button.arch-act:hover { background: #fdf0d6; }
.arch-board button.arch-primary { background: #a8431f; color: #fff; border-color: #a8431f; }
.arch-rooms { display: flex; flex-direction: column; gap: .35rem; }
.arch-room { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: center; background: #d9c294;
  border-radius: 8px; padding: .35rem .5rem; border: 2px solid transparent; }
.arch-room.arch-here { border-color: #a8431f; }
.arch-room-name { font-weight: bold; }
.arch-cardline { display: flex; flex-wrap: wrap; gap: .15rem .6rem; }
.arch-cardline li { display: flex; align-items: center; gap: .25rem; }
.arch-chip { display: inline-block; width: .8rem; height: .8rem; border-radius: 3px; background: #c9b48a; }
.arch-none, .arch-muted { color: #6d655b; font-style: italic; margin: 0; }
.arch-trade { margin: .6rem 0; border: 3px solid #a8431f; }
.arch-trade-sides { display: grid; grid-template-columns: 1fr 1fr; gap: .6rem; }
.arch-trade-sides > div { background: var(--card); border-radius: 8px; padding: .4rem; min-width: 0; }
.arch-warn { margin: .4rem 0 0; font-weight: bold; color: #8a1f0a; }
.arch-value { font-weight: bold; color: #a8431f; }
.arch-buttons { display: flex; flex-wrap: wrap; gap: .4rem; margin: .4rem 0 0; }
.arch-steps { margin: .6rem 0; }
.arch-sphinx { display: flex; flex-wrap: wrap; gap: .4rem; align-items: end; width: 100%; }
.arch-name { font-size: .8rem; }
.arch-steps:empty { display: none; }
.arch-step-text { margin: 0; font-weight: bold; }
.arch-hand { margin-top: .6rem; background: #f3e6c8; }
.k-pottery_shards { border-top-color: #b5651d; } .k-pottery_shards.arch-chip { background: #b5651d; }
.k-parchment_scrolls { border-top-color: #d8c27a; } .k-parchment_scrolls.arch-chip { background: #d8c27a; }
.k-coins { border-top-color: #c9a227; } .k-coins.arch-chip { background: #c9a227; }
.k-broken_tablets { border-top-color: #7d7d7d; } .k-broken_tablets.arch-chip { background: #7d7d7d; }
.k-talismans { border-top-color: #2e8b57; } .k-talismans.arch-chip { background: #2e8b57; }
.k-broken_cups { border-top-color: #4682b4; } .k-broken_cups.arch-chip { background: #4682b4; }
.k-maps { border-top-color: #8b5a2b; } .k-maps.arch-chip { background: #8b5a2b; }
.k-broken_pendants { border-top-color: #8a2be2; } .k-broken_pendants.arch-chip { background: #8a2be2; }
.k-pharaoh_masks { border-top-color: #1f4f8f; } .k-pharaoh_masks.arch-chip { background: #1f4f8f; }
@media (max-width: 700px) {
  .arch-table { grid-template-columns: minmax(0, 1fr); }
  .arch-trade-sides { grid-template-columns: minmax(0, 1fr); }
  .arch-cards { grid-template-columns: repeat(auto-fill, minmax(7.5rem, 1fr)); }
}
`;
