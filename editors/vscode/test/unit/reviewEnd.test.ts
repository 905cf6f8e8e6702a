import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptChangesAnything, fileToFocus } from "../../src/reviewEnd";

describe("acceptChangesAnything", () => {
  it("is true when an existing file's proposal differs from what it holds", () => {
    assert.equal(acceptChangesAnything([{ created: false, original: "a\n", final: "b\n" }]), true);
  });
  it("is false when every hunk of every existing file was put back, so the Accept is a reject", () => {
    assert.equal(
      acceptChangesAnything([
        { created: false, original: "a\n", final: "a\n" },
        { created: false, original: "x\r\ny\r\n", final: "x\r\ny\r\n" },
      ]),
      false,
    );
  });
  it("is true for a new file, even an empty one: accepting creates it", () => {
    assert.equal(acceptChangesAnything([{ created: true, original: "", final: "" }]), true);
  });
  it("tells a line ending apart: CRLF made LF is a change", () => {
    assert.equal(acceptChangesAnything([{ created: false, original: "a\r\n", final: "a\n" }]), true);
  });
});

describe("fileToFocus", () => {
  it("takes the file whose diff the user was looking at", () => {
    assert.equal(
      fileToFocus([
        { exists: true, diffActive: false },
        { exists: true, diffActive: true },
      ]),
      1,
    );
  });
  it("takes the first file that exists when no diff of the review is active", () => {
    assert.equal(
      fileToFocus([
        { exists: false, diffActive: false },
        { exists: true, diffActive: false },
      ]),
      1,
    );
  });
  it("passes over a rejected new file even when its diff was active", () => {
    assert.equal(
      fileToFocus([
        { exists: true, diffActive: false },
        { exists: false, diffActive: true },
      ]),
      0,
    );
  });
  it("is undefined when no file exists after the review", () => {
    assert.equal(fileToFocus([{ exists: false, diffActive: true }]), undefined);
  });
});
