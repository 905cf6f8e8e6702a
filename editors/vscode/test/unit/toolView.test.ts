import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffLineKinds, diffStat, foundRows, kindIcon, outcomeIcons, statText, toolOutcome, turnChanges } from "../../src/toolView";

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

  it("says how an edit the user changed landed, in the server's words", () => {
    assert.deepEqual(toolOutcome({ name: "write_file", status: "ok", display: replaceDiff, outcome: "accepted in part: 1 of 2 changes" }, false), {
      tone: "done",
      words: "accepted in part: 1 of 2 changes",
    });
    assert.equal(toolOutcome({ name: "write_file", status: "ok", display: replaceDiff }, false).words, "done");
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

describe("a call's icons", () => {
  it("are codicons of what the call does, and of what became of it (no check for a failure)", () => {
    assert.equal(kindIcon("execute"), "terminal");
    assert.equal(kindIcon("search"), "search");
    assert.equal(kindIcon(undefined), "tools");
    assert.equal(kindIcon("nonsense"), "tools");
    assert.equal(outcomeIcons.failed, "error");
    assert.equal(outcomeIcons.done, "check");
  });
});

describe("a coloured diff", () => {
  it("tells additions, removals, hunks and file heads apart, a removed \"-- x\" line included", () => {
    const lines = ["--- a/q.sql", "+++ b/q.sql", "@@ -1,2 +1,2 @@", "--- old comment", "+-- new comment", " keep", "--- a/r.sql", "+++ b/r.sql", "@@ -1 +1 @@", "-x", "+y"];
    assert.deepEqual(diffLineKinds(lines), ["meta", "meta", "hunk", "del", "add", "context", "meta", "meta", "hunk", "del", "add"]);
  });
});

describe("what a search found", () => {
  it("lists the first few places, a line as path:line and a directory with its slash, then how many more (those the server left out too)", () => {
    const found = [{ path: "pkg", dir: true }, { path: "main.go", line: 9 }, { path: "README.md" }];
    assert.deepEqual(foundRows(found, 3).rows.map((r) => r.label), ["pkg/", "main.go:9", "README.md"]);
    assert.equal(foundRows(found, 3).more, 0);
    const many = Array.from({ length: 100 }, (_, i) => ({ path: "a.go", line: i + 1 }));
    const { rows, more } = foundRows(many, 1500);
    assert.equal(rows.length, 20);
    assert.equal(rows.at(-1)?.label, "a.go:20");
    assert.equal(more, 1480);
  });
});
