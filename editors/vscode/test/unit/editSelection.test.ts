import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editSelectionNotice, editSelectionParams } from "../../src/editSelection";

const at = (line: number, character: number) => ({ line, character });

describe("editSelectionParams", () => {
  it("sends the selection as it is, and the instruction trimmed", () => {
    assert.deepEqual(editSelectionParams("file:///w/a.go", { start: at(4, 1), end: at(6, 2) }, "  use a range loop\n"), {
      textDocument: { uri: "file:///w/a.go" },
      range: { start: at(4, 1), end: at(6, 2) },
      instruction: "use a range loop",
    });
  });
  it("takes the cursor's whole line when nothing is selected", () => {
    assert.deepEqual(editSelectionParams("file:///w/a.go", { start: at(3, 7), end: at(3, 7) }, "x").range, { start: at(3, 0), end: at(4, 0) });
  });
});

describe("editSelectionNotice", () => {
  it("warns only when the edit could not be made", () => {
    for (const [outcome, warn] of [["applied", false], ["declined", false], ["unchanged", false], ["refused", true], ["stale", true]] as const) {
      assert.deepEqual(editSelectionNotice({ outcome, message: "m" }), { text: "m", warn }, outcome);
    }
  });
});
