// Drives the real `gemini-ls acp` with the Agent Client Protocol's
// reference client, the npm package @agentclientprotocol/sdk, against the
// fake Gemini API (fakegemini): each scenario starts its own fake model and
// agent process, plays the editor's part, and checks what crossed the wire,
// what reached the model and what is on disk.
//
//   GEMINI_LS_BIN=… FAKEGEMINI_BIN=… MCPSERVER_BIN=… node acp.test.mjs [FILTER]
//
// run.sh builds the binaries and sets those. Prints "PASS scenario: check"
// or "FAIL scenario: check: why" per check and "N passed, N failed" last;
// exits 1 if any check failed. With ACP_TRANSCRIPT=FILE it also writes
// every message of every scenario, both directions, into FILE between the
// markers <!-- BEGIN TRANSCRIPT --> and <!-- END TRANSCRIPT --> (docs/acp.md).
import * as fs from "node:fs";
import { Agent, Results, Wire, bins, declared, functionResponses, methods, short, startFake, within, workdir } from "./harness.mjs";
import { writeTranscript } from "./transcript.mjs";

const allCaps = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const noCaps = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

const call = (name, args) => ({ chunks: [{ call: { name, args } }] });
const text = (t) => ({ text: t });

// outputOf is the output the model was given for the call answered in
// model request i.
const outputOf = (fake, i) => {
  const r = functionResponses(fake.requests(), i)[0]?.response;
  return r ? (r.output ?? r.error ?? JSON.stringify(r)) : undefined;
};
const toolCalls = (a) => a.of("tool_call");
const finalUpdate = (a, id) =>
  a
    .of("tool_call_update")
    .filter((u) => u.toolCallId === id && u.status)
    .at(-1);
const diffOf = (p) => (p?.toolCall?.content ?? []).find((c) => c.type === "diff");
const told = /not applied|declin|reject|denied|cancel/i;

