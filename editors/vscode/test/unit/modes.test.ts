import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cycledMode } from "../../src/modes";

describe("cycledMode (Shift+Tab in the chat's prompt)", () => {
  it("goes manual, auto-accept edits, plan and round again, as Gemini CLI 0.61", () => {
    assert.equal(cycledMode("default", false), "auto_edit");
    assert.equal(cycledMode("auto_edit", false), "plan");
    assert.equal(cycledMode("plan", false), "default");
  });

  it("leaves plan out while the agent works, and may leave it", () => {
    assert.equal(cycledMode("default", true), "auto_edit");
    assert.equal(cycledMode("auto_edit", true), "default");
    assert.equal(cycledMode("plan", true), "default");
  });

  it("does not reach YOLO, and goes from YOLO (or a mode it does not know) back to manual", () => {
    for (const busy of [false, true]) {
      assert.equal(cycledMode("yolo", busy), "default");
      assert.equal(cycledMode("careful", busy), "default");
    }
  });
});
