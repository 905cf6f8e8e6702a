import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alwaysCovers, commandRoots, confirmAsk, confirmFromAnswer } from "../../src/approval";

describe("a shell approval in the chat", () => {
  it("names the commands Always Allow covers, as the server allows them", () => {
    assert.deepEqual(commandRoots("git log | grep x && FOO=1 make test; echo done"), ["git", "grep", "make", "echo"]);
    assert.match(alwaysCovers({ kind: "execute", details: "git log | grep x", canAllowAlways: true }), /lets `git` and `grep` run with any arguments/);
    assert.equal(alwaysCovers({ kind: "execute", details: "rm -rf build", canAllowAlways: false }), "", "nothing to cover: the server's title says why");
  });

  it("shows the command, where it runs and its choices, Always Allow only where it holds", () => {
    const q = confirmAsk({ sessionId: "S", callId: "c1", kind: "execute", title: "Allow execution of: 'go'?", details: "go test ./...", canAllowAlways: true }, "pkg");
    assert.equal(q.kind, "confirm");
    assert.match(q.text, /```sh\ngo test \.\/\.\.\.\n```/);
    assert.match(q.text, /Runs in `pkg`\./);
    assert.deepEqual(q.options.map((o) => o.label), ["Allow Once", "Always Allow"]);
    const once = confirmAsk({ sessionId: "S", callId: "c1", kind: "execute", title: "t", details: "rm x", canAllowAlways: false }, undefined);
    assert.deepEqual(once.options.map((o) => o.id), ["proceed_once"]);
    assert.match(once.text, /Runs in the workspace folder/);
  });

  it("answers the option chosen, and Deny cancels", () => {
    assert.equal(confirmFromAnswer({ chosen: ["proceed_always"], text: "", declined: false }), "proceed_always");
    assert.equal(confirmFromAnswer({ chosen: [], text: "", declined: true }), "cancel");
  });
});
