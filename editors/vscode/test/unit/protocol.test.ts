// src/protocol.ts is generated from docs/protocol.schema.json
// (scripts/protocolgen.mjs, `npm run gen`): it must be what the schema
// makes now, so a change of the server's wire types that the extension has
// not taken fails here.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateProtocol } from "../../scripts/protocolgen.mjs";
import { methods } from "../../src/protocol";

// The bundled tests run from editors/vscode/dist/test.
const schemaPath = path.resolve(__dirname, "../../../../docs/protocol.schema.json");
const protocolPath = path.resolve(__dirname, "../../src/protocol.ts");
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));

describe("src/protocol.ts", () => {
  it("is what docs/protocol.schema.json makes (run npm run gen in editors/vscode when not)", () => {
    // Line by line, so a failure names the first line that drifted.
    assert.deepEqual(readFileSync(protocolPath, "utf8").split("\n"), generateProtocol(schema).split("\n"));
  });

  it("drifts when the schema changes", () => {
    const changed = structuredClone(schema);
    changed.$defs.ToolCallUpdate.properties.lineOfCall = { type: "integer" };
    const text = generateProtocol(changed);
    assert.notEqual(text, generateProtocol(schema));
    assert.match(text, /export type ToolCallUpdate = \{[^]*?\n {2}lineOfCall\?: number;/);
  });

  it("has a type for every $defs entry and a name for every method", () => {
    const text = readFileSync(protocolPath, "utf8");
    for (const name of Object.keys(schema.$defs)) {
      assert.match(text, new RegExp(`^export type ${name} = `, "m"), `no type ${name}`);
    }
    const named = new Set<string>(Object.values(methods));
    assert.deepEqual(Object.keys(schema["x-methods"]).filter((m) => !named.has(m)), []);
    assert.equal(methods.prompt, "gemini/prompt");
    assert.equal(methods.applyEdit, "workspace/applyEdit");
    assert.equal(methods.cancel, "gemini/cancel", "gemini/cancel, not window/workDoneProgress/cancel");
  });
});
