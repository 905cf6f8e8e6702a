// "Gemini: Sign in with Google": the request it sends and what the user is told.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyWorks, signIn } from "../../src/login";
import type { LoginResult } from "../../src/protocol";

function recording(answer: (method: string, params: unknown) => unknown) {
  const sent: { method: string; params: unknown }[] = [];
  const request = async <R>(method: string, params: unknown): Promise<R> => {
    sent.push({ method, params });
    return answer(method, params) as R;
  };
  return { sent, request };
}

const usable: LoginResult = {
  email: "ada@example.com",
  credentialsFile: "/home/ada/.gemini/oauth_creds.json",
  auth: { type: "oauth-personal", source: "default", usable: true, variables: null, files: null },
};

describe("Sign in with Google", () => {
  it("sends gemini/login and says who signed in", async () => {
    const { sent, request } = recording(() => usable);
    const outcome = await signIn(request);
    assert.deepEqual(sent, [{ method: "gemini/login", params: {} }]);
    assert.deepEqual(outcome, { text: "Signed in with Google as ada@example.com.", warn: false });
  });

  it("asks for the pasted-code sign-in when manual", async () => {
    const { sent, request } = recording(() => usable);
    await signIn(request, true);
    assert.deepEqual(sent, [{ method: "gemini/login", params: { manual: true } }]);
  });

  it("warns when another auth type stays in use", async () => {
    const { request } = recording(() => ({ ...usable, auth: { type: "gemini-api-key", source: "settings", usable: true } }));
    const outcome = await signIn(request);
    assert.equal(outcome.warn, true);
    assert.match(outcome.text, /uses gemini-api-key \(from settings\); set security.auth.selectedType to "oauth-personal"/);
  });

  it("shows the server's error, and nothing when cancelled", async () => {
    const fail = (code: number, message: string) => recording(() => {
      throw Object.assign(new Error(message), { code });
    }).request;
    assert.deepEqual(await signIn(fail(-32803, "Sign in with Google failed: OAuth state mismatch. Possible CSRF attack or browser session issue.")), {
      text: "Sign in with Google failed: OAuth state mismatch. Possible CSRF attack or browser session issue.",
      warn: true,
    });
    assert.equal((await signIn(fail(-32800, "cancelled"))).cancelled, true);
    assert.match((await signIn(fail(-32601, "no such method"))).text, /Update gemini-ls/);
  });
});

describe("Sign in with Google while a key works", () => {
  it("is not offered while an API key reaches the model, and is where none does", () => {
    assert.equal(keyWorks({ type: "gemini-api-key", usable: true }), true);
    assert.equal(keyWorks({ type: "gemini-api-key", usable: false }), false, "a key refused: signing in is a way out");
    assert.equal(keyWorks({ type: "oauth-personal", usable: true }), false);
    assert.equal(keyWorks(undefined), false);
  });
});
