// The session list and resume against the real gemini-ls and the fake
// Gemini API: a session outlives its server. Binaries from GEMINI_LS_BIN and
// FAKEGEMINI_BIN, else built with Go from this checkout.
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { applyEvent, emptyChat } from "../../src/chatModel";
import { modeLabel } from "../../src/modes";
import { sessionPicks } from "../../src/present";
import type { PromptResult, SessionInfo } from "../../src/protocol";
import { deleteSession, listSessions, methodNotFound, resumeSession, type Request } from "../../src/sessions";

const tmp = mkdtempSync(join(tmpdir(), "gemini-vscode-sessions-"));

function binaries(): { server: string; fake: string } {
  if (process.env.GEMINI_LS_BIN && process.env.FAKEGEMINI_BIN) {
    return { server: process.env.GEMINI_LS_BIN, fake: process.env.FAKEGEMINI_BIN };
  }
  // dist/test/ → the repository root.
  const repo = resolve(__dirname, "../../../..");
  const server = join(tmp, "gemini-ls");
  const fake = join(tmp, "fakegemini");
  execFileSync("go", ["build", "-o", server, "./cmd/gemini-ls"], { cwd: repo, stdio: "inherit" });
  execFileSync("go", ["build", "-o", fake, "./internal/agent/geminitest/cmd/fakegemini"], { cwd: repo, stdio: "inherit" });
  return { server, fake };
}

interface Server {
  proc: ChildProcess;
  conn: MessageConnection;
  request: Request;
}

describe("sessions against gemini-ls", () => {
  let bins: { server: string; fake: string };
  let fake: ChildProcess;
  let baseURL: string;
  const record = join(tmp, "requests.jsonl");
  const home = join(tmp, "home");
  const workspace = join(tmp, "ws");
  const started: Server[] = [];

  before(async () => {
    bins = binaries();
    execFileSync("mkdir", ["-p", home, workspace]);
    const script = join(tmp, "script.json");
    // The first answer's usage, as Gemini counts it, is what the resumed session has cost.
    const usage = { promptTokenCount: 1200, cachedContentTokenCount: 400, candidatesTokenCount: 5, totalTokenCount: 1205 };
    writeFileSync(script, JSON.stringify([{ text: "noted: 42", usage }, { text: "it was 42" }, { text: "noted: 7" }]));
    fake = spawn(bins.fake, ["--script", script, "--record", record], { stdio: ["ignore", "pipe", "inherit"] });
    baseURL = await new Promise<string>((res, rej) => {
      let out = "";
      fake.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /^GOOGLE_GEMINI_BASE_URL=(.*)$/m.exec(out);
        if (m) {
          res(m[1]);
        }
      });
      fake.on("exit", () => rej(new Error("fakegemini exited: " + out)));
    });
  });

  after(() => {
    for (const s of started) {
      s.conn.dispose();
      s.proc.kill();
    }
    fake?.kill();
    rmSync(tmp, { recursive: true, force: true });
  });

  // A gemini-ls whose saved sessions go to the test's own HOME.
  async function startServer(): Promise<Server> {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, ".local/state"), GEMINI_API_KEY: "test", GEMINI_MODEL: "gemini-2.5-pro", GOOGLE_GEMINI_BASE_URL: baseURL };
    delete env.GOOGLE_API_KEY;
    delete env.GOOGLE_GENAI_USE_VERTEXAI;
    const proc = spawn(bins.server, [], { cwd: workspace, env, stdio: ["pipe", "pipe", "inherit"] });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onRequest(() => null);
    conn.listen();
    const uri = pathToFileURL(workspace).toString();
    await conn.sendRequest("initialize", { processId: process.pid, rootUri: uri, workspaceFolders: [{ uri, name: "ws" }], capabilities: {} });
    await conn.sendNotification("initialized", {});
    const server = { proc, conn, request: ((method: string, params: unknown) => conn.sendRequest(method, params)) as Request };
    started.push(server);
    return server;
  }

  async function stop(s: Server): Promise<void> {
    await s.conn.sendRequest("shutdown");
    await s.conn.sendNotification("exit");
    await new Promise((res) => (s.proc.exitCode !== null ? res(null) : s.proc.on("exit", res)));
  }

  it("lists a session saved by an earlier server, shows its conversation and continues it", async () => {
    const first = await startServer();
    const old = await first.request<PromptResult>("gemini/prompt", { prompt: "remember 42" });
    assert.equal(old.stopReason, "end_turn");
    await stop(first);

    const second = await startServer();
    const root = pathToFileURL(workspace).toString();
    const sessions = await listSessions(second.request, root);
    const [pick] = sessionPicks(sessions, undefined, new Date());
    assert.deepEqual([pick.sessionId, pick.label, pick.description], [old.sessionId, "remember 42", "1 prompt · just now · saved"]);
    assert.deepEqual(await listSessions(second.request, pathToFileURL(tmp).toString()), [], "another root's list");

    const resumed = await resumeSession(second.request, pick.sessionId, pick.session, "default");
    const chat = emptyChat();
    applyEvent(chat, { type: "session", mode: "default", sessionId: resumed.session.sessionId, title: pick.title, exchanges: resumed.exchanges, usage: resumed.usage });
    assert.equal(chat.sessionId, old.sessionId);
    // Its bill shows before its next answer: the tokens, the cached ones, the window's fill.
    assert.deepEqual(
      chat.usage && [chat.usage.sessionTokens, chat.usage.cachedTokens, chat.usage.contextUsed, chat.usage.contextSize > 0],
      [1205, 400, 1200, true],
      `the resumed session's usage: ${JSON.stringify(resumed.usage)}`,
    );
    assert.deepEqual(
      chat.turns.map((t) => [t.prompt, t.items.map((i) => i.kind === "text" && i.text), t.stopReason]),
      [["remember 42", ["noted: 42"], "end_turn"]],
    );

    // The next prompt goes to that session, and the model sees it whole.
    const next = await second.request<PromptResult>("gemini/prompt", { prompt: "what was it?", sessionId: chat.sessionId });
    assert.equal(next.sessionId, old.sessionId);
    const requests = readFileSync(record, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const contents = requests.at(-1).body.contents as { role: string; parts: { text?: string }[] }[];
    assert.deepEqual(
      contents.map((c) => `${c.role}: ${c.parts.findLast((p) => p.text !== undefined)?.text}`),
      ["user: remember 42", "model: noted: 42", "user: what was it?"],
    );

    await assert.rejects(resumeSession(second.request, "NOSUCHSESSION", pick.session, "default"), /unknown session "NOSUCHSESSION"/);
  });

  it("deletes a session, live or saved: no list shows it again", async () => {
    const server = await startServer();
    const root = pathToFileURL(workspace).toString();
    const live = await server.request<PromptResult>("gemini/prompt", { prompt: "remember 7" });
    const listed = (await listSessions(server.request, root)).map((s) => s.sessionId);
    assert.ok(listed.includes(live.sessionId) && listed.length > 1, `the sessions listed: ${listed}`);

    for (const id of listed) {
      await deleteSession(server.request, id);
    }
    assert.deepEqual(await listSessions(server.request, root), []);
    await assert.rejects(deleteSession(server.request, live.sessionId), /unknown session/);
  });
});

