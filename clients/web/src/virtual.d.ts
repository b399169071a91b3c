// build.mjs's virtual module: imports every game's board (services/games/*/web/index.tsx).
declare module "virtual:game-boards";
