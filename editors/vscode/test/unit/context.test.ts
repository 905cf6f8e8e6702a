import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnosticsHere, explainPrompt, fixPrompt, promptContext, toPromptDiagnostic, type EditorSnapshot } from "../../src/context";
import type { PromptDiagnostic } from "../../src/protocol";

const range = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});

const onLine2: PromptDiagnostic = { range: range(2, 4, 2, 9), severity: 1, message: "undefined: greet", source: "compiler", code: "UndeclaredName" };
const onLine7: PromptDiagnostic = { range: range(7, 0, 7, 3), severity: 2, message: "unused variable x" };

function editor(selection = range(2, 5, 2, 5)): EditorSnapshot {
  return { uri: "file:///p/main.go", selection, diagnostics: [onLine2, onLine7] };
}

describe("promptContext", () => {
  it("sends the file, the cursor and all of the file's diagnostics", () => {
    assert.deepEqual(promptContext(editor()), {
      uri: "file:///p/main.go",
      range: range(2, 5, 2, 5),
      diagnostics: [onLine2, onLine7],
    });
  });

  it("sends only the diagnostics in a selection", () => {
    assert.deepEqual(promptContext(editor(range(1, 0, 3, 0))), {
      uri: "file:///p/main.go",
      range: range(1, 0, 3, 0),
      diagnostics: [onLine2],
    });
  });

  it("leaves diagnostics out when there are none", () => {
    assert.deepEqual(promptContext({ ...editor(range(4, 0, 5, 0)) }), { uri: "file:///p/main.go", range: range(4, 0, 5, 0) });
  });

  it("sends no context for documents that are not files", () => {
    assert.equal(promptContext({ ...editor(), uri: "untitled:Untitled-1" }), undefined);
  });
});

describe("diagnosticsHere", () => {
  it("takes the cursor line's diagnostics", () => {
    assert.deepEqual(diagnosticsHere(editor(range(7, 1, 7, 1))), [onLine7]);
  });
  it("takes the whole file's when the cursor line has none", () => {
    assert.deepEqual(diagnosticsHere(editor(range(4, 0, 4, 0))), [onLine2, onLine7]);
  });
  it("takes the selection's when there is a selection", () => {
    assert.deepEqual(diagnosticsHere(editor(range(6, 0, 8, 0))), [onLine7]);
    assert.deepEqual(diagnosticsHere(editor(range(3, 0, 5, 0))), []);
  });
});

describe("toPromptDiagnostic", () => {
  it("counts severity from 1 as LSP does and unwraps code objects", () => {
    assert.deepEqual(toPromptDiagnostic({ range: range(0, 0, 0, 1), severity: 0, message: "m", source: "ts", code: { value: 2304 } }), {
      range: range(0, 0, 0, 1),
      severity: 1,
      message: "m",
      source: "ts",
      code: 2304,
    });
    assert.deepEqual(toPromptDiagnostic({ range: range(0, 0, 0, 1), severity: 3, message: "hint" }), { range: range(0, 0, 0, 1), severity: 4, message: "hint" });
  });
});

describe("prompts", () => {
  it("names each problem to fix", () => {
    assert.equal(
      fixPrompt([onLine2, onLine7]),
      "Fix these problems:\n- line 3, error (compiler UndeclaredName): undefined: greet\n- line 8, warning: unused variable x",
    );
    assert.equal(fixPrompt([onLine7]), "Fix this problem:\n- line 8, warning: unused variable x");
  });
  it("explains the selection or the code around the cursor", () => {
    assert.equal(explainPrompt(range(1, 0, 2, 0)), "Explain the selected code.");
    assert.equal(explainPrompt(range(1, 0, 1, 0)), "Explain the code around the cursor.");
  });
});
