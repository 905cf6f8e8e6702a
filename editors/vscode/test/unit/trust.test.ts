// VS Code's trust as gemini-ls is told it (trust.ts): a standing decision
// in initializationOptions, never GEMINI_CLI_TRUST_WORKSPACE=true, the
// run's yes that gemini-ls does not check against what sandboxed commands
// changed; Restricted Mode's false in the environment, which decides first.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serverEnv } from "../../src/serverEnv";
import { trustEnv, trustOptions, trustVariable } from "../../src/trust";

describe("VS Code's trust for gemini-ls", () => {
  const inherited = { PATH: "/bin", [trustVariable]: "true", GEMINI_API_KEY: "k" };

  it("trusted: handed over as workspaceTrust, and the run's yes is not inherited", () => {
    assert.deepEqual(trustOptions(true), { workspaceTrust: true });
    const env = serverEnv(inherited, trustEnv(true));
    assert.equal(trustVariable in env, false, `${trustVariable} reaches gemini-ls: ${JSON.stringify(env)}`);
    assert.deepEqual(env, { PATH: "/bin", GEMINI_API_KEY: "k" });
  });

  it("Restricted Mode: false in the environment and in initializationOptions", () => {
    assert.deepEqual(trustOptions(false), { workspaceTrust: false });
    assert.deepEqual(serverEnv(inherited, trustEnv(false)), { ...inherited, [trustVariable]: "false" });
  });

  it("leaves VS Code's environment itself alone", () => {
    serverEnv(inherited, trustEnv(true));
    assert.equal(inherited[trustVariable], "true");
  });
});
