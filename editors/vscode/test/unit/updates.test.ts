import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Update } from "../../src/protocol";
import { receiveUpdate } from "../../src/updates";
import { recordingTarget } from "./updateTarget";

describe("receiveUpdate", () => {
  it("asks the \"/\" commands again on a commands update, and only then", () => {
    const { seen, target } = recordingTarget();
    receiveUpdate({ sessionId: "S1", kind: "text", text: "hi" }, target);
    assert.equal(seen.reloads, 0);
    receiveUpdate({ sessionId: "S1", kind: "commands" }, target);
    assert.equal(seen.reloads, 1);
  });

  it("takes the model of a model update for the status bar, and passes every update to the chat", () => {
    const { seen, target } = recordingTarget();
    const update: Update = { sessionId: "S1", kind: "model", model: "gemini-3.1-pro-preview-customtools", name: "gemini-3.1-pro-preview" };
    receiveUpdate(update, target);
    assert.deepEqual(seen.model, { current: "gemini-3.1-pro-preview-customtools", name: "gemini-3.1-pro-preview" });
    assert.deepEqual(seen.events, [{ type: "update", update }]);
  });
});
