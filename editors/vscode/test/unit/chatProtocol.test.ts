import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseChatRequest } from "../../src/chatProtocol";

describe("parseChatRequest", () => {
  it("accepts the webview's messages", () => {
    assert.deepEqual(parseChatRequest({ type: "prompt", text: "hi" }), { type: "prompt", text: "hi" });
    for (const type of ["ready", "cancel", "commands", "files", "context", "pickModel", "addContext"]) {
      assert.deepEqual(parseChatRequest({ type, extra: 1 }), { type });
    }
    assert.deepEqual(parseChatRequest({ type: "copy", text: "x := 1" }), { type: "copy", text: "x := 1" });
    assert.deepEqual(parseChatRequest({ type: "insertCode", text: "" }), { type: "insertCode", text: "" });
    assert.equal(parseChatRequest({ type: "insertCode" }), undefined);
  });

  it("takes Run in the Background with the prompt box's text, empty too", () => {
    assert.deepEqual(parseChatRequest({ type: "background", text: "Add a flag" }), { type: "background", text: "Add a flag" });
    assert.deepEqual(parseChatRequest({ type: "background", text: "" }), { type: "background", text: "" });
    assert.equal(parseChatRequest({ type: "background" }), undefined);
    assert.equal(parseChatRequest({ type: "background", text: 1 }), undefined);
  });

  it("takes a mode only among the approval modes, and a model by a non-blank id", () => {
    assert.deepEqual(parseChatRequest({ type: "setMode", mode: "auto_edit" }), { type: "setMode", mode: "auto_edit" });
    for (const mode of ["careful", "", undefined, 1]) {
      assert.equal(parseChatRequest({ type: "setMode", mode }), undefined, String(mode));
    }
    assert.deepEqual(parseChatRequest({ type: "setModel", id: "gemini-2.5-pro" }), { type: "setModel", id: "gemini-2.5-pro" });
    assert.equal(parseChatRequest({ type: "setModel", id: " " }), undefined);
    assert.equal(parseChatRequest({ type: "setModel" }), undefined);
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

describe("the chat's command buttons", () => {
  it("run only the chat's own commands, whatever the webview asks", () => {
    assert.deepEqual(parseChatRequest({ type: "run", command: "gemini.enterApiKey" }), { type: "run", command: "gemini.enterApiKey" });
    assert.deepEqual(parseChatRequest({ type: "run", command: "workbench.trust.manage" }), { type: "run", command: "workbench.trust.manage" });
    for (const command of ["workbench.action.terminal.sendSequence", "gemini.forgetApiKey", "", 3]) {
      assert.equal(parseChatRequest({ type: "run", command }), undefined, String(command));
    }
  });

  it("open a file by its path, at a 1-based line", () => {
    assert.deepEqual(parseChatRequest({ type: "open", path: "main.go", line: 12 }), { type: "open", path: "main.go", line: 12 });
    assert.deepEqual(parseChatRequest({ type: "open", path: "main.go" }), { type: "open", path: "main.go", line: undefined });
    for (const bad of [{ path: "" }, { path: "a.go", line: 0 }, { path: "a.go", line: 1.5 }, { line: 3 }]) {
      assert.equal(parseChatRequest({ type: "open", ...bad }), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(parseChatRequest({ type: "open", path: "pkg", dir: true }), { type: "open", path: "pkg", line: undefined, dir: true });
    assert.deepEqual(parseChatRequest({ type: "open", path: "pkg", dir: "yes" }), { type: "open", path: "pkg", line: undefined });
  });

  it("open a shell call's output in a terminal by the call's id", () => {
    assert.deepEqual(parseChatRequest({ type: "openTerminal", callId: "call_1" }), { type: "openTerminal", callId: "call_1" });
    for (const bad of [{}, { callId: "" }, { callId: 3 }]) {
      assert.equal(parseChatRequest({ type: "openTerminal", ...bad }), undefined, JSON.stringify(bad));
    }
  });
});
