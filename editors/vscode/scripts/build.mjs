// Bundles the extension (Node, CommonJS, vscode external) and the chat
// webview script (browser) with esbuild; with --tests, also the unit tests.
import { build } from "esbuild";
import { readdirSync } from "node:fs";

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
