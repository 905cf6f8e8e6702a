// The key entered in VS Code (apiKey.ts, kept in its secret storage) as
// gemini-ls is handed it: under GEMINI_LS_EDITOR_API_KEY, which gemini-ls
// reads as GEMINI_API_KEY and passes to no command, never as
// GEMINI_API_KEY itself, which commands inherit.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { editorKeyEnv, editorKeyVariable, serverEnv } from "../../src/serverEnv";

describe("the key kept in VS Code's secret storage", () => {
  it("goes under gemini-ls's own variable, not GEMINI_API_KEY", () => {
    assert.equal(editorKeyVariable, "GEMINI_LS_EDITOR_API_KEY");
    assert.deepEqual(editorKeyEnv("kept-key"), { GEMINI_LS_EDITOR_API_KEY: "kept-key" });
    const env = serverEnv({ PATH: "/bin" }, editorKeyEnv("kept-key"));
    assert.deepEqual(env, { PATH: "/bin", GEMINI_LS_EDITOR_API_KEY: "kept-key" });
    assert.equal("GEMINI_API_KEY" in env, false, `GEMINI_API_KEY set from the secret storage: ${JSON.stringify(env)}`);
  });

  it("leaves the user's own GEMINI_API_KEY as VS Code's environment has it", () => {
    const env = serverEnv({ PATH: "/bin", GEMINI_API_KEY: "users-own" }, editorKeyEnv("kept-key"));
    assert.deepEqual(env, { PATH: "/bin", GEMINI_API_KEY: "users-own", GEMINI_LS_EDITOR_API_KEY: "kept-key" });
  });

  it("sets nothing without a key", () => {
    assert.deepEqual(editorKeyEnv(undefined), {});
    assert.deepEqual(editorKeyEnv(""), {});
  });
});
