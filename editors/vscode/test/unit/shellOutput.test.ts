import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { forTerminal, shellTranscript, terminalText } from "../../src/shellOutput";

describe("a shell call's output", () => {
  it("is read from the display as run_shell_command writes it", () => {
    // internal/tools/shell.go's report: the exit code, then the output in a fence.
    assert.deepEqual(shellTranscript("Exit code 127\n\n```\nbash: go: command not found\n```"), {
      output: "bash: go: command not found",
      cut: undefined,
      before: "Exit code 127",
      after: "",
    });
    assert.deepEqual(shellTranscript("```\n(empty)\n```"), { output: "", cut: undefined, before: "", after: "" });
    // A longer fence where the output holds backticks (dialog.Fence).
    assert.equal(shellTranscript("````\na ``` b\n```\n````\n\nSandboxed: bwrap.")?.output, "a ``` b\n```");
    assert.equal(shellTranscript("````\na\n````\n\nSandboxed: bwrap.")?.after, "Sandboxed: bwrap.");
  });

  it("says what the server cut", () => {
    const t = shellTranscript("Exit code 3\n\n```\n[Output truncated: showing the last 65536 of 108894 bytes]\n19999\n20000\n```");
    assert.deepEqual(t?.cut, { kept: 65536, total: 108894 });
    assert.equal(t?.output, "19999\n20000");
    const text = terminalText("seq 1 20000; exit 3", undefined, t!);
    assert.equal(
      text,
      "$ seq 1 20000; exit 3\r\n[Output cut: gemini-ls kept the last 65,536 of 108,894 bytes; the first 43,358 are not shown.]\r\n19999\r\n20000\r\nExit code 3\r\n" +
        "[Output cut: gemini-ls kept the last 65,536 of 108,894 bytes; the first 43,358 are not shown.]\r\n",
    );
    assert.match(terminalText("x", undefined, shellTranscript("```\n[Output truncated: showing the last 10 bytes]\nabc\n```")!), /kept the last 10 bytes\.\]/);
  });

  it("has none for a call that did not run", () => {
    assert.equal(shellTranscript(""), undefined);
    assert.equal(shellTranscript("Command was cancelled before it could complete."), undefined);
  });

  it("shows where it ran and a success's exit code", () => {
    assert.equal(terminalText("ls", "sub", shellTranscript("```\na\n```")!), "$ ls\r\n(in sub)\r\nExit code 0\r\n".replace("Exit", "a\r\nExit"));
  });

  it("keeps colours and drops the escapes that would set the title, the clipboard or move the cursor", () => {
    assert.equal(forTerminal("\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b]52;c;aGk=\x1b\\\x1b[2J\x07x\ty"), "\x1b[31mred\x1b[0mx\ty");
  });
});
