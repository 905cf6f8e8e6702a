// The test client's machinery: the fake model (fakegemini), `gemini-ls acp`
// driven by the ACP reference SDK's client, an editor's side of the
// protocol (buffers, permission answers, terminals), every wire message
// logged in both directions, and pass/fail reporting.
import { spawn } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

export const { methods, RequestError } = acp;

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name}`);
  return v;
};
export const bins = {
  geminiLs: () => env("GEMINI_LS_BIN"),
  fake: () => env("FAKEGEMINI_BIN"),
  mcp: () => env("MCPSERVER_BIN"),
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// within rejects when p has not settled in ms.
export function within(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// A scenario's directories: a workspace (the session's cwd) and a home,
// both temporary, with symlinks resolved (the agent reports real paths).
// trusted: the user trusts the project folder, as Gemini CLI records it
// (~/.gemini/trustedFolders.json); otherwise the user answered "Don't
// trust" (so the first prompt does not ask), and it runs in Gemini CLI's
// safe mode: default approval mode only, no MCP servers.
export function workdir(files = {}, { trusted = false } = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acp-test-")));
  const root = path.join(base, "project");
  const home = path.join(base, "home");
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.join(home, ".gemini"), { recursive: true });
  fs.writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [root]: trusted ? "TRUST_FOLDER" : "DO_NOT_TRUST" }));
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(root, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return { base, root, home, path: (name) => path.join(root, name), read: (name) => fs.readFileSync(path.join(root, name), "utf8") };
}

// startFake serves turns (internal/agent/geminitest's script format) on a loopback
// port and records every request the agent makes.
export async function startFake(dir, turns) {
  const script = path.join(dir.base, `turns-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const record = script.replace(/\.json$/, ".requests.jsonl");
  fs.writeFileSync(script, JSON.stringify(turns));
  const proc = spawn(bins.fake(), ["--script", script, "--record", record], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (b) => (stderr += b));
  const url = await within(
    new Promise((resolve, reject) => {
      let out = "";
      proc.stdout.on("data", (b) => {
        out += b;
        const m = out.match(/GOOGLE_GEMINI_BASE_URL=(\S+)\n/);
        if (m) resolve(m[1]);
      });
      proc.on("exit", (code) => reject(new Error(`fakegemini exited ${code}: ${stderr}`)));
    }),
    10000,
    "fakegemini to start",
  );
  return {
    url,
    // records are the requests the model was sent, in order, each
    // {method, model, body}.
    records() {
      if (!fs.existsSync(record)) return [];
      return fs
        .readFileSync(record, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
    },
    // requests are the bodies the model was sent, in order.
    requests() {
      return this.records().map((r) => r.body);
    },
    // problems are the requests the script did not cover, as fakegemini logs them.
    stderr: () => stderr,
    async stop() {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await once(proc, "exit");
      }
    },
  };
}

// functionResponses are the functionResponse parts model request i adds
// to the history (each {name, response}): those of its last content, the
// answers to the calls of the model's previous turn.
export function functionResponses(requests, i) {
  const last = requests[i]?.contents?.at(-1);
  return (last?.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse);
}

