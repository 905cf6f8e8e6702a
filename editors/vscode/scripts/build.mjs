// Bundles the extension (Node, CommonJS, vscode external) and the chat
// webview script (browser) with esbuild, and copies the codicons' font and
// stylesheet (@vscode/codicons, pinned) beside them for the chat; with
// --tests, also the unit tests.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";

// The chat's icons are VS Code's own (codicons): the webview cannot use the
// workbench's font, so the extension carries it, with its licence (CC BY 4.0).
mkdirSync("dist/codicons", { recursive: true });
for (const [from, to] of [
  ["dist/codicon.css", "codicon.css"],
  ["dist/codicon.ttf", "codicon.ttf"],
  ["LICENSE", "LICENSE"],
]) {
  copyFileSync(`node_modules/@vscode/codicons/${from}`, `dist/codicons/${to}`);
}

const common = { bundle: true, logLevel: "warning", legalComments: "none" };

await Promise.all([
  build({
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
    minify: true,
  }),
  build({
    ...common,
    entryPoints: ["src/webview/main.ts"],
    outfile: "dist/webview.js",
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify: true,
  }),
]);

if (process.argv.includes("--tests")) {
  // The unit tests cover modules that do not import vscode, so no stub of it exists.
  await build({
    ...common,
    entryPoints: readdirSync("test/unit")
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/unit/${f}`),
    outdir: "dist/test",
    platform: "node",
    format: "cjs",
    target: "node20",
  });
}
