import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeError } from "../../src/errors";
import { restrictedPermissions } from "../../src/trust";

describe("describeError", () => {
  const cases: Array<[string, string]> = [
    ["GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!", "Gemini needs an API key."],
    ["No cached Google login found (/home/ada/.gemini/oauth_creds.json does not exist). Sign in with Google: run `gemini-ls login`", "Gemini needs you to sign in with Google."],
    ["When using Vertex AI, you must specify either:\n• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.", "Vertex AI needs a project or an API key."],
    ["Error 400, Message: API key not valid. Please pass a valid API key., Status: INVALID_ARGUMENT, Details: []", "The API key was refused."],
    ["Error 429, Message: Resource has been exhausted (e.g. check quota)., Status: RESOURCE_EXHAUSTED, Details: []", "The Gemini quota is used up."],
    ["Error 404, Message: models/gemini-9 is not found for API version v1beta, Status: NOT_FOUND", "The model was not found."],
    ["session KDETU is already running a prompt; cancel it (gemini/cancel) or wait for it to finish", "Gemini is still answering the previous prompt."],
  ];
  for (const [message, title] of cases) {
    it(`explains ${title}`, () => {
      const help = describeError(message);
      assert.equal(help.title, title);
      assert.ok(help.action !== "" || (help.buttons ?? []).length > 0, "says or offers what to do");
    });
  }

  it("offers to enter a key, sign in, get a key and retry where the key is missing or refused, never an environment variable", () => {
    for (const message of [cases[0][0], cases[3][0]]) {
      const help = describeError(message);
      assert.deepEqual(help.buttons, ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio", "gemini.retry"]);
      assert.doesNotMatch(help.action, /GEMINI_API_KEY|environment/);
    }
  });

  it("offers Manage Workspace Trust for /permissions in Restricted Mode", () => {
    assert.deepEqual(describeError(restrictedPermissions).buttons, ["workbench.trust.manage"]);
  });

  it("falls back to the message itself for anything else", () => {
    assert.deepEqual(describeError("stream broke"), { title: "Gemini failed.", action: "" });
    assert.equal(describeError("stream broke").buttons, undefined);
  });
});