// declared are the function names model request i declares.
export function declared(requests, i) {
  return (requests[i]?.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
}

// An Agent is one `gemini-ls acp` process with the SDK's client connected
// to it. Options:
//   dir        workdir(); its home is the process's HOME
//   fake       startFake()'s server
//   caps       clientCapabilities to declare in initialize (default: fs and terminal)
//   buffers    {absolute path: text}: the editor's unsaved buffers
//   answer     (RequestPermissionRequest) => option kind to pick ("allow_once",
//              "allow_always", "reject_once", …), "cancelled", or "hold"
//   writeNull  answer fs/write_text_file with a null result, as codecompanion.nvim does
//   wire       a Wire to log every message to
export class Agent {
  constructor(opts) {
    this.opts = opts;
    this.dir = opts.dir;
    this.buffers = new Map(Object.entries(opts.buffers ?? {}));
    this.updates = [];
    this.permissions = [];
    this.reads = [];
    this.writes = [];
    this.terminals = new Map();
    this.terminalRequests = [];
    this.rawAnswers = [];
    // agentAnswers are the agent's answers (messages without a method);
    // clientRequestIds the ids of the requests the SDK's client sent.
    this.agentAnswers = [];
    this.clientRequestIds = new Set();
    this.agentRequests = new Map(); // the agent's requests' methods, by id
    this.elicitations = []; // the agent's elicitation/create params
    this.waiters = new Set();
    this.nextTerminal = 0;
    this.caps = opts.caps ?? { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
  }

  // start spawns the process and connects the SDK's client to it.
  start() {
    const { dir, fake } = this.opts;
    this.log = path.join(dir.base, `gemini-ls-${Date.now()}.log`);
    const childEnv = {
      PATH: process.env.PATH,
      HOME: dir.home,
      XDG_CACHE_HOME: path.join(dir.home, ".cache"),
      XDG_CONFIG_HOME: path.join(dir.home, ".config"),
      XDG_STATE_HOME: path.join(dir.home, ".local", "state"),
      XDG_DATA_HOME: path.join(dir.home, ".local", "share"),
      GEMINI_API_KEY: "test-key",
      // A concrete model, as a user could name it: the default, auto,
      // would send a routing classifier request ahead of the script's.
      GEMINI_MODEL: "gemini-2.5-pro",
      ...(fake ? { GOOGLE_GEMINI_BASE_URL: fake.url } : {}),
      ...(this.opts.env ?? {}),
    };
    this.started = performance.now();
    this.proc = spawn(bins.geminiLs(), ["acp", "--log-file", this.log, "--log-level", "debug"], {
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.stderr = "";
    this.proc.stderr.on("data", (b) => (this.stderr += b));
    this.exited = once(this.proc, "exit");
    const stream = acp.ndJsonStream(Writable.toWeb(this.proc.stdin), Readable.toWeb(this.proc.stdout));
    this.conn = this.client().connect(this.tap(stream));
    this.agent = this.conn.agent;
    return this;
  }

  // tap logs every message to the wire log, and keeps the answers to
  // lines written raw (ids "raw-…", or null) from the SDK, which never
  // sent them.
  tap(stream) {
    const wire = this.opts.wire;
    const readable = stream.readable.pipeThrough(
      new TransformStream({
        transform: (msg, ctl) => {
          wire?.add("agent", msg);
          if (!("method" in msg)) this.agentAnswers.push(msg);
          else if ("id" in msg) this.agentRequests.set(JSON.stringify(msg.id), msg.method);
          const raw = !("method" in msg) && (msg.id === null || (typeof msg.id === "string" && msg.id.startsWith("raw-")));
          if (raw) {
            this.rawAnswers.push(msg);
            this.changed();
            return;
          }
          ctl.enqueue(msg);
        },
      }),
    );
    const out = new TransformStream({
      transform: (msg, ctl) => {
        // codecompanion.nvim answers fs/write_text_file {"result": null};
        // the SDK would send {}.
        if (this.opts.writeNull && !("method" in msg) && "result" in msg && this.agentRequests.get(JSON.stringify(msg.id)) === methods.client.fs.writeTextFile) {
          msg = { jsonrpc: "2.0", id: msg.id, result: null };
        }
        wire?.add("client", msg);
        if ("method" in msg && "id" in msg) this.clientRequestIds.add(JSON.stringify(msg.id));
        ctl.enqueue(msg);
      },
    });
    out.readable.pipeTo(stream.writable).catch(() => {});
    return { readable, writable: out.writable };
  }

  // strayAnswers are the agent's answers to no request the client sent.
  strayAnswers() {
    return this.agentAnswers.filter((m) => !this.clientRequestIds.has(JSON.stringify(m.id)));
  }

  // raw writes line to the agent's stdin as it is, beside the SDK.
  raw(line) {
    this.opts.wire?.addRaw(line);
    this.proc.stdin.write(line + "\n");
  }

  changed() {
    for (const w of this.waiters) w();
  }

  // waitFor resolves when cond() holds, checked on every message.
  waitFor(cond, what, ms = 10000) {
    if (cond()) return Promise.resolve();
    let wake;
    const p = new Promise((resolve) => {
      wake = () => cond() && resolve();
      this.waiters.add(wake);
    });
    return within(p, ms, what).finally(() => this.waiters.delete(wake));
  }

  client() {
    const rec = (list, item) => {
      list.push(item);
      this.changed();
    };
    return acp
      .client({ name: "gemini-ls-acp-test" })
      .onNotification(methods.client.session.update, ({ params }) => rec(this.updates, params))
      .onRequest(methods.client.session.requestPermission, async ({ params, signal }) => {
        rec(this.permissions, params);
        const pick = this.opts.answer ? this.opts.answer(params, this) : "allow_once";
        if (pick === "hold") {
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          return { outcome: { outcome: "cancelled" } };
        }
        if (pick === "cancelled") return { outcome: { outcome: "cancelled" } };
        const option = params.options.find((o) => o.kind === pick);
        if (!option) throw RequestError.invalidParams({ error: `no option of kind ${pick}` });
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      })
      .onRequest(methods.client.elicitation.create, ({ params }) => {
        rec(this.elicitations, params);
        if (!this.opts.elicit) throw RequestError.methodNotFound(methods.client.elicitation.create);
        return this.opts.elicit(params, this);
      })
      .onRequest(methods.client.fs.readTextFile, ({ params }) => {
        rec(this.reads, params);
        let text = this.buffers.get(params.path);
        if (text === undefined) {
          try {
            text = fs.readFileSync(params.path, "utf8");
          } catch (err) {
            throw RequestError.resourceNotFound ? RequestError.resourceNotFound(params.path) : new RequestError(-32002, String(err));
          }
        }
        return { content: sliceLines(text, params.line, params.limit) };
      })
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
        this.buffers.set(params.path, params.content);
        rec(this.writes, params);
        return {};
      })
      .onRequest(methods.client.terminal.create, ({ params }) => this.createTerminal(params))
      .onRequest(methods.client.terminal.output, ({ params }) => {
        const t = this.terminal(params, "output");
        return { output: t.output, truncated: t.truncated, exitStatus: t.exit ?? null };
      })
      .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
        const t = this.terminal(params, "wait_for_exit");
        return await t.done;
      })
      .onRequest(methods.client.terminal.kill, ({ params }) => {
        const t = this.terminal(params, "kill");
        t.killed = true;
        if (!t.exit) t.proc.kill("SIGKILL");
        return {};
      })
      .onRequest(methods.client.terminal.release, ({ params }) => {
        const t = this.terminal(params, "release");
        if (!t.exit) t.proc.kill("SIGKILL");
        t.released = true;
        this.changed();
        return {};
      });
  }

  // createTerminal runs the command here, as an editor's terminal would.
  createTerminal(params) {
    const id = `term-${++this.nextTerminal}`;
    const env = { ...process.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, stdio: ["ignore", "pipe", "pipe"] });
    const t = { id, request: params, proc, output: "", truncated: false, exit: null, killed: false, released: false };
    const limit = params.outputByteLimit ?? Infinity;
    const keep = (b) => {
      t.output += b;
      if (Buffer.byteLength(t.output) > limit) {
        t.output = Buffer.from(t.output).subarray(-limit).toString();
        t.truncated = true;
      }
    };
    proc.stdout.on("data", keep);
    proc.stderr.on("data", keep);
    t.done = new Promise((resolve) => {
      proc.on("error", (err) => {
        keep(String(err));
        t.exit = { exitCode: 127, signal: null };
        resolve(t.exit);
      });
      proc.on("close", (code, signal) => {
        t.exit = { exitCode: code, signal };
        this.changed();
        resolve(t.exit);
      });
    });
    this.terminals.set(id, t);
    this.changed();
    return { terminalId: id };
  }

  terminal(params, what) {
    this.terminalRequests.push({ what, ...params });
    this.changed();
    const t = this.terminals.get(params.terminalId);
    if (!t || t.released) throw RequestError.invalidParams({ error: `no terminal ${params.terminalId}` });
    return t;
  }

  async initialize() {
    const res = await within(
      this.agent.request(methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: this.caps,
        clientInfo: { name: "gemini-ls-acp-test", version: "1" },
      }),
      10000,
      "initialize",
    );
    this.initializeMs = performance.now() - this.started;
    return res;
  }

  async newSession(extra = {}) {
    const res = await within(this.agent.request(methods.agent.session.new, { cwd: this.dir.root, mcpServers: [], ...extra }), 20000, "session/new");
    this.sessionId = res.sessionId;
    return res;
  }

  prompt(text, sessionId = this.sessionId) {
    const prompt = typeof text === "string" ? [{ type: "text", text }] : text;
    return this.agent.request(methods.agent.session.prompt, { sessionId, prompt });
  }

  cancel(sessionId = this.sessionId) {
    return this.agent.notify(methods.agent.session.cancel, { sessionId });
  }

  // of are the session/updates of one kind (sessionUpdate), for a session.
  of(kind, sessionId = this.sessionId) {
    return this.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update);
  }

  text(kind = "agent_message_chunk", sessionId = this.sessionId) {
    return this.of(kind, sessionId)
      .map((u) => (u.content?.type === "text" ? u.content.text : ""))
      .join("");
  }

  // stop ends the process as an editor does: stdin closed, then killed
  // if it lingers.
  async stop() {
    this.conn?.close();
    this.proc.stdin.end();
    const killer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
    await this.exited;
    clearTimeout(killer);
    for (const t of this.terminals.values()) if (!t.exit) t.proc.kill("SIGKILL");
  }

  serverLog() {
    try {
      return fs.readFileSync(this.log, "utf8");
    } catch {
      return "";
    }
  }
}

function sliceLines(text, line, limit) {
  if (line == null && limit == null) return text;
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const start = line != null && line > 1 ? line - 1 : 0;
  const end = limit != null ? start + limit : lines.length;
  return lines.slice(start, end).join("");
}

// A Wire is the log of every message of a scenario, in order, for the
// transcript: who sent it and what, parsed, or the raw line.
export class Wire {
  constructor() {
    this.entries = [];
  }
  add(from, msg) {
    this.entries.push({ from, msg });
  }
  addRaw(line) {
    this.entries.push({ from: "client", raw: line });
  }
  note(text) {
    this.entries.push({ note: text });
  }
}

// Results prints "PASS name" / "FAIL name: why" lines and counts them.
export class Results {
  constructor() {
    this.passed = 0;
    this.failed = 0;
  }
  check(name, ok, why = "") {
    if (ok) {
      this.passed++;
      console.log(`PASS ${name}`);
    } else {
      this.failed++;
      console.log(`FAIL ${name}${why ? `: ${why}` : ""}`);
    }
    return ok;
  }
}

// short is a value for a failure message.
export function short(v, n = 400) {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s && s.length > n ? s.slice(0, n) + "…" : s;
}
