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

  it("offers the command's prefix as a narrower Always Allow, and names the directory the server says it runs in", () => {
    const q = confirmAsk(
      {
        sessionId: "S",
        callId: "c1",
        kind: "execute",
        title: "Allow shell command?",
        details: "go test ./...",
        canAllowAlways: true,
        alwaysCommands: ["go"],
        alwaysPrefixes: ["go test"],
        dir: "/w/pkg",
      },
      undefined,
    );
    assert.deepEqual(
      q.options.map((o) => [o.id, o.label]),
      [
        ["proceed_once", "Allow Once"],
        ["proceed_always_prefix", "Always Allow go test …"],
        ["proceed_always", "Always Allow"],
      ],
    );
    assert.match(q.text, /Runs in `\/w\/pkg`\./, "the server's directory, not a stand-in");
    assert.match(q.text, /Always Allow go test … lets only the commands that start with `go test` run without asking, and never a line that also runs anything else/);
    assert.match(q.text, /Always Allow runs it and lets `go` run with any arguments/);
    // The server's directory wins over the call's own dir_path (relative, as the model wrote it).
    assert.match(confirmAsk({ sessionId: "S", kind: "execute", title: "t", details: "ls", canAllowAlways: false, dir: "/w/pkg" }, "pkg").text, /Runs in `\/w\/pkg`/);
    // What Always Allow covers is the server's list, not the line split here.
    assert.match(alwaysCovers({ kind: "execute", details: "(cd x && make)", canAllowAlways: true, alwaysCommands: ["cd", "make"] }), /lets `cd` and `make` run/);
  });

  it("answers the option chosen, and Deny cancels", () => {
    assert.equal(confirmFromAnswer({ chosen: ["proceed_always_prefix"], text: "", declined: false }), "proceed_always_prefix");
    assert.equal(confirmFromAnswer({ chosen: ["proceed_always"], text: "", declined: false }), "proceed_always");
    assert.equal(confirmFromAnswer({ chosen: [], text: "", declined: true }), "cancel");
  });
});
