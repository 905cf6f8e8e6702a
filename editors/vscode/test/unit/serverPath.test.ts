import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { bundledServer, isExecutableFile, resolveServer } from "../../src/serverPath";

const base = { env: {}, platform: "linux" as const, home: "/home/ada" };

describe("resolveServer", () => {
  it("uses gemini.serverPath, expanding ~ and resolving relative paths", () => {
    const seen: string[] = [];
    const isExecutable = (f: string) => (seen.push(f), true);
    assert.deepEqual(resolveServer({ ...base, setting: "~/bin/gemini-ls", isExecutable }), { command: "/home/ada/bin/gemini-ls" });
    assert.deepEqual(resolveServer({ ...base, setting: "bin/gemini-ls", base: "/work/proj", isExecutable }), { command: "/work/proj/bin/gemini-ls" });
    assert.deepEqual(seen, ["/home/ada/bin/gemini-ls", "/work/proj/bin/gemini-ls"]);
  });

  it("says what is wrong with a serverPath that is not executable", () => {
    const r = resolveServer({ ...base, setting: "/nope/gemini-ls", isExecutable: () => false });
    assert.ok("error" in r);
    assert.match(r.error, /gemini.serverPath is "\/nope\/gemini-ls", but \/nope\/gemini-ls is not an executable file/);
  });

  it("looks on PATH, in order", () => {
    const env = { PATH: ["/a", "/b", "/c"].join(path.delimiter) };
    const r = resolveServer({ ...base, env, setting: "", isExecutable: (f) => f === "/b/gemini-ls" || f === "/c/gemini-ls" });
    assert.deepEqual(r, { command: "/b/gemini-ls" });
  });

  it("runs the gemini-ls a per-platform .vsix carries before PATH's", () => {
    const env = { PATH: "/a" };
    const r = resolveServer({ ...base, env, setting: "", extensionDir: "/ext", isExecutable: (f) => f === "/ext/server/gemini-ls" || f === "/a/gemini-ls" });
    assert.deepEqual(r, { command: "/ext/server/gemini-ls" });
    assert.equal(bundledServer("/ext", "win32"), path.join("/ext", "server", "gemini-ls.exe"));
  });

  it("lets gemini.serverPath win over the bundled gemini-ls", () => {
    const r = resolveServer({ ...base, setting: "/opt/gemini-ls", extensionDir: "/ext", isExecutable: () => true });
    assert.deepEqual(r, { command: "/opt/gemini-ls" });
  });

  it("looks on PATH when the .vsix carries no gemini-ls", () => {
    const r = resolveServer({ ...base, env: { PATH: "/a" }, setting: "", extensionDir: "/ext", isExecutable: (f) => f === "/a/gemini-ls" });
    assert.deepEqual(r, { command: "/a/gemini-ls" });
  });

  it("tells the user how to install or configure when it is nowhere", () => {
    const r = resolveServer({ ...base, env: { PATH: "/a" }, setting: "", extensionDir: "/ext", isExecutable: () => false });
    assert.ok("error" in r);
    assert.match(r.error, /no gemini-ls for this platform.*not found on PATH.*\.vsix for your platform.*gemini.serverPath/);
  });
});

describe("isExecutableFile", () => {
  it("accepts executable files only", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gemini-ls-path-"));
    try {
      const exe = path.join(dir, "exe");
      const plain = path.join(dir, "plain");
      fs.writeFileSync(exe, "#!/bin/sh\n", { mode: 0o755 });
      fs.writeFileSync(plain, "", { mode: 0o644 });
      assert.equal(isExecutableFile(exe), true);
      assert.equal(isExecutableFile(dir), false, "a directory");
      assert.equal(isExecutableFile(path.join(dir, "missing")), false);
      // Even for root, access(2) wants some execute bit.
      assert.equal(isExecutableFile(plain), false);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
