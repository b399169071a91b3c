// Teotihuacan's board styles, scoped under .teo-board (injected by the board itself, so
// the generic build copies no per-game stylesheet). A sun-baked city on a desktop: the
// action boards in a 4x2 ring, the pyramid beside the temples; one column on a phone,
// nothing wider than the screen, every button a 44 px touch target.
export const TEO_CSS = `
.teo-board { --adobe: #ead8b5; --plaza: #7a5230; --card: #fff8ea; --legal: #e2a23b;
  margin: .75rem 0; padding: .6rem; border-radius: 12px; background: var(--plaza); color: #231a10;
  overflow-wrap: anywhere; display: flex; flex-direction: column; gap: .6rem; }
.teo-board h4 { margin: 0 0 .35rem; color: #4a3219; }
.teo-board h4 small { text-transform: none; letter-spacing: 0; font-weight: normal; }
.teo-board ul, .teo-board ol { list-style: none; margin: 0; padding: 0; }
.teo-board section { background: var(--adobe); border-radius: 10px; padding: .5rem; min-width: 0; }
.teo-small { font-size: .8rem; color: #5e4a33; }
.teo-legal { border-color: var(--legal) !important; box-shadow: 0 0 0 3px var(--legal); }
.teo-board button.teo-act { padding: .3rem .6rem; background: #fff; border: 2px solid var(--legal); font-size: .9rem; }
.teo-board button.teo-act:hover { background: #fdf0d6; }
.teo-board button.teo-primary { background: #a8431f; color: #fff; border-color: #a8431f; }
.teo-track { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(0, 1fr); gap: 2px; }
.teo-track li { background: var(--card); border-radius: 4px; min-height: 2.1rem; padding: 1px; display: flex;
  flex-wrap: wrap; align-content: flex-start; gap: 1px; position: relative; min-width: 0; }
.teo-step-num { font-size: .65rem; color: #8a7558; width: 100%; line-height: 1; }
.teo-marker { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; border: 1px solid #fff; }
.teo-disc-dot, .teo-disc { font-size: .7rem; color: #6b2e8a; }
.teo-days li { min-height: 1.6rem; justify-content: center; align-items: center; font-size: .9rem; }
.teo-days li.teo-light { background: #ffe58a; }
.teo-days li.teo-dark { background: #3b2a4a; color: #fff; }
.teo-calendar p { margin: .2rem 0 0; }
.teo-boards { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: .4rem; }
.teo-boardcard { background: var(--card); border: 2px solid #c9a97a; border-radius: 8px; padding: .35rem;
  display: flex; flex-direction: column; gap: .25rem; min-width: 0; border-top-width: 6px; }
.teo-boardcard.teo-from { border-style: dashed; }
.teo-board-head { display: flex; gap: .35rem; align-items: center; }
.teo-board-head b { overflow-wrap: normal; min-width: 0; }
.teo-board-num { display: inline-grid; place-items: center; width: 1.4rem; height: 1.4rem; border-radius: 50%;
  background: #4a3219; color: #fff; font-size: .8rem; flex: none; }
.teo-workers, .teo-worship { display: flex; flex-wrap: wrap; gap: .25rem; align-items: center; min-height: 1.6rem; }
.teo-worship { border-top: 1px dotted #b08d5c; padding-top: .2rem; }
.teo-die { display: inline-grid; place-items: center; width: 1.6rem; height: 1.6rem; border-radius: 5px; color: #fff;
  font-weight: bold; border: 2px solid #fff; box-shadow: 0 1px 2px #0006; }
.teo-die.teo-mini { width: 1.35rem; height: 1.35rem; font-size: .8rem; }
.teo-neutral { background: #8d8d8d; }
.teo-board button.teo-own { width: 44px; height: 44px; min-width: 44px; padding: 0; font-size: 1.1rem;
  border: 3px solid var(--legal); color: #fff; }
.teo-board button.teo-own.teo-chosen { outline: 4px solid #231a10; outline-offset: 1px; }
.b-1 { border-top-color: #8e44ad; } .b-2 { border-top-color: #6e8b3d; } .b-3 { border-top-color: #7f8c8d; }
.b-4 { border-top-color: #c9a227; } .b-5 { border-top-color: #16a085; } .b-6 { border-top-color: #a04000; }
.b-7 { border-top-color: #2e86c1; } .b-8 { border-top-color: #a8431f; }
.teo-middle { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr); gap: .6rem; }
.teo-middle > section, .teo-side { min-width: 0; }
.teo-side { display: flex; flex-direction: column; gap: .6rem; }
.teo-pyramid-svg { width: 100%; height: auto; max-width: 30rem; display: block; margin: 0 auto; }
.teo-level { font-size: 3px; fill: #6b5536; text-anchor: end; }
.teo-slot { cursor: pointer; }
.teo-slot rect { fill: #e2a23b44; stroke: var(--legal); stroke-width: 1; stroke-dasharray: 2 1; }
.teo-slot text { font-size: 8px; fill: #7a4a00; font-weight: bold; pointer-events: none; }
.teo-slot:hover rect, .teo-slot:focus rect { fill: #e2a23b99; }
.teo-slot:focus { outline: none; }
.teo-preview rect:first-of-type { fill: #e2a23b66; }
.teo-offer { display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; margin-top: .4rem; }
.teo-offer-tile { display: inline-grid; place-items: center; width: 48px; height: 48px; padding: 2px;
  background: var(--card); border-radius: 6px; border: 2px solid #c9a97a; }
.teo-board button.teo-offer-tile { border: 2px solid var(--legal); padding: 2px; }
.teo-board button.teo-offer-tile.teo-chosen { border-color: #231a10; box-shadow: 0 0 0 3px var(--legal); }
.teo-face { width: 40px; height: 40px; display: block; }
.teo-royal li { font-size: .72rem; line-height: 1.2; }
.teo-royal { display: flex; flex-direction: column; gap: .1rem; border-left: 3px solid #8e44ad; padding-left: .3rem; }
.teo-decorations { margin: .35rem 0 0; }
.teo-hint { margin: .35rem 0 0; font-weight: bold; }
.teo-place { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-top: .4rem; background: var(--card);
  padding: .4rem; border-radius: 8px; border: 2px solid var(--legal); }
.teo-temple { background: var(--card); border-radius: 8px; padding: .3rem; margin-bottom: .35rem; border: 2px solid transparent; }
.teo-temple-head { display: flex; flex-wrap: wrap; gap: .2rem .5rem; align-items: center; }
.t-blue .teo-temple-track li { background: #d6e6f7; } .t-red .teo-temple-track li { background: #f6d5cf; }
.t-green .teo-temple-track li { background: #d3efdc; }
.t-blue b { color: #1f4f8f; } .t-red b { color: #a3261a; } .t-green b { color: #1d6b40; }
.teo-lower { display: grid; grid-template-columns: minmax(0, 1.6fr) minmax(0, 1fr); gap: .6rem; }
.teo-tech-list { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .35rem; }
.teo-tech { background: var(--card); border-radius: 8px; padding: .3rem; border: 2px solid transparent;
  display: flex; flex-wrap: wrap; gap: .2rem; align-items: center; align-content: flex-start; }
.teo-tech-text { font-size: .75rem; width: 100%; }
.teo-noble-row { display: flex; flex-wrap: wrap; gap: .25rem; align-items: center; margin-bottom: .3rem;
  border: 2px solid transparent; border-radius: 8px; padding: .1rem; }
.teo-noble-row > .teo-small { width: 3.5rem; }
.teo-building { display: inline-grid; place-items: center; width: 1.7rem; height: 1.7rem; border-radius: 4px;
  background: var(--card); font-size: .8rem; border: 1px solid #c9a97a; }
.teo-built { background: #a04000; color: #fff; }
.teo-players { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: .5rem; }
.teo-player { background: var(--card); border-radius: 10px; padding: .45rem .6rem; border-left: 8px solid #555;
  box-shadow: inset 0 0 0 2px transparent; min-width: 0; }
.teo-player.teo-turn { box-shadow: inset 0 0 0 2px #6f9e5a; }
.teo-player.teo-me { background: #f2f8ec; }
.teo-player-head { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: baseline; }
.teo-vp { font-weight: bold; color: #a8431f; }
.teo-tag { font-size: .8rem; background: #6f9e5a; color: #fff; border-radius: 6px; padding: 0 .35rem; }
.teo-goods { display: flex; flex-wrap: wrap; gap: .2rem .7rem; margin: .25rem 0; }
.teo-goods li { display: flex; align-items: center; gap: .2rem; font-weight: bold; }
.teo-chip { display: inline-block; width: .85rem; height: .85rem; border-radius: 3px; }
.g-cocoa { background: #5d3a1a; border-radius: 50%; } .g-wood { background: #8b5a2b; }
.g-stone { background: #8e8e8e; } .g-gold { background: #e0b000; border-radius: 50%; }
.teo-line { margin: .15rem 0; font-size: .9rem; }
.teo-choices { border: 3px solid var(--legal); }
.teo-choices ul { display: flex; flex-wrap: wrap; gap: .35rem; }
.teo-bot-tiles { display: flex; flex-wrap: wrap; gap: .3rem; }
.teo-bot-tiles li { background: var(--card); border-radius: 6px; padding: .15rem .4rem; }
.teo-bot p { margin: .25rem 0 0; }
@media (max-width: 900px) {
  .teo-middle, .teo-lower { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 700px) {
  .teo-boards { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .teo-tech-list { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .teo-board { padding: .35rem; }
  .teo-board-head b { font-size: .9rem; }
}
`;
