import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptContext, contextItems, hashQuery, insertReference, matchContext } from "../../src/contextItems";

describe('"#" context', () => {
  const editor = { active: { path: "src/select.go", selection: { startLine: 5, endLine: 7 } }, open: ["src/select.go", "my notes.txt", "src/select.go"] };

  it("names the active file, its selection and the open editors as the references the server reads", () => {
    assert.deepEqual(contextItems(editor), [
      { name: "file", description: "the active file, src/select.go", reference: "@src/select.go" },
      { name: "selection", description: "src/select.go, lines 5-7", reference: "@src/select.go#L5-7" },
      { name: "editors", description: "the 2 open files: src/select.go, my notes.txt", reference: "@src/select.go @my\\ notes.txt" },
    ]);
  });

  it("offers no selection without one, one line as a line, and nothing without editors", () => {
    assert.deepEqual(contextItems({ active: { path: "a.go" }, open: [] }).map((i) => i.name), ["file"]);
    assert.equal(contextItems({ active: { path: "a.go", selection: { startLine: 3, endLine: 3 } }, open: [] })[1].reference, "@a.go#L3");
    assert.deepEqual(contextItems({ open: [] }), []);
  });

  it("is typed as a #name after white space, not as a reference's #L lines or a heading", () => {
    assert.deepEqual(hashQuery("explain #sel", 12), { start: 8, query: "sel" });
    assert.deepEqual(hashQuery("#", 1), { start: 0, query: "" });
    assert.equal(hashQuery("what is in @lines.txt#L3", 24), undefined);
    assert.equal(hashQuery("# Title", 7), undefined);
    assert.equal(hashQuery("explain #sel more", 10), undefined, "the caret inside the word");
  });

  it("matches names by their start and puts the reference in the name's place", () => {
    const items = contextItems(editor);
    assert.deepEqual(matchContext(items, "SE").map((i) => i.name), ["selection"]);
    assert.deepEqual(matchContext(items, "").length, 3);
    assert.deepEqual(acceptContext("explain #sel please", 8, 12, items[1]), { text: "explain @src/select.go#L5-7 please", caret: 28 });
  });

  it("inserts Add Context's reference at the caret, set apart by spaces", () => {
    assert.deepEqual(insertReference("", 0, "@a.go"), { text: "@a.go ", caret: 6 });
    assert.deepEqual(insertReference("fix this", 8, "@a.go"), { text: "fix this @a.go ", caret: 15 });
    assert.deepEqual(insertReference("fix  now", 4, "@a.go"), { text: "fix @a.go now", caret: 10 });
  });
});
