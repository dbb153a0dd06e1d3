// Builds the MAGS web UI into dist/: index.html, app.js (the bundle: our modules and
// cytoscape from node_modules) and app.css. Every URL is relative: the page is served at /ui/.
//
//     npm ci --no-audit --no-fund && npm run build
import { build } from "esbuild";
import { copyFile, mkdir, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "src");
const dist = join(here, "dist");

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  entryPoints: { app: join(src, "main.js") },
  outdir: dist,
  bundle: true,
  format: "iife",
  target: ["es2020"],
  minify: true,
  sourcemap: false,
  legalComments: "eof", // the libraries' licence notices stay with them
  logLevel: "warning",
});
await copyFile(join(src, "index.html"), join(dist, "index.html"));

for (const name of ["index.html", "app.js", "app.css"]) {
  const { size } = await stat(join(dist, name));
  console.log(`dist/${name}  ${(size / 1024).toFixed(1)} KiB`);
}
