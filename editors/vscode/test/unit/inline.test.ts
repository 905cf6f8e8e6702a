import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  completionItems,
  currentEdits,
  diagnosticsNear,
  inlineText,
  insertText,
  lspTriggerKind,
  shownParts,
  shownTextMax,
} from "../../src/inline";
import type { PromptDiagnostic } from "../../src/protocol";

const range = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

describe("lspTriggerKind", () => {
  it("maps VS Code's Invoke (0) to LSP's Invoked (1) and Automatic (1) to Automatic (2)", () => {
    assert.equal(lspTriggerKind(0), 1);
    assert.equal(lspTriggerKind(1), 2);
  });
});

describe("completionItems", () => {
  const item = { insertText: "fmt.Println(total)", range: range(4, 1, 4, 1), command: { title: "Accept", command: "gemini.acceptCompletion", arguments: ["gemini-7"] } };
  it("reads a list, a bare array and nothing", () => {
    assert.deepEqual(completionItems({ items: [item] }), [item]);
    assert.deepEqual(completionItems([item]), [item]);
    assert.deepEqual(completionItems(null), []);
    assert.deepEqual(completionItems({ items: [] }), []);
    assert.deepEqual(completionItems({ items: [{ label: "not an item" }] }), []);
  });
  it("takes a snippet's text as it stands", () => {
    assert.equal(insertText(item), "fmt.Println(total)");
    assert.equal(insertText({ insertText: { kind: "snippet", value: "x := $1" } }), "x := $1");
  });
});

describe("diagnosticsNear", () => {
  const at = (line: number, endLine = line): PromptDiagnostic => ({ range: range(line, 0, endLine, 1), severity: 1, message: `line ${line}` });
  it("keeps those within 10 lines of the cursor's line", () => {
    const all = [at(0), at(9), at(20), at(30), at(31), at(2, 25)];
    assert.deepEqual(
      diagnosticsNear(all, 20).map((d) => d.message),
      ["line 20", "line 30", "line 2"],
    );
    assert.deepEqual(diagnosticsNear(all, 19).map((d) => d.message), ["line 9", "line 20", "line 2"]);
  });
});

describe("currentEdits", () => {
  const uri = "file:///w/main.go";
  const edit = (version: number, u = uri) => ({
    range: range(10, 5, 10, 8),
    text: "total",
    textDocument: { uri: u, version },
    command: { title: "Accept", command: "gemini.acceptCompletion", arguments: ["next-edit"] },
  });
  it("shows an answer for the version asked", () => {
    assert.deepEqual(currentEdits({ edits: [edit(12)] }, uri, 12), [edit(12)]);
  });
  it("never shows an answer for a version the document has moved past", () => {
    assert.deepEqual(currentEdits({ edits: [edit(12)] }, uri, 13), []);
    assert.deepEqual(currentEdits({ edits: [edit(13), edit(12)] }, uri, 13), [], "one stale edit makes the whole answer stale");
  });
  it("shows nothing for another document, no edits or no answer", () => {
    assert.deepEqual(currentEdits({ edits: [edit(12, "file:///w/other.go")] }, uri, 12), []);
    assert.deepEqual(currentEdits({ edits: [] }, uri, 12), []);
    assert.deepEqual(currentEdits(null, uri, 12), []);
  });
});

describe("inlineText", () => {
  it("shows line breaks and tabs on one line", () => {
    assert.equal(inlineText("a\n\tb"), "a ⏎   b");
    assert.equal(inlineText("a\r\nb"), "a ⏎ b");
  });
  it("cuts long text", () => {
    const shown = inlineText("x".repeat(500));
    assert.equal(shown.length, shownTextMax);
    assert.ok(shown.endsWith("…"));
  });
});

describe("shownParts", () => {
  it("shows a rename through several lines line by line", () => {
    // "count)\n\tprintln(count" → "total)\n\tprintln(total", from line 4, character 9.
    const edit = { range: range(4, 9, 5, 14), text: "total)\n\tprintln(total" };
    assert.deepEqual(shownParts("count)\n\tprintln(count", edit), [
      { range: range(4, 9, 4, 14), text: "total" },
      { range: range(5, 9, 5, 14), text: "total" },
    ]);
  });
  it("leaves out the lines that stay", () => {
    const edit = { range: range(2, 0, 4, 3), text: "a\nsame\nc" };
    assert.deepEqual(shownParts("x\nsame\nc", edit), [{ range: range(2, 0, 2, 1), text: "a" }]);
  });
  it("shows an edit on one line, or one that adds or drops lines, whole", () => {
    const one = { range: range(1, 2, 1, 5), text: "total" };
    assert.deepEqual(shownParts("cnt", one), [one]);
    const more = { range: range(1, 0, 1, 0), text: "x := 1\n" };
    assert.deepEqual(shownParts("", more), [more]);
  });
});
