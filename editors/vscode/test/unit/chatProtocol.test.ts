import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseChatRequest } from "../../src/chatProtocol";

describe("parseChatRequest", () => {
  it("accepts the webview's messages", () => {
    assert.deepEqual(parseChatRequest({ type: "prompt", text: "hi" }), { type: "prompt", text: "hi" });
    for (const type of ["ready", "cancel", "commands", "files", "context", "pickMode", "pickModel", "addContext"]) {
      assert.deepEqual(parseChatRequest({ type, extra: 1 }), { type });
    }
    assert.deepEqual(parseChatRequest({ type: "copy", text: "x := 1" }), { type: "copy", text: "x := 1" });
    assert.deepEqual(parseChatRequest({ type: "insertCode", text: "" }), { type: "insertCode", text: "" });
    assert.equal(parseChatRequest({ type: "insertCode" }), undefined);
  });
  it("drops anything else, including blank prompts", () => {
    for (const msg of [null, "prompt", { type: "prompt" }, { type: "prompt", text: "  \n" }, { type: "eval" }, { type: "newSession" }]) {
      assert.equal(parseChatRequest(msg), undefined, JSON.stringify(msg));
    }
  });

  it("reads an answer and a rewind, and drops malformed ones", () => {
    assert.deepEqual(parseChatRequest({ type: "answer", id: 3, answer: { chosen: ["0", 1], text: "x" } }), {
      type: "answer",
      id: 3,
      answer: { chosen: ["0"], text: "x", declined: false },
    });
    assert.deepEqual(parseChatRequest({ type: "answer", id: 3, answer: { declined: true } }), {
      type: "answer",
      id: 3,
      answer: { chosen: [], text: "", declined: true },
    });
    assert.equal(parseChatRequest({ type: "answer", id: "3", answer: {} }), undefined);
    assert.deepEqual(parseChatRequest({ type: "rewind", turn: 1 }), { type: "rewind", turn: 1 });
    assert.equal(parseChatRequest({ type: "rewind", turn: -1 }), undefined);
    assert.equal(parseChatRequest({ type: "rewind", turn: 0.5 }), undefined);
  });
});
