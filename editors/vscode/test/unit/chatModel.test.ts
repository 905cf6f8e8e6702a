import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { activity, applyEvent, canAsk, emptyChat, hiddenByQuestion, retryNote, runningTool, type ChatEvent, type ChatState } from "../../src/chatModel";
import { approvalModes, modeLabel } from "../../src/modes";
import { usageView } from "../../src/present";
import type { TokenUsage, Update, UsageUpdate } from "../../src/protocol";

const noTokens: TokenUsage = { promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, totalTokens: 0, cachedTokens: 0, toolUseTokens: 0 };
const noWindow = { cachedTokens: 0, toolUseTokens: 0, contextUsed: 0, contextSize: 0 };

const sid = "KDETU2ENOYKKBHEMUBS6RVHMLT";

function run(...events: ChatEvent[]): ChatState {
  const state = emptyChat();
  for (const e of events) {
    applyEvent(state, e);
  }
  return state;
}

type WithoutSession<T> = T extends unknown ? Omit<T, "sessionId"> : never;
const update = (u: WithoutSession<Update>): ChatEvent => ({ type: "update", update: { sessionId: sid, ...u } as Update });

describe("chat model", () => {
  it("shows the plan the model wrote as a checklist (a plan update) in the plan widget, as write_todos' list, each replacing the last", () => {
    const todos = [
      { description: "Read the handler", status: "completed" },
      { description: "Add the cache", status: "pending" },
    ];
    const state = run({ type: "prompt", text: "p" }, update({ kind: "plan", todos }));
    assert.deepEqual(state.todos, todos);
    assert.equal(state.turns[0].items.length, 0, "the plan is the widget's, not a line of the turn");
    applyEvent(state, update({ kind: "toolCall", callId: "c1", name: "exit_plan_mode", title: "t", todos: [{ description: "Cache greet", status: "pending" }] }));
    assert.deepEqual(state.todos, [{ description: "Cache greet", status: "pending" }], "plan mode's plan replaces it");
  });

  it("streams text deltas into one answer and adopts the session", () => {
    const state = run({ type: "prompt", text: "make greet say Hi" }, update({ kind: "text", text: "I'll change " }), update({ kind: "text", text: "the greeting." }));
    assert.equal(state.busy, true);
    assert.equal(state.sessionId, sid);
    assert.equal(state.turns.length, 1);
    const [item] = state.turns[0].items;
    assert.equal(item.kind === "text" && item.text, "I'll change the greeting.");
    assert.equal(item.rev, 1, "each change bumps rev so the view redraws it");
  });

  it("folds thoughts: a subject starts one, a bare description continues it", () => {
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "thought", subject: "Planning the change", description: "I will edit " }),
      update({ kind: "thought", description: "greet." }),
      update({ kind: "thought", subject: "Checking", description: "tests" }),
    );
    assert.deepEqual(
      state.turns[0].items.map((i) => i.kind === "thought" && [i.subject, i.description]),
      [["Planning the change", "I will edit greet."], ["Checking", "tests"]],
    );
  });

  it("shows each tool call as a line that its result completes", () => {
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "toolCall", callId: "call_1", name: "replace", title: "Edit main.go", args: {} }),
    );
    assert.equal(runningTool(state), "Edit main.go");
    applyEvent(state, update({ kind: "toolResult", callId: "call_1", name: "replace", status: "rejected", display: "Not applied: the user declined the edit." }));
    const [call] = state.turns[0].items;
    assert.ok(call.kind === "tool");
    assert.equal(call.title, "Edit main.go");
    assert.equal(call.status, "rejected");
    assert.equal(call.display, "Not applied: the user declined the edit.");
    assert.equal(runningTool(state), undefined);
  });

  it("ends the turn with the result and keeps the session id", () => {
    const state = run({ type: "prompt", text: "p" }, { type: "result", result: { sessionId: sid, stopReason: "end_turn", text: "done" } });
    assert.equal(state.busy, false);
    assert.equal(state.turns[0].done, true);
    assert.equal(state.turns[0].stopReason, "end_turn");
    assert.equal(state.sessionId, sid);
  });

  it("shows an error once, with what to do, though it comes as an update and in the result", () => {
    const message = "The quota for gemini-2.5-pro is used up: wait until it resets, pick another model with /model (or --model), or raise it in AI Studio.";
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "error", message, errorKind: "quota" }),
      { type: "result", result: { sessionId: sid, stopReason: "error", text: "", error: message, errorKind: "quota" } },
    );
    const errors = state.turns[0].items.filter((i) => i.kind === "error");
    assert.equal(errors.length, 1);
    assert.ok(errors[0].kind === "error");
    assert.equal(errors[0].title, "The Gemini quota is used up.");
    assert.deepEqual(errors[0].buttons, ["gemini.chooseModel", "gemini.openQuota", "gemini.retry"]);
  });

  it("shows a failed request, such as a missing API key, as an error of its kind", () => {
    const state = run({ type: "prompt", text: "p" }, {
      type: "failed",
      message: "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!",
      errorKind: "no_api_key",
    });
    assert.equal(state.busy, false);
    const [item] = state.turns[0].items;
    assert.ok(item.kind === "error");
    assert.equal(item.title, "Gemini needs an API key.");
  });

  it("ignores updates of another session", () => {
    const state = run({ type: "session", mode: "default", sessionId: sid }, { type: "prompt", text: "p" }, { type: "update", update: { sessionId: "OTHER", kind: "text", text: "not ours" } });
    assert.deepEqual(state.turns[0].items, []);
  });

  it("ignores updates when no prompt is running", () => {
    const state = run(update({ kind: "text", text: "stray" }));
    assert.deepEqual(state.turns, []);
    assert.equal(state.sessionId, undefined);
  });

  it("marks calls still running as cancelled when the prompt stops", () => {
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "toolCall", callId: "c", name: "run_shell_command", title: "Shell sleep 100" }),
      { type: "stopping" },
    );
    assert.equal(state.stopping, true);
    applyEvent(state, { type: "result", result: { sessionId: sid, stopReason: "cancelled", text: "" } });
    const [call] = state.turns[0].items;
    assert.ok(call.kind === "tool");
    assert.equal(call.status, "cancelled");
    assert.equal(state.stopping, false);
    assert.equal(state.turns[0].stopReason, "cancelled");
  });

  it("starts over on a new session, or on continuing an earlier one", () => {
    const state = run({ type: "prompt", text: "p" }, { type: "result", result: { sessionId: sid, stopReason: "end_turn", text: "" } });
    applyEvent(state, { type: "session", mode: "default" });
    assert.deepEqual(state.turns, []);
    assert.equal(state.sessionId, undefined);
    assert.equal(state.busy, false);
    applyEvent(state, { type: "session", mode: "default", sessionId: "EARLIER", title: "fix the build" });
    assert.equal(state.sessionId, "EARLIER");
    assert.equal(state.sessionTitle, "fix the build");
  });

  it("follows the session's approval mode, and resets it to the configured one for a new session", () => {
    const state = emptyChat("auto_edit");
    assert.equal(state.mode, "auto_edit", "a chat starts in the configured mode");
    for (const e of [{ type: "prompt", text: "/plan" }, update({ kind: "mode", mode: "plan" })] satisfies ChatEvent[]) {
      applyEvent(state, e);
    }
    assert.equal(state.mode, "plan");
    assert.equal(state.sessionId, sid);
    applyEvent(state, { type: "result", result: { sessionId: sid, stopReason: "end_turn", text: "" } });
    applyEvent(state, update({ kind: "mode", mode: "default" }));
    assert.equal(state.mode, "default", "a switch between prompts (a slash command) still counts");
    applyEvent(state, { type: "update", update: { sessionId: "OTHER", kind: "mode", mode: "yolo" } });
    assert.equal(state.mode, "default", "another session's switch is not this one's");
    applyEvent(state, { type: "session", mode: "auto_edit" });
    assert.equal(state.mode, "auto_edit");
    applyEvent(state, update({ kind: "mode", mode: "plan" }));
    assert.equal(state.mode, "auto_edit", "with no session yet and no prompt running, a switch is nobody's");
    assert.equal(state.sessionId, undefined);
  });

  it("names each approval mode in Gemini CLI 0.61's words, never Ask nor the setting's values; an unknown one as the server does", () => {
    assert.deepEqual(["default", "auto_edit", "plan", "yolo", "careful"].map(modeLabel), ["Manual", "Auto-accept edits", "Plan", "YOLO", "careful"]);
    assert.deepEqual(approvalModes.map((m) => m.mode), ["default", "auto_edit", "plan", "yolo"], "0.61's Shift+Tab order, then YOLO");
  });

  it("takes a mode the user picked, between prompts too", () => {
    const state = run({ type: "mode", mode: "auto_edit" });
    assert.equal(state.mode, "auto_edit");
  });

  it("shows a question once: its call's line gives way to it, and the status line waits for the answer", () => {
    const params = { sessionId: sid, callId: "call_ask", kind: "ask_user", title: "Database", text: "Which one?", options: [], multiple: false, freeText: true };
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "toolCall", callId: "call_ask", name: "ask_user", title: "Asking user: Which one?" }),
    );
    assert.equal(activity(state), "Asking user: Which one?…");
    applyEvent(state, { type: "ask", id: 1, params });
    const call = state.turns[0].items[0];
    assert.ok(hiddenByQuestion(call), "the call's line is hidden while its question is open");
    assert.equal(runningTool(state), undefined);
    assert.equal(activity(state), "Waiting for your answer…");
    applyEvent(state, { type: "asked", id: 1, answer: "SQLite" });
    applyEvent(state, update({ kind: "toolResult", callId: "call_ask", name: "ask_user", status: "ok", display: "" }));
    assert.ok(hiddenByQuestion(state.turns[0].items[0]), "an answered question stands for its call");
    const question = state.turns[0].items[1];
    assert.ok(question.kind === "question" && question.status === "answered" && question.answer === "SQLite");
    assert.equal(activity(state), "Working…");
  });

  it("shows a call that asked again when it failed or was stopped", () => {
    const params = { sessionId: sid, callId: "c", kind: "ask_user", title: "", text: "?", options: [], multiple: false, freeText: true };
    const state = run({ type: "prompt", text: "p" }, update({ kind: "toolCall", callId: "c", name: "ask_user", title: "Asking user: ?" }), { type: "ask", id: 1, params });
    applyEvent(state, { type: "result", result: { sessionId: sid, stopReason: "cancelled", text: "" } });
    assert.ok(!hiddenByQuestion(state.turns[0].items[0]), "a cancelled call shows, with its status");
  });

  it("ignores usage updates", () => {
    const state = run({ type: "prompt", text: "p" }, update({ kind: "usage", promptTokens: 1, candidatesTokens: 1, thoughtsTokens: 0, totalTokens: 2, promptUsage: noTokens, sessionUsage: noTokens, ...noWindow }));
    assert.deepEqual(state.turns[0].items, []);
  });

  it("shows a continued session's usage at once, as its live usage update showed it", () => {
    const spent = { ...noTokens, promptTokens: 1200, candidatesTokens: 5, totalTokens: 1205, cachedTokens: 400 };
    const saved: UsageUpdate = { sessionId: "EARLIER", kind: "usage", promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, totalTokens: 0, cachedTokens: 0, toolUseTokens: 0, promptUsage: noTokens, sessionUsage: spent, contextUsed: 1200, contextSize: 1_048_576 };
    const live = run({ type: "prompt", text: "p" }, { type: "update", update: saved });
    const figures = { sessionTokens: 1205, cachedTokens: 400, contextUsed: 1200, contextSize: 1_048_576 };
    assert.deepEqual(live.usage, figures);

    const resumed = run({ type: "session", mode: "default", sessionId: "EARLIER", exchanges: [], usage: saved });
    assert.deepEqual(resumed.usage, live.usage, "before any prompt of its own");
    assert.equal(usageView(resumed.usage!).text, "<1% of context · 1.2k tokens, 400 cached");

    // An older server says none; a new session has none; another session's are not this one's.
    assert.equal(run({ type: "session", mode: "default", sessionId: "EARLIER", exchanges: [] }).usage, undefined);
    applyEvent(resumed, { type: "session", mode: "default" });
    assert.equal(resumed.usage, undefined);
    assert.equal(run({ type: "session", mode: "default", sessionId: "OTHER", exchanges: [], usage: saved }).usage, undefined);
  });

  it("shows a continued session's earlier prompts and answers as ended turns", () => {
    const state = run(
      { type: "prompt", text: "p" },
      {
        type: "session",
        mode: "default",
        sessionId: "EARLIER",
        title: "remember 42",
        exchanges: [
          { prompt: "remember 42", answer: "noted: 42", stopReason: "end_turn", updates: null },
          { prompt: "and loop", answer: "", stopReason: "loop_detected", updates: null },
        ],
      },
    );
    assert.equal(state.sessionId, "EARLIER");
    assert.equal(state.busy, false);
    assert.deepEqual(state.turns, [
      { prompt: "remember 42", items: [{ kind: "text", text: "noted: 42", rev: 0 }], done: true, stopReason: "end_turn" },
      { prompt: "and loop", items: [], done: true, stopReason: "loop_detected" },
    ]);
    // The next prompt follows them in the same session.
    applyEvent(state, { type: "prompt", text: "what was it?" });
    applyEvent(state, { type: "update", update: { sessionId: "EARLIER", kind: "text", text: "it was 42" } });
    assert.equal(state.turns.length, 3);
    assert.equal(state.turns[2].items[0].kind === "text" && state.turns[2].items[0].text, "it was 42");
  });

  it("shows a retry as one status line that later attempts update, and notices and compressions as notes", () => {
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "retry", attempt: 1, delayMs: 2000, reason: "the model is rate-limited (429 RESOURCE_EXHAUSTED)" }),
      update({ kind: "retry", attempt: 2, delayMs: 4500, reason: "the model is rate-limited (429 RESOURCE_EXHAUSTED)" }),
      update({ kind: "notice", message: "gemini-2.5-pro is out of quota; using gemini-2.5-flash" }),
      update({ kind: "compressed", tokensBefore: 9000, tokensAfter: 2000 }),
      update({ kind: "text", text: "answer" }),
    );
    assert.deepEqual(
      state.turns[0].items.map((i) => (i.kind === "note" ? [i.tone, i.text] : [i.kind])),
      [
        ["status", "The model is rate-limited (429 RESOURCE_EXHAUSTED); retrying in 4.5 s (attempt 2)"],
        ["notice", "gemini-2.5-pro is out of quota; using gemini-2.5-flash"],
        ["notice", "The conversation was compressed to fit the model's window (9000 → 2000 tokens)."],
        ["text"],
      ],
    );
    assert.equal(retryNote(1, 2000, ""), "The model call failed; retrying in 2 s (attempt 1)");
  });

  it("shows a topic as a note: its title, the summary of a new topic, then the intent", () => {
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "topic", title: "Serving files", intent: "Start the server and check it serves.", newTopic: true, text: "Start a web server." }),
      update({ kind: "topic", title: "Serving files", intent: "Check the port.", newTopic: false, text: "ignored: not a new topic" }),
      update({ kind: "topic", title: "", intent: "" }),
    );
    assert.deepEqual(
      state.turns[0].items.map((i) => (i.kind === "note" ? [i.tone, i.text] : [i.kind])),
      [
        ["topic", "Topic: Serving files — Start a web server.\nStart the server and check it serves."],
        ["topic", "Topic: Serving files\nCheck the port."],
      ],
    );
  });

  it("shows nothing in the chat for a commands update", () => {
    const state = run({ type: "prompt", text: "p" }, update({ kind: "commands" }));
    assert.deepEqual(state.turns[0].items, []);
  });

  it("puts a question in the running turn; answering or withdrawing it closes it", () => {
    const params = { sessionId: sid, callId: "c", kind: "ask_user", title: "Database", text: "Which?", options: [], multiple: false, freeText: true };
    const state = run({ type: "prompt", text: "p" }, { type: "ask", id: 1, params }, { type: "ask", id: 2, params });
    assert.equal(canAsk(state), true);
    applyEvent(state, { type: "asked", id: 1, answer: "SQLite" });
    applyEvent(state, { type: "asked", id: 2 });
    assert.deepEqual(
      state.turns[0].items.map((i) => i.kind === "question" && [i.id, i.status, i.answer, i.rev]),
      [[1, "answered", "SQLite", 1], [2, "withdrawn", "", 1]],
    );
    // A late answer to a withdrawn question changes nothing.
    applyEvent(state, { type: "asked", id: 2, answer: "late" });
    assert.equal(state.turns[0].items[1].rev, 1);
  });

  it("withdraws a question left open when its turn ends, and asks nothing outside a turn", () => {
    const params = { sessionId: sid, callId: "c", kind: "ask_user", title: "", text: "Which?", options: [], multiple: false, freeText: true };
    const state = run({ type: "prompt", text: "p" }, { type: "ask", id: 1, params }, { type: "result", result: { sessionId: sid, stopReason: "cancelled", text: "" } });
    const [q] = state.turns[0].items;
    assert.equal(q.kind === "question" && q.status, "withdrawn");
    assert.equal(canAsk(state), false);
    applyEvent(state, { type: "ask", id: 2, params });
    assert.equal(state.turns[0].items.length, 1);
  });

  it("nests a subagent's text, calls and errors inside its invoke_agent call, and names its running call", () => {
    const sub = { parentCallId: "call_1", agentName: "codebase_investigator" };
    const state = run(
      { type: "prompt", text: "where is the parser?" },
      update({ kind: "text", text: "Let me delegate." }),
      update({ kind: "toolCall", callId: "call_1", name: "invoke_agent", title: "Delegate to codebase_investigator" }),
      update({ ...sub, kind: "text", text: "Looking " }),
      update({ ...sub, kind: "text", text: "around." }),
      update({ ...sub, kind: "toolCall", callId: "call_1", name: "grep_search", title: "SearchText 'parse'" }),
    );
    assert.equal(runningTool(state), "codebase_investigator: SearchText 'parse'");
    applyEvent(state, update({ kind: "toolCall", callId: "call_2", name: "read_file", title: "ReadFile a.go" }));
    const revBefore = state.turns[0].items[1].rev;
    applyEvent(state, update({ ...sub, kind: "toolResult", callId: "call_1", name: "grep_search", status: "ok", display: "found" }));
    applyEvent(state, update({ ...sub, kind: "usage", promptTokens: 5, candidatesTokens: 0, thoughtsTokens: 0, totalTokens: 5, promptUsage: noTokens, sessionUsage: noTokens, ...noWindow }));
    applyEvent(state, update({ ...sub, kind: "error", message: "out of turns" }));
    applyEvent(state, update({ kind: "toolResult", callId: "call_1", name: "invoke_agent", status: "ok", display: "The parser is in a.go." }));
    const items = state.turns[0].items;
    assert.deepEqual(
      items.map((i) => i.kind),
      ["text", "tool", "tool"],
      "nothing of the subagent is the turn's own",
    );
    const call = items[1];
    assert.ok(call.kind === "tool" && call.subagent !== undefined);
    assert.ok(call.rev > revBefore, "the call redraws with its subagent");
    assert.equal(call.subagent.name, "codebase_investigator");
    assert.equal(call.display, "The parser is in a.go.");
    assert.deepEqual(
      call.subagent.items.map((i) => (i.kind === "text" ? i.text : i.kind === "tool" ? `${i.title}: ${i.status}` : i.kind === "note" ? `note: ${i.text}` : i.kind)),
      ["Looking around.", "SearchText 'parse': ok", "note: out of turns"],
    );
    assert.equal(runningTool(state), "ReadFile a.go");
    assert.ok(!items.some((i) => i.kind === "error"), "the subagent's error is not the turn's");
  });

  it("cancels a subagent's running call when the turn ends", () => {
    const sub = { parentCallId: "call_1", agentName: "codebase_investigator" };
    const state = run(
      { type: "prompt", text: "p" },
      update({ kind: "toolCall", callId: "call_1", name: "invoke_agent", title: "Delegate" }),
      update({ ...sub, kind: "toolCall", callId: "call_1", name: "run_shell_command", title: "Shell make" }),
      { type: "result", result: { sessionId: sid, stopReason: "cancelled", text: "" } },
    );
    const call = state.turns[0].items[0];
    assert.ok(call.kind === "tool" && call.subagent !== undefined);
    assert.equal(call.status, "cancelled");
    const inner = call.subagent.items[0];
    assert.equal(inner.kind === "tool" && inner.status, "cancelled");
  });
});
