// Writes src/protocol.ts from docs/protocol.schema.json (npm run gen).
// With --check it writes nothing and exits 1 when src/protocol.ts differs.
import { readFileSync, writeFileSync } from "node:fs";
import { generateProtocol } from "./protocolgen.mjs";

const schemaFile = new URL("../../../docs/protocol.schema.json", import.meta.url);
const target = new URL("../src/protocol.ts", import.meta.url);

const want = generateProtocol(JSON.parse(readFileSync(schemaFile, "utf8")));
let have = "";
try {
  have = readFileSync(target, "utf8");
} catch {
  // Not written yet.
}
if (process.argv.includes("--check")) {
  if (have !== want) {
    console.error("src/protocol.ts is not what docs/protocol.schema.json makes: run npm run gen in editors/vscode");
    process.exit(1);
  }
} else if (have !== want) {
  writeFileSync(target, want);
}
