import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffStat, statText, toolOutcome, turnChanges } from "../../src/toolView";

const shell = (display: string) => ({ name: "run_shell_command", status: "ok", display });
const replaceDiff = "```diff\n--- a/config.go\n+++ b/config.go\n@@ -1,2 +1,3 @@\n-a\n+b\n+c\n d\n```";

describe("a tool call's outcome", () => {
  it("says a shell command that exited non-zero failed, never done", () => {
    // As the server sends it: the call is ok, its display starts with the exit code.
    assert.deepEqual(toolOutcome(shell("Exit code 127\n\n```\nbash: go: command not found\n```"), false), { tone: "failed", words: "failed (exit 127)" });
    assert.deepEqual(toolOutcome(shell("Exit code (none)\n\n```\n```"), false), { tone: "failed", words: "failed (killed)" });
    assert.deepEqual(toolOutcome(shell("```\nok\n```"), false), { tone: "done", words: "done" });
  });

  it("says failed, refused, cancelled, and waiting for your review while an edit's review is open", () => {
    assert.equal(toolOutcome({ name: "read_file", status: "error", display: "no such file" }, false).words, "failed");
    assert.equal(toolOutcome({ name: "replace", status: "rejected", display: "" }, false).words, "refused");
    assert.equal(toolOutcome({ name: "replace", status: "cancelled", display: "" }, false).words, "cancelled");
    assert.equal(toolOutcome({ name: "replace", status: "running", display: "" }, true).words, "waiting for your review");
    assert.equal(toolOutcome({ name: "replace", status: "running", display: "" }, false).words, "running");
    assert.equal(toolOutcome({ name: "read_file", status: "running", display: "" }, true).words, "running");
  });
});

describe("an edit's files", () => {
  it("counts the lines a result's diff adds and removes", () => {
    assert.deepEqual(diffStat(replaceDiff), [{ path: "config.go", added: 2, removed: 1 }]);
    assert.equal(statText(diffStat(replaceDiff)[0]), "+2 −1");
    assert.deepEqual(diffStat("no diff here"), []);
  });

  it("lists the files a turn's landed edits changed, each once", () => {
    const turn = {
      items: [
        { kind: "tool" as const, callId: "1", name: "replace", title: "Edit config.go", status: "ok" as const, display: replaceDiff, rev: 0 },
        { kind: "tool" as const, callId: "2", name: "replace", title: "Edit config.go", status: "ok" as const, display: replaceDiff, rev: 0 },
        { kind: "tool" as const, callId: "3", name: "write_file", title: "WriteFile x.go", status: "rejected" as const, display: "```diff\n--- a/x.go\n+++ b/x.go\n+y\n```", rev: 0 },
      ],
    };
    assert.deepEqual(turnChanges(turn), [{ path: "config.go", added: 4, removed: 2 }]);
  });
});
