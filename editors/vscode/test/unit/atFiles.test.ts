import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptFile, atQuery, excludeGlob, matchFiles, maxFileMatches, referencePath } from "../../src/atFiles";

describe("atQuery", () => {
  it("finds the reference the caret ends", () => {
    assert.deepEqual(atQuery("explain @src/ma", 15), { start: 8, query: "src/ma" });
    assert.deepEqual(atQuery("@", 1), { start: 0, query: "" });
    assert.deepEqual(atQuery("see (@a.go", 10), { start: 5, query: "a.go" });
    assert.deepEqual(atQuery("@my\\ fi", 7), { start: 0, query: "my fi" });
    assert.deepEqual(atQuery("line\n@x and more", 7), { start: 5, query: "x" });
  });
  it("is none in an address, past the word, or with the caret inside it", () => {
    assert.equal(atQuery("mail user@example.com", 21), undefined);
    assert.equal(atQuery("@a.go then", 10), undefined);
    assert.equal(atQuery("@a.go", 3), undefined);
    assert.equal(atQuery("no reference", 12), undefined);
  });
});

describe("matchFiles", () => {
  const files = ["src/chat.go", "chat.go", "docs/chatting.md", "cmd/main.go", "internal/webchat/x.go", "Makefile"];
  it("puts names starting with the query first, then paths, then the rest", () => {
    assert.deepEqual(
      matchFiles(files, "chat").map((m) => m.path),
      ["chat.go", "src/chat.go", "docs/chatting.md", "internal/webchat/x.go"],
    );
    assert.deepEqual(
      matchFiles(files, "src/").map((m) => m.path),
      ["src/chat.go"],
    );
  });
  it("marks where the query is, case-insensitively", () => {
    assert.deepEqual(matchFiles(files, "MAKE"), [{ path: "Makefile", start: 0, end: 4 }]);
    assert.deepEqual(matchFiles(files, "webc")[0], { path: "internal/webchat/x.go", start: 9, end: 13 });
  });
  it("matches every file for nothing typed, at most maxFileMatches", () => {
    assert.equal(matchFiles(files, "").length, files.length);
    const many = Array.from({ length: 200 }, (_, i) => `f${i}.txt`);
    assert.equal(matchFiles(many, "f").length, maxFileMatches);
  });
});

describe("acceptFile", () => {
  it("replaces the typed reference and puts the caret after it", () => {
    assert.deepEqual(acceptFile("explain @ma", 8, 11, "cmd/main.go"), { text: "explain @cmd/main.go ", caret: 21 });
    assert.deepEqual(acceptFile("@ma and this", 0, 3, "my file.txt"), { text: "@my\\ file.txt and this", caret: 14 });
  });
  it("escapes spaces as the server reads them", () => {
    assert.equal(referencePath("a b/c d.go"), "a\\ b/c\\ d.go");
  });
});

describe("excludeGlob", () => {
  it("joins the patterns the settings turn on", () => {
    assert.equal(excludeGlob({ "**/.git": true, "**/off": false }, { "**/node_modules": true, "**/.git": true }), "{**/.git,**/node_modules}");
    assert.equal(excludeGlob(undefined, {}), undefined);
  });
});
