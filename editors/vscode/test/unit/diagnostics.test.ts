import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EditorDiagnostic } from "../../src/context";
import { answerDiagnostics, type FileDiagnostics } from "../../src/diagnostics";

const line = (n: number) => ({ start: { line: n, character: 4 }, end: { line: n, character: 9 } });

// VS Code's severities count from 0 (Error); its codes may be objects.
const shown: Record<string, EditorDiagnostic[]> = {
  "file:///w/a.ts": [
    { range: line(2), severity: 0, message: "Cannot find name 'x'.", source: "ts", code: 2304 },
    { range: line(7), severity: 1, message: "'y' is unused.", source: "eslint", code: { value: "no-unused-vars" } },
  ],
  "file:///w/b.ts": [],
  "file:///w/c.ts": [{ range: line(0), severity: 3, message: "hint" }],
};
const of = (uri: string) => shown[uri] ?? [];
const all = (): FileDiagnostics[] => Object.entries(shown);

describe("gemini/diagnostics", () => {
  it("answers for the files asked about, in LSP's shape, by the URIs as sent", () => {
    assert.deepEqual(answerDiagnostics({ uris: ["file:///w/a.ts", "file:///w/none.ts"] }, of, all), {
      items: [
        {
          uri: "file:///w/a.ts",
          diagnostics: [
            { range: line(2), severity: 1, message: "Cannot find name 'x'.", source: "ts", code: 2304 },
            { range: line(7), severity: 2, message: "'y' is unused.", source: "eslint", code: "no-unused-vars" },
          ],
        },
        { uri: "file:///w/none.ts", diagnostics: [] },
      ],
    });
  });

  it("answers for every file with diagnostics when none is named", () => {
    for (const params of [{}, { uris: [] }, null, { uris: "file:///w/a.ts" }]) {
      const answer = answerDiagnostics(params, of, all);
      assert.deepEqual(
        answer.items.map((i) => [i.uri, i.diagnostics.map((d) => d.severity)]),
        [
          ["file:///w/a.ts", [1, 2]],
          ["file:///w/c.ts", [4]],
        ],
        JSON.stringify(params),
      );
    }
  });
});