const scenarios = [
  {
    name: "initialize",
    title: "Initialize, authenticate, a new session, a prompt",
    doc: "The client declares files and terminals; the agent answers with its capabilities and auth methods. The prompt streams a thought and the message in chunks, and answers with the stop reason and usage.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [{ chunks: [{ thought: true, text: "**Greeting** the user" }, { text: "Hello " }, { text: "from gemini-ls." }] }]);
      const a = await t.agent({ dir, fake, caps: allCaps });
      const init = await a.initialize();
      t.info(`initialize answered ${a.initializeMs.toFixed(1)} ms after spawn`);
      const caps = init.agentCapabilities ?? {};
      t.check("protocol version 1", init.protocolVersion === 1, short(init));
      t.check("loadSession", caps.loadSession === true, short(caps));
      t.check("prompt capabilities: image and embedded context", caps.promptCapabilities?.image === true && caps.promptCapabilities?.embeddedContext === true, short(caps.promptCapabilities));
      t.check("MCP capabilities: http and sse", caps.mcpCapabilities?.http === true && caps.mcpCapabilities?.sse === true, short(caps.mcpCapabilities));
      const ids = (init.authMethods ?? []).map((m) => m.id);
      t.check("auth methods", ["oauth-personal", "gemini-api-key", "vertex-ai"].every((id) => ids.includes(id)), short(ids));
      t.check("agent info", init.agentInfo?.name === "gemini-ls", short(init.agentInfo));
      await a.agent.request(methods.agent.authenticate, { methodId: "gemini-api-key" });
      t.check("authenticate with the key in the environment", true);
      const s = await a.newSession();
      t.check("session/new gives a session id", typeof s.sessionId === "string" && s.sessionId.length > 0, short(s));
      const res = await within(a.prompt("Say hello"), 10000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("message in chunks", a.text() === "Hello from gemini-ls." && a.of("agent_message_chunk").length >= 2, short(a.text()));
      t.check("thought chunk", a.text("agent_thought_chunk").includes("Greeting"), short(a.text("agent_thought_chunk")));
      t.check("usage", res.usage == null || res.usage.totalTokens > 0, short(res.usage));
    },
  },
  {
    name: "unsaved-buffer",
    title: "A read sees the editor's unsaved buffer",
    doc: "The editor holds notes.txt modified and unsaved. The model's read_file goes through fs/read_text_file, so the model reads the buffer, not the disk.",
    async run(t) {
      const dir = workdir({ "notes.txt": "disk text\n" });
      const fake = await t.fake(dir, [call("read_file", { path: "notes.txt" }), text("The notes are unsaved.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, buffers: { [dir.path("notes.txt")]: "unsaved buffer text\n" } });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("What do my notes say?"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      const read = a.reads.find((r) => r.path === dir.path("notes.txt"));
      t.check("fs/read_text_file for the file", read && read.sessionId === a.sessionId, short(a.reads));
      const tc = toolCalls(a)[0];
      t.check("tool_call kind read with the file's location", tc?.kind === "read" && tc.locations?.some((l) => l.path === dir.path("notes.txt")), short(tc));
      t.check("tool_call_update completed", tc && finalUpdate(a, tc.toolCallId)?.status === "completed", short(a.of("tool_call_update")));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model read the buffer, not the disk", out.includes("unsaved buffer text") && !out.includes("disk text"), short(out));
    },
  },
  {
    name: "edit-allowed",
    title: "An edit allowed once lands through fs/write_text_file",
    doc: "The edit is offered with session/request_permission carrying its diff; the client allows it once, and the new text is written into the editor's buffer through fs/write_text_file. The disk is the editor's to save.",
    async run(t) {
      const before = "alpha\nbeta\ngamma\n";
      const dir = workdir({ "a.txt": before });
      const fake = await t.fake(dir, [call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }), text("Done.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_once" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Capitalise beta in a.txt"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      const p = a.permissions[0];
      t.check("one permission request", a.permissions.length === 1, short(a.permissions));
      const kinds = (p?.options ?? []).map((o) => o.kind);
      t.check("options: allow once, always allow, reject", ["allow_once", "allow_always", "reject_once"].every((k) => kinds.includes(k)), short(p?.options));
      const d = diffOf(p);
      t.check("the request carries the diff", d && d.path === dir.path("a.txt") && d.oldText?.includes("alpha\nbeta") && d.newText?.includes("alpha\nBETA"), short(p?.toolCall));
      const tc = toolCalls(a)[0];
      t.check("tool_call kind edit", tc?.kind === "edit" && p?.toolCall?.toolCallId === tc.toolCallId, short(tc));
      t.check("exactly one fs/write_text_file, with exactly the new text", a.writes.length === 1 && a.writes[0].path === dir.path("a.txt") && a.writes[0].content === "alpha\nBETA\ngamma\n", short(a.writes));
      t.check("disk unchanged", dir.read("a.txt") === before, short(dir.read("a.txt")));
      t.check("tool_call_update completed", tc && finalUpdate(a, tc.toolCallId)?.status === "completed", short(a.of("tool_call_update")));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model is told it landed", out !== "" && !told.test(out) && !/^error/i.test(out), short(out));
    },
  },
  {
    name: "edit-rejected",
    title: "An edit rejected",
    doc: "The client rejects the edit: nothing is written, and the model is told.",
    async run(t) {
      const before = "alpha\nbeta\ngamma\n";
      const dir = workdir({ "a.txt": before });
      const fake = await t.fake(dir, [call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }), text("Left as it was.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "reject_once" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Capitalise beta in a.txt"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("permission asked", a.permissions.length === 1 && diffOf(a.permissions[0]), short(a.permissions));
      t.check("no fs/write_text_file", a.writes.length === 0, short(a.writes));
      t.check("disk unchanged", dir.read("a.txt") === before, short(dir.read("a.txt")));
      const tc = toolCalls(a)[0];
      const st = tc && finalUpdate(a, tc.toolCallId)?.status;
      t.check("tool_call_update not completed", st === "failed" || st === undefined, short(a.of("tool_call_update")));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model is told it was rejected", told.test(out), short(out));
    },
  },
  {
    name: "edit-null-answer",
    title: "An edit whose fs/write_text_file is answered null",
    doc: "Some clients (codecompanion.nvim) answer fs/write_text_file with a null result: a JSON-RPC success. The model is told the edit landed, and the turn goes on; the agent answers nothing back.",
    async run(t) {
      const before = "alpha\nbeta\ngamma\n";
      const dir = workdir({ "a.txt": before });
      const fake = await t.fake(dir, [call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }), text("Done.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_once", writeNull: true });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Capitalise beta in a.txt"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("one fs/write_text_file", a.writes.length === 1 && a.writes[0].content === "alpha\nBETA\ngamma\n", short(a.writes));
      const tc = toolCalls(a)[0];
      t.check("tool_call_update completed", tc && finalUpdate(a, tc.toolCallId)?.status === "completed", short(a.of("tool_call_update")));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model is told it landed", out.startsWith("Successfully modified file") && !told.test(out), short(out));
      t.check("the agent answers only the client's requests", a.strayAnswers().length === 0, short(a.strayAnswers()));
    },
  },
  {
    name: "permission-cancelled",
    title: "A permission request answered cancelled ends the turn",
    doc: "In ACP, a permission answered {outcome: cancelled} means the prompt turn was cancelled: nothing lands, the prompt answers cancelled, and the model is not asked again.",
    async run(t) {
      const before = "alpha\nbeta\ngamma\n";
      const dir = workdir({ "a.txt": before });
      const fake = await t.fake(dir, [call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }), text("Not this.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "cancelled" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Capitalise beta in a.txt"), 15000, "the prompt's answer");
      t.check("prompt answers cancelled", res.stopReason === "cancelled", short(res));
      t.check("no fs/write_text_file", a.writes.length === 0, short(a.writes));
      t.check("the model was asked once", fake.requests().length === 1, `${fake.requests().length} requests`);
    },
  },
  {
    name: "edit-always",
    title: "Always allow: the next edit is not asked",
    doc: "The client answers the first edit with always allow; the second edit of the turn is not asked. Both land in the buffer, the second on top of the first (read back through fs/read_text_file).",
    async run(t) {
      const before = "alpha\nbeta\ngamma\n";
      const dir = workdir({ "a.txt": before });
      const fake = await t.fake(dir, [
        call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }),
        call("replace", { file_path: "a.txt", old_string: "gamma", new_string: "GAMMA" }),
        text("Both done."),
      ]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_always" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Capitalise beta and gamma"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("asked once", a.permissions.length === 1, `${a.permissions.length} requests`);
      t.check("two writes", a.writes.length === 2, short(a.writes));
      t.check("the second on top of the first", a.writes.at(-1)?.content === "alpha\nBETA\nGAMMA\n", short(a.writes.at(-1)));
      t.check("disk unchanged", dir.read("a.txt") === before, short(dir.read("a.txt")));
    },
  },
  {
    name: "shell-allowed",
    title: "A shell command allowed runs in the client's terminal",
    doc: "The command is asked with kind execute; allowed, it runs in a terminal the client creates (terminal/create, wait_for_exit, output, release), the tool call shows the terminal, and the model gets the output.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [call("run_shell_command", { command: "echo acp-shell-ok", description: "Say ok" }), text("It printed ok.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_once" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Run echo"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      const tc = toolCalls(a)[0];
      t.check("permission asked, kind execute", a.permissions.length === 1 && (a.permissions[0].toolCall?.kind ?? tc?.kind) === "execute", short(a.permissions[0]?.toolCall));
      const term = [...a.terminals.values()][0];
      const cmdline = term ? [term.request.command, ...(term.request.args ?? [])].join(" ") : "";
      t.check("terminal/create runs the command", cmdline.includes("echo acp-shell-ok"), short(term?.request ?? "no terminal/create"));
      t.check("terminal released", term?.released === true, short(a.terminalRequests));
      const updates = a.of("tool_call_update").filter((u) => u.toolCallId === tc?.toolCallId);
      t.check("the tool call shows the terminal", updates.some((u) => (u.content ?? []).some((c) => c.type === "terminal" && c.terminalId === term?.id)), short(updates));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model gets the output", out.includes("acp-shell-ok"), short(out));
    },
  },
  {
    name: "shell-rejected",
    title: "A shell command rejected",
    doc: "Rejected, the command never runs: no terminal, no effect, and the model is told.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [call("run_shell_command", { command: "touch rejected-marker" }), text("Not run.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "reject_once" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Touch the marker"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("permission asked", a.permissions.length === 1, short(a.permissions));
      t.check("no terminal/create", a.terminals.size === 0, short([...a.terminals.values()].map((x) => x.request)));
      t.check("the command did not run", !fs.existsSync(dir.path("rejected-marker")));
      const out = outputOf(fake, 1) ?? "";
      t.check("the model is told it was rejected", told.test(out), short(out));
    },
  },
  {
    name: "no-client-fs",
    title: "A client without fs and terminal capabilities",
    doc: "The client declares neither files nor terminals: the allowed edit lands on disk and the command runs on the agent's machine.",
    async run(t) {
      const dir = workdir({ "a.txt": "alpha\nbeta\n" });
      const fake = await t.fake(dir, [
        call("replace", { file_path: "a.txt", old_string: "beta", new_string: "BETA" }),
        call("run_shell_command", { command: "echo local-ok" }),
        text("Done."),
      ]);
      const a = await t.agent({ dir, fake, caps: noCaps, answer: () => "allow_once" });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Edit and run"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("both asked", a.permissions.length === 2, short(a.permissions));
      t.check("no fs/* or terminal/* requests", a.reads.length + a.writes.length + a.terminals.size === 0);
      t.check("the edit is on disk", dir.read("a.txt") === "alpha\nBETA\n", short(dir.read("a.txt")));
      const out = outputOf(fake, 2) ?? "";
      t.check("the command ran locally", out.includes("local-ok"), short(out));
    },
  },
  {
    name: "cancel",
    title: "session/cancel during a model call",
    doc: "The model is still streaming when the client cancels: the prompt answers cancelled at once, and the session takes the next prompt.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [{ chunks: [{ text: "Working on" }], hang: true }, text("Next answer.")]);
      const a = await t.agent({ dir, fake, caps: allCaps });
      await a.initialize();
      await a.newSession();
      const pending = a.prompt("Do something long");
      await a.waitFor(() => a.text().includes("Working on"), "the first chunk");
      const t0 = performance.now();
      await a.cancel();
      const res = await within(pending, 2000, "the cancelled prompt's answer (2 s)");
      const ms = performance.now() - t0;
      t.check("answers cancelled within 2 s", res.stopReason === "cancelled" && ms < 2000, `${short(res)} after ${ms.toFixed(0)} ms`);
      t.info(`cancelled prompt answered ${ms.toFixed(1)} ms after session/cancel`);
      const next = await within(a.prompt("And now?"), 10000, "the next prompt");
      t.check("the next prompt runs", next.stopReason === "end_turn" && a.text().endsWith("Next answer."), short(a.text()));
    },
  },
  {
    name: "cancel-terminal",
    title: "session/cancel while a command runs in the client's terminal",
    doc: "Cancelling ends the command too: the terminal is killed and released, and the prompt answers cancelled.",
    async run(t) {
      const dir = workdir();
      // The text turn is there only so that, if the command ends without a
      // cancel, the agent does not wait out retries of an unscripted request.
      const fake = await t.fake(dir, [call("run_shell_command", { command: "sleep 30" }), text("Slept.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_once" });
      await a.initialize();
      await a.newSession();
      const pending = a.prompt("Sleep");
      await a.waitFor(() => a.terminals.size > 0, "terminal/create");
      const t0 = performance.now();
      await a.cancel();
      const res = await within(pending, 2000, "the cancelled prompt's answer (2 s)");
      const ms = performance.now() - t0;
      t.check("answers cancelled within 2 s", res.stopReason === "cancelled" && ms < 2000, `${short(res)} after ${ms.toFixed(0)} ms`);
      const term = [...a.terminals.values()][0];
      await a.waitFor(() => term.released, "terminal/release", 3000).catch(() => {});
      t.check("terminal killed or released", term.killed || term.released, short(a.terminalRequests));
      t.check("the command ended", term.exit !== null, "sleep 30 is still running");
    },
  },
  {
    name: "load",
    title: "session/list and session/load after a restart",
    doc: "A session is saved as it goes. A new agent process lists it, loads it (the history is replayed as session/updates before the answer, with the saved title and time as session_info_update, and how full the context window was at its last answer as usage_update), and the conversation goes on.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [text("Noted: kumquat."), text("The word was kumquat.")]);
      const first = await t.agent({ dir, fake, caps: allCaps });
      await first.initialize();
      const { sessionId } = await first.newSession();
      await within(first.prompt("Remember the word kumquat."), 10000, "the first prompt");
      await first.stop();
      t.wire.note("The agent process is stopped (stdin closed) and a new one started with the same HOME.");
      const a = await t.agent({ dir, fake, caps: allCaps });
      const init = await a.initialize();
      t.check("loadSession", init.agentCapabilities?.loadSession === true);
      if (init.agentCapabilities?.sessionCapabilities?.list) {
        const list = await within(a.agent.request(methods.agent.session.list, { cwd: dir.root }), 10000, "session/list");
        t.check("session/list has the session", (list.sessions ?? []).some((s) => s.sessionId === sessionId && s.cwd === dir.root), short(list));
      } else {
        t.check("session/list is offered", false, "no sessionCapabilities.list");
      }
      a.sessionId = sessionId;
      const loaded = await within(a.agent.request(methods.agent.session.load, { sessionId, cwd: dir.root, mcpServers: [] }), 10000, "session/load");
      t.check("session/load answers", loaded !== undefined);
      const infos = a.of("session_info_update");
      t.check("session/load tells the saved title and time", infos.length === 1 && infos[0].title === "Remember the word kumquat." && !!infos[0].updatedAt, short(infos));
      const usages = a.of("usage_update");
      t.check("session/load tells how full the window was", usages.length === 1 && usages[0].size === 1048576 && usages[0].used > 0, short(usages));
      t.check("the user's message replayed", a.text("user_message_chunk").includes("kumquat"), short(a.of("user_message_chunk")));
      t.check("the agent's message replayed", a.text().includes("Noted: kumquat."), short(a.text()));
      const res = await within(a.prompt("Which word?"), 10000, "the prompt after load");
      t.check("the conversation goes on", res.stopReason === "end_turn" && a.text().endsWith("The word was kumquat."), short(a.text()));
      const history = JSON.stringify(fake.requests()[1]?.contents ?? []);
      t.check("the model sees the earlier turn", history.includes("Remember the word kumquat.") && history.includes("Noted: kumquat."), short(history));
    },
  },
  {
    name: "v1",
    title: "ACP v1: a question as a form, the session's title, session/delete, logout",
    doc: "The client declares form elicitation: ask_user's question comes as elicitation/create, tied to the call, and the options chosen reach the model. The topic the model names is the session's title (session_info_update), and the turn's end sends the time; each answer of the model sends how full the context window is (usage_update). session/delete deletes the session, which session/list then leaves out. logout forgets the sign-in: session/new needs authenticate again.",
    async run(t) {
      const dir = workdir();
      const questions = [{ question: "Which databases?", header: "DB", type: "choice", multiSelect: true, options: [{ label: "Postgres", description: "SQL" }, { label: "Redis", description: "a cache" }] }];
      const fake = await t.fake(dir, [
        call("update_topic", { title: "Pick the databases", summary: "Choose the stores.", strategic_intent: "Ask the user." }),
        call("ask_user", { questions }),
        text("Both, then."),
      ]);
      const elicit = () => ({ action: "accept", content: { choices: ["0", "1"] } });
      const a = await t.agent({ dir, fake, caps: { ...noCaps, elicitation: { form: {} } }, elicit });
      const init = await a.initialize();
      const caps = init.agentCapabilities ?? {};
      t.check("sessionCapabilities.delete and auth.logout", caps.sessionCapabilities?.delete != null && caps.auth?.logout != null, short(caps));
      const { sessionId } = await a.newSession();
      const res = await within(a.prompt("Set up storage"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      const form = a.elicitations[0];
      t.check("the question as one form, tied to the call", a.elicitations.length === 1 && form.mode === "form" && form.sessionId === sessionId && !!form.toolCallId && form.requestedSchema?.properties?.choices?.type === "array", short(a.elicitations));
      t.check("no permission request for it", a.permissions.length === 0, short(a.permissions));
      t.check("both options reach the model", /Postgres/.test(outputOf(fake, 2) ?? "") && /Redis/.test(outputOf(fake, 2) ?? ""), short(outputOf(fake, 2)));
      const infos = a.of("session_info_update");
      t.check("the topic is the session's title", infos.some((u) => u.title === "Pick the databases" && u.updatedAt), short(infos));
      t.check("the turn's end sends the time", infos.length >= 2 && !!infos.at(-1).updatedAt, short(infos));
      const usages = a.of("usage_update");
      t.check("usage_update after each answer", usages.length === 3 && usages.every((u) => u.size === 1048576 && u.used > 0), short(usages));
      await within(a.agent.request(methods.agent.session.delete, { sessionId }), 10000, "session/delete");
      const list = await within(a.agent.request(methods.agent.session.list, { cwd: dir.root }), 10000, "session/list");
      t.check("session/list leaves the deleted session out", !(list.sessions ?? []).some((s) => s.sessionId === sessionId), short(list));
      await within(a.agent.request(methods.agent.logout, {}), 10000, "logout");
      const refused = await a.agent.request(methods.agent.session.new, { cwd: dir.root, mcpServers: [] }).then(() => null, (err) => err);
      t.check("after logout, session/new needs authenticate", refused?.code === -32000, short(refused));
      await a.agent.request(methods.agent.authenticate, { methodId: "gemini-api-key" });
      const again = await a.newSession();
      t.check("after authenticate, sessions open again", typeof again.sessionId === "string", short(again));
    },
  },
  {
    name: "modes",
    title: "Modes and commands",
    doc: "session/new offers the approval modes; the session's slash commands arrive as available_commands_update, and one runs without the model. In a folder the user trusts, the client switches to YOLO with session/set_mode, and the next command runs unasked; session/set_config_option changes the model. In a folder not trusted, YOLO is refused, as in Gemini CLI.",
    async run(t) {
      const dir = workdir({}, { trusted: true });
      const fake = await t.fake(dir, [call("run_shell_command", { command: "echo yolo-ok" }), text("Ran."), text("This one.")]);
      const a = await t.agent({ dir, fake, caps: noCaps, answer: () => "reject_once" });
      await a.initialize();
      const s = await a.newSession();
      const ids = (s.modes?.availableModes ?? []).map((m) => m.id);
      const yolo = ids.find((id) => /yolo/i.test(id));
      t.check("modes: default, auto edit, yolo", s.modes?.currentModeId && yolo && ids.some((id) => /auto.?edit/i.test(id)), short(s.modes));
      await a.waitFor(() => a.of("available_commands_update").length > 0, "available_commands_update", 3000).catch(() => {});
      const cmds = a.of("available_commands_update").at(-1)?.availableCommands ?? [];
      t.check("available_commands_update", cmds.length > 0, short(cmds));
      if (cmds.some((c) => c.name === "tools")) {
        const before = fake.requests().length;
        const res = await within(a.prompt("/tools"), 10000, "the /tools command");
        t.check("a slash command answers without the model", res.stopReason === "end_turn" && a.text().includes("read_file") && fake.requests().length === before, short(a.text()));
      }
      if (yolo) {
        await within(a.agent.request(methods.agent.session.setMode, { sessionId: a.sessionId, modeId: yolo }), 5000, "session/set_mode");
        const res = await within(a.prompt("Run echo"), 15000, "the prompt's answer");
        t.check("in yolo the command runs unasked", res.stopReason === "end_turn" && a.permissions.length === 0 && (outputOf(fake, 1) ?? "").includes("yolo-ok"), short({ permissions: a.permissions.length, out: outputOf(fake, 1) }));
      }
      const model = s.configOptions?.find((o) => o.id === "model");
      // A concrete model: an auto's prompt would first ask the routing
      // classifier, which this script does not answer.
      const other = model?.options?.find((o) => o.value !== model.currentValue && !o.value.startsWith("auto"))?.value;
      if (other) {
        const set = await within(a.agent.request(methods.agent.session.setConfigOption, { sessionId: a.sessionId, configId: "model", value: other }), 5000, "session/set_config_option");
        const now = set.configOptions?.find((o) => o.id === "model")?.currentValue;
        await within(a.prompt("Which model?"), 10000, "the prompt after the model changed");
        t.check("set_config_option picks the model of the next request", now === other && fake.records().at(-1)?.model === other, short({ now, sent: fake.records().at(-1)?.model }));
      } else {
        t.check("config option: model", false, short(s.configOptions));
      }
      try {
        await a.agent.request(methods.agent.session.setMode, { sessionId: a.sessionId, modeId: "no-such-mode" });
        t.check("an unknown mode is an error", false, "answered without an error");
      } catch (err) {
        t.check("an unknown mode is an error", err.code === -32602, `code ${err.code}: ${err.message}`);
      }
      const untrusted = await t.agent({ dir: t.workdir(), fake, caps: noCaps });
      await untrusted.initialize();
      await untrusted.newSession();
      try {
        await untrusted.agent.request(methods.agent.session.setMode, { sessionId: untrusted.sessionId, modeId: yolo });
        t.check("yolo is refused in a folder not trusted", false, "answered without an error");
      } catch (err) {
        t.check("yolo is refused in a folder not trusted", err.code === -32602 && /not trusted/.test(err.data?.error), `code ${err.code}: ${err.message} ${JSON.stringify(err.data)}`);
      }
    },
  },
  {
    name: "plan",
    title: "The model's to-do list as the session's plan",
    doc: "The model writes its to-do list (write_todos); the client sees it as a plan update.",
    async run(t) {
      const dir = workdir();
      const todos = [
        { description: "Read the code", status: "completed" },
        { description: "Fix the bug", status: "in_progress" },
        { description: "Run the tests", status: "pending" },
      ];
      const fake = await t.fake(dir, [call("write_todos", { todos }), text("Planned.")]);
      const a = await t.agent({ dir, fake, caps: allCaps });
      await a.initialize();
      await a.newSession();
      const res = await within(a.prompt("Plan the fix"), 15000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      const entries = a.of("plan").at(-1)?.entries ?? [];
      t.check(
        "plan update with the list",
        entries.length === 3 && entries.every((e, i) => e.content === todos[i].description && e.status === todos[i].status),
        short(a.of("plan")),
      );
    },
  },
  {
    name: "mcp",
    title: "An MCP server passed by the client",
    doc: "In a folder the user trusts, the client passes a stdio MCP server in session/new; its tools are declared to the model, and a call runs on it once allowed.",
    async run(t) {
      const dir = workdir({}, { trusted: true });
      const fake = await t.fake(dir, [call("mcp_tester_echo", { message: "hello" }), text("It echoed.")]);
      const a = await t.agent({ dir, fake, caps: allCaps, answer: () => "allow_once" });
      await a.initialize();
      await a.newSession({ mcpServers: [{ name: "tester", command: bins.mcp(), args: [], env: [] }] });
      const res = await within(a.prompt("Use the tester"), 20000, "the prompt's answer");
      t.check("prompt ends the turn", res.stopReason === "end_turn", short(res));
      t.check("the model is offered the server's tool", declared(fake.requests(), 0).includes("mcp_tester_echo"), short(declared(fake.requests(), 0)));
      t.check("the call is asked", a.permissions.length === 1, short(a.permissions));
      t.check("the call ran on the server", outputOf(fake, 1) === "Echo: hello", short(outputOf(fake, 1)));
    },
  },
  {
    name: "malformed",
    title: "Malformed messages",
    doc: "Lines that are not JSON-RPC requests are answered with JSON-RPC errors (written raw beside the SDK's messages), and the connection goes on.",
    async run(t) {
      const dir = workdir();
      const fake = await t.fake(dir, [text("Still here.")]);
      const a = await t.agent({ dir, fake, caps: allCaps });
      await a.initialize();
      await a.newSession();
      const cases = [
        [`{"jsonrpc":"2.0","id":"raw-1","method":"initialize","params":{`, null, -32700],
        [`not json`, null, -32700],
        [`[{"jsonrpc":"2.0","id":"raw-2","method":"initialize"}]`, null, -32600],
        [`{"jsonrpc":"1.0","id":"raw-3","method":"initialize","params":{}}`, "raw-3", -32600],
        [`{"jsonrpc":"2.0","id":"raw-4","method":"no/such/method","params":{}}`, "raw-4", -32601],
        [`{"jsonrpc":"2.0","id":"raw-5","method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`, "raw-5", -32602],
        [`{"jsonrpc":"2.0","id":"raw-6","method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`, "raw-6", -32602],
      ];
      for (const [line, id, code] of cases) {
        const n = a.rawAnswers.length;
        a.raw(line);
        await a.waitFor(() => a.rawAnswers.length > n, `an answer to ${line}`, 5000).catch(() => {});
        const got = a.rawAnswers[n];
        t.check(`${line.slice(0, 50)} → ${code}`, got && got.id === id && got.error?.code === code, short(got ?? "no answer"));
      }
      try {
        await a.agent.request("no/such/method", {});
        t.check("unknown method through the SDK", false, "answered without an error");
      } catch (err) {
        t.check("unknown method through the SDK", err.code === -32601, `code ${err.code}`);
      }
      const res = await within(a.prompt("Are you there?"), 10000, "a prompt after the malformed lines");
      t.check("the connection is alive", res.stopReason === "end_turn" && a.text() === "Still here.", short(a.text()));
    },
  },
];

async function main() {
  const unset = ["GEMINI_LS_BIN", "FAKEGEMINI_BIN", "MCPSERVER_BIN"].filter((v) => !process.env[v]);
  if (unset.length) {
    console.log(`FAIL acp.test.mjs: set ${unset.join(", ")} (run.sh builds them)`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
  const filter = process.argv[2];
  const results = new Results();
  const sections = [];
  for (const sc of scenarios) {
    if (filter && !sc.name.includes(filter)) continue;
    console.log(`== ${sc.name}`);
    const wire = new Wire();
    const agents = [];
    const fakes = [];
    const dirs = [];
    const failedBefore = results.failed;
    const t = {
      wire,
      check: (name, ok, why) => results.check(`${sc.name}: ${name}`, Boolean(ok), why),
      info: (s) => console.log(`  ${s}`),
      async fake(dir, turns) {
        dirs.push(dir);
        const f = await startFake(dir, turns);
        fakes.push(f);
        return f;
      },
      workdir(files, opts) {
        const d = workdir(files, opts);
        dirs.push(d);
        return d;
      },
      async agent(opts) {
        const a = new Agent({ ...opts, wire }).start();
        agents.push(a);
        return a;
      },
    };
    try {
      await within(sc.run(t), 60000, `scenario ${sc.name}`);
    } catch (err) {
      results.check(`${sc.name}`, false, err?.stack ?? String(err));
    }
    if (results.failed > failedBefore) {
      for (const a of agents) {
        console.log(`--- ${sc.name}: gemini-ls log (last 30 lines) ---`);
        console.log(a.serverLog().split("\n").slice(-30).join("\n"));
        if (a.stderr) console.log(`--- stderr ---\n${a.stderr}`);
      }
    }
    for (const a of agents) await a.stop().catch(() => {});
    for (const f of fakes) await f.stop().catch(() => {});
    sections.push({ scenario: sc, wire, failed: results.failed > failedBefore, dirs });
    if (!process.env.ACP_TEST_KEEP) for (const d of dirs) fs.rmSync(d.base, { recursive: true, force: true });
  }
  if (process.env.ACP_TRANSCRIPT) {
    writeTranscript(process.env.ACP_TRANSCRIPT, sections, { mcp: bins.mcp() });
    console.log(`transcript written to ${process.env.ACP_TRANSCRIPT}`);
  }
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed > 0 ? 1 : 0);
}

main().catch((err) => {
  console.log(`FAIL acp.test.mjs: ${err?.stack ?? err}`);
  process.exit(1);
});
