import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseChatRequest } from "../../src/chatProtocol";

describe("parseChatRequest", () => {
  it("accepts the webview's messages", () => {
    assert.deepEqual(parseChatRequest({ type: "prompt", text: "hi" }), { type: "prompt", text: "hi" });
    for (const type of ["ready", "cancel", "newSession", "sessions", "commands"]) {
      assert.deepEqual(parseChatRequest({ type, extra: 1 }), { type });
    }
  });
  it("drops anything else, including blank prompts", () => {
    for (const msg of [null, "prompt", { type: "prompt" }, { type: "prompt", text: "  \n" }, { type: "eval" }]) {
      assert.equal(parseChatRequest(msg), undefined, JSON.stringify(msg));
    }
  });
});
