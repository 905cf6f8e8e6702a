import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerMessages, estimateTokens, lmModels, lmRole } from "../../src/lmModels";

describe("lmModels", () => {
  it("offers each model but auto, by the id gemini-ls asks for, without tools", () => {
    const got = lmModels([
      { id: "auto", name: "Auto", description: "Picks the model for each prompt" },
      { id: "gemini-3.1-pro-preview-customtools", name: "gemini-3.1-pro-preview" },
      { id: "gemini-3.8-flash", name: "gemini-3.8-flash" },
    ]);
    assert.deepEqual(
      got.map((m) => [m.id, m.name, m.family]),
      [
        ["gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview", "gemini-3.1-pro-preview"],
        ["gemini-3.8-flash", "gemini-3.8-flash", "gemini-3.8-flash"],
      ],
    );
    for (const m of got) {
      assert.deepEqual(m.capabilities, { imageInput: false, toolCalling: false });
      assert.equal(m.maxInputTokens, 1_048_576);
      assert.equal(m.detail, "gemini-ls");
    }
  });
});

describe("answerMessages", () => {
  const text = (value: string) => ({ value });

  it("keeps the conversation's text in order, by role", () => {
    assert.deepEqual(
      answerMessages([
        { role: lmRole.user, content: [text("What is "), text("a goroutine?")] },
        { role: lmRole.assistant, content: [text("A function run concurrently.")] },
        { role: lmRole.user, content: [text("And a channel?")] },
      ]),
      {
        messages: [
          { role: "user", text: "What is a goroutine?" },
          { role: "assistant", text: "A function run concurrently." },
          { role: "user", text: "And a channel?" },
        ],
      },
    );
  });

  it("makes system messages the system instruction and one role's run one message", () => {
    assert.deepEqual(
      answerMessages([
        { role: lmRole.system, content: [text("Be brief.")] },
        { role: lmRole.user, content: [text("context")] },
        { role: lmRole.user, content: [text("question")] },
      ]),
      { system: "Be brief.", messages: [{ role: "user", text: "context\n\nquestion" }] },
    );
  });

  it("leaves out parts that are not text, and messages left empty", () => {
    const toolCall = { callId: "1", name: "search", input: {} };
    const data = { mimeType: "image/png", data: new Uint8Array(1) };
    assert.deepEqual(
      answerMessages([
        { role: lmRole.assistant, content: [toolCall] },
        { role: lmRole.user, content: [data, text("look")] },
      ]),
      { messages: [{ role: "user", text: "look" }] },
    );
  });
});

describe("estimateTokens", () => {
  it("counts a quarter of the characters, rounded up", () => {
    assert.equal(estimateTokens(""), 0);
    assert.equal(estimateTokens("abcde"), 2);
  });
});