describe("sessions from older servers", () => {
  // As an older server lists it: no updatedAt, no live.
  const live = { sessionId: "A", title: "t", createdAt: "2025-06-01T11:30:00Z", prompts: 1 } as SessionInfo;
  const notFound = Object.assign(new Error("method not found"), { code: methodNotFound });

  it("falls back to gemini/sessions and to continuing by id", async () => {
    const asked: string[] = [];
    const request: Request = async <R>(method: string): Promise<R> => {
      asked.push(method);
      if (method === "gemini/sessions") {
        return { sessions: [live] } as R;
      }
      throw notFound;
    };
    assert.deepEqual(await listSessions(request, "file:///w"), [live]);
    assert.deepEqual(await resumeSession(request, "A", live, "auto_edit"), { session: live, exchanges: [], mode: "auto_edit" });
    assert.deepEqual(asked, ["gemini/listSessions", "gemini/sessions", "gemini/resumeSession"]);
  });

  it("passes other errors on", async () => {
    const request: Request = async () => {
      throw Object.assign(new Error("invalid params: sessionId: unknown session"), { code: -32602 });
    };
    await assert.rejects(listSessions(request, undefined), /unknown session/);
    await assert.rejects(resumeSession(request, "A", live, "default"), /unknown session/);
  });
});

describe("a resumed session's usage", () => {
  const info: SessionInfo = { sessionId: "P", title: "plan it", createdAt: "2026-11-20T10:00:00Z", updatedAt: "2026-11-20T10:00:00Z", prompts: 1, live: true };
  const answering =
    (result: object): Request =>
    async <R>() =>
      result as R;

  const noTokens = { promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, totalTokens: 0, cachedTokens: 0, toolUseTokens: 0 };
  const usage = { sessionId: "P", kind: "usage", ...noTokens, promptUsage: noTokens, sessionUsage: { ...noTokens, totalTokens: 9 }, contextUsed: 0, contextSize: 0 };
  const resumedUsage = async (result: object) => (await resumeSession(answering({ session: info, exchanges: [], mode: "plan", ...result }), "P", info, "default")).usage;

  it("is the server's usage update", async () => {
    assert.deepEqual(await resumedUsage({ usage }), usage);
  });

  it("is absent where an older server says none, or where what it says is no usage update", async () => {
    assert.equal(await resumedUsage({}), undefined);
    assert.equal(await resumedUsage({ usage: null }), undefined);
    assert.equal(await resumedUsage({ usage: { ...usage, kind: "bill" } }), undefined, "a kind this client does not know");
    assert.equal(await resumedUsage({ usage: { sessionId: "P", kind: "usage" } }), undefined, "a usage without its figures");
  });
});

describe("a resumed session's approval mode", () => {
  const info: SessionInfo = { sessionId: "P", title: "plan it", createdAt: "2026-11-20T10:00:00Z", updatedAt: "2026-11-20T10:00:00Z", prompts: 1, live: true };
  const answering =
    (result: object): Request =>
    async <R>() =>
      result as R;

  it("is the server's, where it says one, and shows in the chat's header", async () => {
    const resumed = await resumeSession(answering({ session: info, exchanges: [], mode: "plan" }), "P", info, "default");
    assert.equal(resumed.mode, "plan");
    const chat = emptyChat("default");
    applyEvent(chat, { type: "session", sessionId: "P", title: info.title, exchanges: resumed.exchanges, mode: resumed.mode });
    assert.equal(chat.mode, "plan");
    assert.equal(modeLabel(chat.mode), "Plan");
  });

  it("is the one given where the server says none", async () => {
    assert.equal((await resumeSession(answering({ session: info, exchanges: [] }), "P", info, "auto_edit")).mode, "auto_edit");
    assert.equal((await resumeSession(answering({ session: info, exchanges: [], mode: "" }), "P", info, "yolo")).mode, "yolo");
  });
});
