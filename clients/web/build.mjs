// Builds the reference web client into services/web/static/ (docs/web.md, "The
// reference web client"): one bundle, one stylesheet, one page. Reproducible: a pinned
// esbuild, no timestamps, no source maps with absolute paths, so CI checks that the
// committed files equal a fresh build (`npm ci && npm run build && git diff --exit-code`).
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, "../../services/web/static");
mkdirSync(out, { recursive: true });

// Each game's board, if its folder has one (services/games/<game>/web/index.tsx, which
// calls registerBoard): imported in name order through one virtual module, so this client
// names no game and a new game's board needs no edit here.
const games = resolve(here, "../../services/games");
const boards = readdirSync(games, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(resolve(games, entry.name, "web/index.tsx")))
  .map((entry) => entry.name)
  .sort();
const gameBoards = {
  name: "game-boards",
  setup(build) {
    build.onResolve({ filter: /^virtual:game-boards$/ }, () => ({ path: "game-boards", namespace: "virtual" }));
    build.onLoad({ filter: /.*/, namespace: "virtual" }, () => ({
      contents: boards.map((name) => `import "../../services/games/${name}/web/index.tsx";`).join("\n"),
      resolveDir: here,
      loader: "ts",
    }));
  },
};

await esbuild.build({
  plugins: [gameBoards],
  // A game's board (outside this folder) imports preact from this client's node_modules.
  nodePaths: [resolve(here, "node_modules")],
  entryPoints: [resolve(here, "src/main.tsx")],
  outfile: resolve(out, "app.js"),
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) {
  copyFileSync(resolve(here, "src", file), resolve(out, file));
}
