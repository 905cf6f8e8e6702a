import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { chatCommands } from "../../src/chatCommands";
import { applyEvent, emptyChat, lastFailure } from "../../src/chatModel";
import { describeError, errorKinds, kindOfResponseError, type ErrorKind } from "../../src/errors";
import { statusView } from "../../src/present";

// The kinds the server sends, as docs/protocol.schema.json lists them (generated from the Go code).
const schema = JSON.parse(readFileSync(path.resolve(__dirname, "../../../../docs/protocol.schema.json"), "utf8"));
const serverKinds: string[] = schema.$defs.PromptResult.properties.errorKind.enum;

describe("describeError", () => {
  it("knows every kind the server sends, and the fix of each is an action or a button", () => {
    assert.ok(serverKinds.length > 10, `the schema lists ${serverKinds.length} kinds`);
    for (const kind of serverKinds) {
      assert.ok(errorKinds.includes(kind as ErrorKind), `no help for ${kind}`);
      const help = describeError(kind as ErrorKind);
      assert.ok(help.action !== "" || help.buttons.length > 0 || kind === "unsupported_location", `${kind} offers nothing`);
      for (const b of help.buttons) {
        assert.ok((chatCommands as readonly string[]).includes(b), `${kind}'s button ${b} is no chat command`);
      }
    }
  });

  it("offers the fix that fits the kind, never naming an environment variable for a key", () => {
    const buttons = (kind: ErrorKind) => describeError(kind).buttons;
    assert.deepEqual(buttons("invalid_api_key"), ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"]);
    assert.deepEqual(buttons("expired_api_key"), ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"]);
    assert.deepEqual(buttons("no_api_key"), ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"]);
    assert.deepEqual(buttons("sign_in_required"), ["gemini.signIn", "gemini.enterApiKey", "gemini.openAiStudio"]);
    assert.deepEqual(buttons("unauthenticated"), ["gemini.signIn", "gemini.enterApiKey", "gemini.retry"]);
    assert.deepEqual(buttons("quota"), ["gemini.chooseModel", "gemini.openQuota", "gemini.retry"]);
    assert.deepEqual(buttons("rate_limited"), ["gemini.retry", "gemini.chooseModel"]);
    assert.deepEqual(buttons("network"), ["gemini.retry"]);
    assert.deepEqual(buttons("unknown_model"), ["gemini.chooseModel"]);
    assert.deepEqual(buttons("restricted"), ["workbench.trust.manage"]);
    for (const kind of ["invalid_api_key", "expired_api_key", "no_api_key"] as const) {
      assert.doesNotMatch(describeError(kind).action, /GEMINI_API_KEY|environment/);
    }
  });

  it("offers nothing for a failure of no kind, whatever its words say", () => {
    assert.deepEqual(describeError(undefined), { title: "Gemini failed.", action: "", buttons: [] });
    assert.deepEqual(describeError("API key not valid" as ErrorKind), { title: "Gemini failed.", action: "", buttons: [] });
  });

  it("reads the kind of a refused request from its error's data, not its message", () => {
    assert.deepEqual(kindOfResponseError({ message: "GEMINI_API_KEY environment variable not found", data: { errorKind: "no_api_key" } }), { errorKind: "no_api_key" });
    assert.deepEqual(kindOfResponseError({ message: "GEMINI_API_KEY environment variable not found" }), {});
    assert.deepEqual(kindOfResponseError({ data: { errorKind: "restricted" } }), {});
    assert.deepEqual(kindOfResponseError(new Error("x")), {});
  });
});

describe("a failed turn", () => {
  const failWith = (errorKind: ErrorKind | undefined, error: string) => {
    const chat = emptyChat();
    applyEvent(chat, { type: "prompt", text: "hi" });
    applyEvent(chat, { type: "result", result: { sessionId: "S", stopReason: "error", text: "", error, ...(errorKind && { errorKind }) } as never });
    return chat;
  };

  it("shows the kind's buttons in the chat and its state in the status bar", () => {
    const chat = failWith("quota", "The quota for gemini-2.5-pro is used up: wait, pick another model with /model, or raise it.");
    const item = chat.turns[0].items.find((i) => i.kind === "error");
    assert.ok(item?.kind === "error");
    assert.deepEqual(item.buttons, ["gemini.chooseModel", "gemini.openQuota", "gemini.retry"]);
    assert.equal(lastFailure(chat), "quota");
    const view = statusView({ server: "running", working: false, reviews: 0, failure: lastFailure(chat) });
    assert.equal(view.text, "$(error) Gemini: quota used up");
    assert.equal(view.command, "gemini.chooseModel");
    assert.equal(view.error, true);
  });

  it("has a status bar state for each kind with a fix a click away", () => {
    const want: Partial<Record<ErrorKind, [string, string]>> = {
      invalid_api_key: ["$(error) Gemini: sign in", "gemini.signInMenu"],
      quota: ["$(error) Gemini: quota used up", "gemini.chooseModel"],
      network: ["$(error) Gemini: offline", "gemini.retry"],
      unknown_model: ["$(error) Gemini: unknown model", "gemini.chooseModel"],
      rate_limited: ["$(error) Gemini: rate-limited", "gemini.retry"],
    };
    for (const [kind, [text, command]] of Object.entries(want)) {
      const view = statusView({ server: "running", working: false, reviews: 0, failure: kind as ErrorKind });
      assert.deepEqual([view.text, view.command], [text, command], kind);
    }
  });

  it("leaves the status bar alone for a failure of no kind, and once the next prompt runs", () => {
    const chat = failWith(undefined, "API key not valid. Please pass a valid API key.");
    assert.equal(lastFailure(chat), undefined);
    const item = chat.turns[0].items.find((i) => i.kind === "error");
    assert.ok(item?.kind === "error");
    assert.deepEqual(item.buttons, [], "no buttons from the words");
    const failed = failWith("network", "Could not connect");
    applyEvent(failed, { type: "prompt", text: "again" });
    assert.equal(lastFailure(failed), undefined);
  });
});
