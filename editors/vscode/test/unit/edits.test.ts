import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyTextEdits, minimalReplacement, planEdit, proposedText, type WorkspaceEdit } from "../../src/edits";

const range = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});

const annotations = {
  "gemini.edit": { label: "Gemini: edit main.go (+1 −1)", needsConfirmation: true, description: "Review the change." },
};

describe("planEdit", () => {
  it("reads an annotated edit as needing review, with the document version", () => {
    const edit: WorkspaceEdit = {
      documentChanges: [
        {
          textDocument: { uri: "file:///p/main.go", version: 3 },
          edits: [{ range: range(2, 31, 2, 35), newText: "i", annotationId: "gemini.edit" }],
        },
      ],
      changeAnnotations: annotations,
    };
    assert.deepEqual(planEdit(edit), {
      needsReview: true,
      files: [{ uri: "file:///p/main.go", create: false, version: 3, edits: [[{ range: range(2, 31, 2, 35), newText: "i", annotationId: "gemini.edit" }]] }],
    });
  });

  it("reads a new file from a CreateFile and a null version", () => {
    const plan = planEdit({
      documentChanges: [
        { kind: "create", uri: "file:///p/notes.md", annotationId: "gemini.edit" },
        { textDocument: { uri: "file:///p/notes.md", version: null }, edits: [{ range: range(0, 0, 0, 0), newText: "# Notes\n", annotationId: "gemini.edit" }] },
      ],
      changeAnnotations: annotations,
    });
    assert.equal(plan.needsReview, true);
    assert.equal(plan.files.length, 1);
    assert.equal(plan.files[0].create, true);
    assert.equal(plan.files[0].version, undefined);
  });

  it("does not ask for review of plain edits, in either shape", () => {
    assert.equal(planEdit({ documentChanges: [{ textDocument: { uri: "file:///a", version: 1 }, edits: [{ range: range(0, 0, 0, 0), newText: "x" }] }] }).needsReview, false);
    const plan = planEdit({ changes: { "file:///a": [{ range: range(0, 0, 0, 0), newText: "x" }] } });
    assert.equal(plan.needsReview, false);
    assert.deepEqual(plan.files[0].edits, [[{ range: range(0, 0, 0, 0), newText: "x" }]]);
  });

  it("does not ask for review when the annotation does not need confirmation", () => {
    const plan = planEdit({
      documentChanges: [{ textDocument: { uri: "file:///a", version: 1 }, edits: [{ range: range(0, 0, 0, 0), newText: "x", annotationId: "info" }] }],
      changeAnnotations: { info: { label: "just so you know" } },
    });
    assert.equal(plan.needsReview, false);
  });

  it("refuses renames and deletions, which a review cannot show", () => {
    assert.throws(
      () => planEdit({ documentChanges: [{ kind: "delete", uri: "file:///a", annotationId: "gemini.edit" }], changeAnnotations: annotations }),
      /a delete operation cannot be reviewed/,
    );
  });
});

describe("applyTextEdits", () => {
  it("applies edits relative to the original text, in any order", () => {
    const text = "package main\n\nfunc greet() string { return \"Hello\" }\n";
    const edits = [
      { range: range(2, 31, 2, 35), newText: "i" },
      { range: range(0, 0, 0, 7), newText: "PACKAGE" },
    ];
    assert.equal(applyTextEdits(text, edits), "PACKAGE main\n\nfunc greet() string { return \"Hi\" }\n");
  });

  it("applies inserts at the same position in array order", () => {
    assert.equal(applyTextEdits("ab", [{ range: range(0, 1, 0, 1), newText: "1" }, { range: range(0, 1, 0, 1), newText: "2" }]), "a12b");
  });

  it("counts CRLF and CR as one line break, and clamps past the line end", () => {
    assert.equal(applyTextEdits("a\r\nb\rc", [{ range: range(1, 0, 1, 99), newText: "B" }]), "a\r\nB\rc");
    assert.equal(applyTextEdits("a\nb", [{ range: range(5, 0, 5, 0), newText: "!" }]), "a\nb!");
  });

  it("counts characters in UTF-16 code units", () => {
    assert.equal(applyTextEdits("😀x", [{ range: range(0, 2, 0, 3), newText: "y" }]), "😀y");
  });

  it("rejects overlapping edits", () => {
    assert.throws(() => applyTextEdits("abcdef", [{ range: range(0, 0, 0, 3), newText: "" }, { range: range(0, 2, 0, 4), newText: "" }]), /overlapping/);
  });

  it("chains edit lists for the same file", () => {
    const text = proposedText("one\n", { uri: "file:///a", create: false, edits: [[{ range: range(0, 0, 0, 3), newText: "two" }], [{ range: range(0, 3, 0, 3), newText: "!" }]] });
    assert.equal(text, "two!\n");
  });
});

describe("minimalReplacement", () => {
  it("replaces only the part that differs", () => {
    assert.deepEqual(minimalReplacement("hello world", "hello there world"), { start: 6, end: 6, text: "there " });
    assert.deepEqual(minimalReplacement("same", "same"), { start: 4, end: 4, text: "" });
    assert.deepEqual(minimalReplacement("", "new"), { start: 0, end: 0, text: "new" });
  });

  it("never splits a CRLF or a surrogate pair", () => {
    const crlf = minimalReplacement("a\r\nb", "a\nb");
    assert.equal("a\r\nb".slice(0, crlf.start) + crlf.text + "a\r\nb".slice(crlf.end), "a\nb");
    assert.ok(crlf.start <= 1, "the replacement starts before the \\r");
    const emoji = minimalReplacement("😀", "😁");
    assert.deepEqual(emoji, { start: 0, end: 2, text: "😁" });
  });

  it("always turns one text into the other", () => {
    const pairs = [["abc", "abd"], ["abc", "xbc"], ["aaa", "aa"], ["aa", "aaa"], ["x\r\n", "x\n"], ["\r\n\r\n", "\r\n"]];
    for (const [from, to] of pairs) {
      const r = minimalReplacement(from, to);
      assert.equal(from.slice(0, r.start) + r.text + from.slice(r.end), to, `${JSON.stringify(from)} → ${JSON.stringify(to)}`);
    }
  });
});
