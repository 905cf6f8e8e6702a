// The chat as data: prompts, and for each one the streamed answer, thoughts,
// tool calls and errors. The extension host and the webview run the same
// reducer over the same events, so the view can be rebuilt from the state at
// any time and otherwise follows event by event.

import { confirmKind } from "./approval";
import type { AskParams } from "./ask";
import type { ChatCommand } from "./chatCommands";
import { describeError, type ErrorKind } from "./errors";
import type { UsageState } from "./present";
import type { ApprovalMode, Exchange, PromptResult, StopReason, ToolStatus, Update, UsageUpdate } from "./protocol";

export type ToolLineStatus = "running" | ToolStatus;

interface Revised {
  /** Bumped on every change, so a renderer can redraw only what changed. */
  rev: number;
}

export type Item = Revised &
  (
    | { kind: "text"; text: string }
    | { kind: "thought"; subject: string; description: string }
    | {
        kind: "tool";
        callId: string;
        name: string;
        title: string;
        status: ToolLineStatus;
        display: string;
        /** Where a shell command runs, as the model named it (dir_path); absent: the workspace folder. */
        dir?: string;
        /** A shell call's command line (run_shell_command's command), for the terminal that shows its output. */
        command?: string;
        /** The file the call is about, relative to the first workspace folder or absolute, and its 1-based line. */
        path?: string;
        line?: number;
        /** What the tool does: read, edit, search, execute, fetch, think, agent, other. */
        toolKind?: string;
        /** What a search found (grep_search's lines, glob's files, list_directory's entries), as the server listed them, and how many in all. */
        found?: FoundPlace[];
        foundTotal?: number;
        /** How an edit the user took otherwise than proposed landed ("accepted in part: 1 of 2 changes"), as the server says it. */
        outcome?: string;
        /** The call set the session's to-do list (write_todos): the plan shows it, not the call's line. */
        setsTodos?: boolean;
        /** The subagent this call (invoke_agent) runs: what it said and did, shown inside the call. */
        subagent?: Subagent;
        /**
         * The call asks the user (ask_user, exit_plan_mode's approval): its
         * question stands for it in the chat, so the question shows once.
         */
        asks?: boolean;
      }
    | { kind: "error"; message: string; errorKind?: ErrorKind; title: string; action: string; buttons: ChatCommand[] }
    /** A line about the turn, not from the model: a retry's wait ("status"), a notice or a compression, the session's topic. */
    | { kind: "note"; tone: "status" | "notice" | "topic"; text: string }
    /**
     * The model's question (gemini/ask), answered in the chat. `id` is the
     * request's; "withdrawn" (the request was cancelled) is drawn as nothing.
     */
    | { kind: "question"; id: number; params: AskParams; status: "open" | "answered" | "withdrawn"; answer: string }
  );

/** A subagent's part of the turn: its text, thoughts, calls, errors and retries. */
export interface Subagent {
  name: string;
  items: Item[];
}

export interface Turn {
  prompt: string;
  items: Item[];
  done: boolean;
  stopReason?: StopReason;
}

/** A place a search found: a file (or directory) relative to the first workspace folder or absolute, and its 1-based line. */
export interface FoundPlace {
  path: string;
  line?: number;
  dir?: boolean;
}

/** A file an edit changed (or proposes to), with its lines added and removed. */
export interface FileStat {
  path: string;
  added: number;
  removed: number;
}

export interface ChatState {
  sessionId?: string;
  /** Set when the user continues an earlier session. */
  sessionTitle?: string;
  /** The session's approval mode: the configured one until a call switches it. */
  mode: ApprovalMode;
  turns: Turn[];
  busy: boolean;
  /** The user pressed Stop and the prompt has not answered yet. */
  stopping: boolean;
  /** The files of the edits waiting for the user's review, as the chat tells them; [] when none waits. */
  review: FileStat[];
  /** The session's to-do list, as write_todos last set it: the chat's plan, updated in place; [] when none. */
  todos: Todo[];
  /** The session's tokens and how full the model's window is, from the main agent's last usage update. */
  usage?: UsageState;
}

/** One item of the session's to-do list. */
export interface Todo {
  description: string;
  /** pending, in_progress, completed, cancelled or blocked. */
  status: string;
}

export type ChatEvent =
  | { type: "prompt"; text: string }
  | { type: "update"; update: Update }
  | { type: "result"; result: PromptResult }
  /** The prompt request failed with an error response (its data's errorKind, where it has one), or could not be sent. */
  | { type: "failed"; message: string; errorKind?: ErrorKind }
  | { type: "stopping" }
  /**
   * A new session (no id) or an earlier one to continue, with what was said
   * in it so far and, where the server says, what it has cost (`usage`), in
   * approval `mode` (the configured one, for a new session).
   */
  | { type: "session"; sessionId?: string; title?: string; exchanges?: readonly Exchange[] | null; mode: ApprovalMode; usage?: UsageUpdate }
  /** The model asks: the question joins the running turn. */
  | { type: "ask"; id: number; params: AskParams }
  /** Question `id` was answered (`answer` in words) or, without one, withdrawn. */
  | { type: "asked"; id: number; answer?: string }
  /** The user chose another approval mode; it holds for every session from the next request. */
  | { type: "mode"; mode: ApprovalMode }
  /** The edits waiting for the user's review now: their files. */
  | { type: "review"; files: FileStat[] };

export function emptyChat(mode: ApprovalMode = "default"): ChatState {
  return { mode, turns: [], busy: false, stopping: false, review: [], todos: [] };
}

export function applyEvent(state: ChatState, event: ChatEvent): void {
  switch (event.type) {
    case "prompt":
      state.turns.push({ prompt: event.text, items: [], done: false });
      state.busy = true;
      state.stopping = false;
      return;
    case "update":
      applyUpdate(state, event.update);
      return;
    case "result":
      state.sessionId = event.result.sessionId || state.sessionId;
      if (event.result.stopReason === "error") {
        addError(state, event.result.error ?? "The model call failed.", event.result.errorKind);
      }
      endTurn(state, event.result.stopReason);
      return;
    case "failed":
      addError(state, event.message, event.errorKind);
      endTurn(state, "error");
      return;
    case "stopping":
      state.stopping = state.busy;
      return;
    case "session":
      state.sessionId = event.sessionId;
      state.sessionTitle = event.title;
      state.mode = event.mode;
      state.turns = (event.exchanges ?? []).map((e) => ({
        prompt: e.prompt,
        items: e.answer === "" ? [] : [{ kind: "text", text: e.answer, rev: 0 }],
        done: true,
        stopReason: e.stopReason ?? "end_turn",
      }));
      state.busy = false;
      state.stopping = false;
      state.todos = [];
      // A continued session's figures show at once, not from its next answer; another session's are not its own.
      state.usage = event.usage !== undefined && event.usage.sessionId === event.sessionId ? usageOf(event.usage) : undefined;
      return;
    case "ask": {
      const turn = currentTurn(state);
      if (turn === undefined) {
        return;
      }
      const call = findCall(turn.items, event.params.callId);
      // An approval stands beside its call, which then shows what the command did.
      if (call !== undefined && event.params.kind !== confirmKind) {
        call.asks = true;
        call.rev++;
      }
      turn.items.push({ kind: "question", id: event.id, params: event.params, status: "open", answer: "", rev: 0 });
      return;
    }
    case "asked": {
      const question = findQuestion(state, event.id);
      if (question !== undefined && question.status === "open") {
        question.status = event.answer === undefined ? "withdrawn" : "answered";
        question.answer = event.answer ?? "";
        question.rev++;
      }
      return;
    }
    case "mode":
      state.mode = event.mode;
      return;
    case "review": {
      state.review = event.files;
      // A running edit's line says whether it waits for the review.
      for (const item of currentTurn(state)?.items ?? []) {
        if (item.kind === "tool" && item.status === "running") {
          item.rev++;
        }
      }
      return;
    }
  }
}

type Question = Extract<Item, { kind: "question" }>;
type ToolItem = Extract<Item, { kind: "tool" }>;

/** The call callId of the running turn, or inside a subagent's part of one; undefined when none. */
export function runningCall(state: ChatState, callId: string): ToolItem | undefined {
  const turn = currentTurn(state);
  return turn === undefined ? undefined : findCall(turn.items, callId);
}

/** The call callId of any turn, or inside a subagent's part of one; undefined when none. */
export function callById(state: ChatState, callId: string): ToolItem | undefined {
  for (const turn of state.turns) {
    const found = findCall(turn.items, callId);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

/** The call callId among items, or inside a subagent's part of one ("" finds none). */
function findCall(items: readonly Item[], callId: string): ToolItem | undefined {
  if (callId === "") {
    return undefined;
  }
  for (const item of items) {
    if (item.kind !== "tool") {
      continue;
    }
    if (item.callId === callId) {
      return item;
    }
    const inner = item.subagent && findCall(item.subagent.items, callId);
    if (inner !== undefined) {
      return inner;
    }
  }
  return undefined;
}

/**
 * Whether a call's line is left out of the chat: one that asks the user
 * while its question stands for it, and once it ended well (the answer is
 * recorded under the question). A call that failed or was stopped shows,
 * so the chat says so.
 */
export function hiddenByQuestion(item: Item): boolean {
  return item.kind === "tool" && item.asks === true && (item.status === "running" || item.status === "ok");
}

function findQuestion(state: ChatState, id: number): Question | undefined {
  for (const turn of state.turns) {
    const found = turn.items.find((i): i is Question => i.kind === "question" && i.id === id);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

/** Whether the chat can take a question now: a prompt is running in it. */
export function canAsk(state: ChatState): boolean {
  return currentTurn(state) !== undefined;
}

/** The title of the tool call running now, if any; a subagent's as "agent: title". A call that asks is the question's, not a call's. */
export function runningTool(state: ChatState): string | undefined {
  const running = (i: Item) => i.kind === "tool" && i.status === "running" && i.asks !== true;
  const item = currentTurn(state)?.items.findLast(running);
  if (item?.kind !== "tool") {
    return undefined;
  }
  const inner = item.subagent?.items.findLast(running);
  return inner?.kind === "tool" ? `${item.subagent?.name}: ${inner.title}` : item.title;
}

/** Whether a question waits for the user's answer in the running turn. */
export function awaitsAnswer(state: ChatState): boolean {
  return currentTurn(state)?.items.some((i) => i.kind === "question" && i.status === "open") ?? false;
}

/**
 * The chat's status line while a prompt runs: what is happening now in
 * words. A question waiting says so rather than repeating itself: it is
 * on screen once, in the turn.
 */
export function activity(state: ChatState): string {
  if (state.stopping) {
    return "Stopping…";
  }
  if (awaitsAnswer(state)) {
    return "Waiting for your answer…";
  }
  const tool = runningTool(state);
  return tool !== undefined ? `${tool}…` : "Working…";
}

function currentTurn(state: ChatState): Turn | undefined {
  const turn = state.turns.at(-1);
  return turn !== undefined && !turn.done ? turn : undefined;
}

function applyUpdate(state: ChatState, update: Update): void {
  // A mode switch may come between prompts (a slash command); it is the session's, not a turn's.
  if (update.kind === "mode") {
    if (state.sessionId === undefined && currentTurn(state) !== undefined) {
      state.sessionId = update.sessionId;
    }
    if (update.sessionId === state.sessionId) {
      state.mode = update.mode;
    }
    return;
  }
  const turn = currentTurn(state);
  if (turn === undefined) {
    return;
  }
  // Updates of other sessions (a prompt the user moved away from) are not ours to show.
  if (state.sessionId === undefined) {
    state.sessionId = update.sessionId;
  } else if (update.sessionId !== state.sessionId) {
    return;
  }
  if (update.parentCallId) {
    applySubagentUpdate(turn, update.parentCallId, update);
    return;
  }
  if (update.kind === "error") {
    addError(state, update.message, update.errorKind);
    return;
  }
  if ((update.kind === "toolCall" || update.kind === "plan") && update.todos !== undefined) {
    // Each write_todos (or the plan the model wrote as a checklist, or plan mode's) replaces the list: the plan is drawn again in place.
    state.todos = (update.todos ?? []).map((t) => ({ description: t.description, status: t.status }));
  }
  if (update.kind === "usage") {
    state.usage = usageOf(update);
  }
  applyToItems(turn.items, update);
}

/** The session's tokens and the window's fill as a usage update tells them: a live one, or a resumed session's. */
function usageOf(update: UsageUpdate): UsageState {
  return {
    sessionTokens: update.sessionUsage.totalTokens,
    cachedTokens: update.sessionUsage.cachedTokens,
    contextUsed: update.contextUsed,
    contextSize: update.contextSize,
  };
}

/**
 * Shows a subagent's update inside its invoke_agent call (a call line of
 * its own when the call was not seen); the call redraws.
 */
function applySubagentUpdate(turn: Turn, parentCallId: string, update: Update): void {
  let call = turn.items.find((i) => i.kind === "tool" && i.callId === parentCallId);
  if (call?.kind !== "tool") {
    call = { kind: "tool", callId: parentCallId, name: "invoke_agent", title: update.agentName ?? "subagent", status: "running", display: "", rev: 0 };
    turn.items.push(call);
  }
  call.subagent ??= { name: update.agentName ?? "subagent", items: [] };
  if (update.kind === "error") {
    // The subagent's failure is its own: the prompt goes on.
    call.subagent.items.push({ kind: "note", tone: "notice", text: update.message, rev: 0 });
  } else {
    applyToItems(call.subagent.items, update);
  }
  call.rev++;
}

/** Adds update to a list of items: a turn's, or a subagent's. */
function applyToItems(items: Item[], update: Update): void {
  (updateHandlers[update.kind] as UpdateHandler<Update["kind"]>)(items, update);
}

type UpdateOf<K extends Update["kind"]> = Extract<Update, { kind: K }>;
type UpdateHandler<K extends Update["kind"]> = (items: Item[], update: UpdateOf<K>) => void;

/**
 * What each kind of gemini/update does to a list of items (a turn's, or a
 * subagent's): one handler per kind, the kinds the chat does not show
 * included, so a kind without one does not compile.
 */
export const updateHandlers: { readonly [K in Update["kind"]]: UpdateHandler<K> } = {
  text(items, update) {
    const last = items.at(-1);
    if (last?.kind === "text") {
      last.text += update.text;
      last.rev++;
    } else {
      items.push({ kind: "text", text: update.text, rev: 0 });
    }
  },
  thought(items, update) {
    const last = items.at(-1);
    // A thought with a subject starts a new one; one without continues the last.
    if (!update.subject && last?.kind === "thought") {
      last.description += update.description ?? "";
      last.rev++;
    } else {
      items.push({ kind: "thought", subject: update.subject ?? "", description: update.description ?? "", rev: 0 });
    }
  },
  toolCall(items, update) {
    items.push({
      kind: "tool",
      callId: update.callId,
      name: update.name,
      title: update.title || update.name,
      status: "running",
      display: "",
      ...(typeof update.args?.dir_path === "string" && { dir: update.args.dir_path }),
      ...(typeof update.args?.command === "string" && { command: update.args.command }),
      ...(update.path && { path: update.path }),
      ...(update.line && { line: update.line }),
      ...(update.toolKind && { toolKind: update.toolKind }),
      ...(update.todos !== undefined && { setsTodos: true }),
      rev: 0,
    });
  },
  toolResult(items, update) {
    const call = items.find((i) => i.kind === "tool" && i.callId === update.callId);
    if (call?.kind === "tool") {
      call.status = update.status;
      call.display = update.display ?? "";
      if (update.outcome) {
        call.outcome = update.outcome;
      }
      if (update.found) {
        call.found = update.found.map((f) => ({ path: f.path, ...(f.line && { line: f.line }), ...(f.dir && { dir: true }) }));
        call.foundTotal = update.foundTotal ?? update.found.length;
      }
      call.rev++;
    } else {
      items.push({
        kind: "tool",
        callId: update.callId,
        name: update.name,
        title: update.name,
        status: update.status,
        display: update.display ?? "",
        ...(update.outcome && { outcome: update.outcome }),
        rev: 0,
      });
    }
  },
  // applyUpdate and applySubagentUpdate show errors.
  error() {},
  retry(items, update) {
    // One status line per wait: a later attempt replaces the last one's.
    const last = items.at(-1);
    const text = retryNote(update.attempt, update.delayMs, update.reason);
    if (last?.kind === "note" && last.tone === "status") {
      last.text = text;
      last.rev++;
    } else {
      items.push({ kind: "note", tone: "status", text, rev: 0 });
    }
  },
  notice(items, update) {
    items.push({ kind: "note", tone: "notice", text: update.message, rev: 0 });
  },
  compressed(items, update) {
    items.push({
      kind: "note",
      tone: "notice",
      text: `The conversation was compressed to fit the model's window (${update.tokensBefore} → ${update.tokensAfter} tokens).`,
      rev: 0,
    });
  },
  topic(items, update) {
    const text = topicNote(update);
    if (text !== "") {
      items.push({ kind: "note", tone: "topic", text, rev: 0 });
    }
  },
  // The status bar shows the model and the usage's model.
  usage() {},
  model() {},
  // applyUpdate takes the session's mode before any turn's item.
  mode() {},
  // The "/" commands are the prompt box's (updates.ts asks them again), not the chat's.
  commands() {},
  // The plan is the chat's pinned widget (applyUpdate), not a turn's item: the checklist stays in the text it came in.
  plan() {},
};

/**
 * A topic update in words: "Topic: <title>", with its summary when the
 * title starts a new topic, then on a line of its own what the model
 * means to do now.
 */
export function topicNote(update: UpdateOf<"topic">): string {
  const title = update.title?.trim() ?? "";
  const summary = update.newTopic ? (update.text?.trim() ?? "") : "";
  const intent = update.intent?.trim() ?? "";
  const head = title === "" ? "" : `Topic: ${title}${summary === "" ? "" : ` — ${summary}`}`;
  return [head, intent].filter((line) => line !== "").join("\n");
}

/** "The model is rate-limited (429); retrying in 2 s (attempt 1)". */
export function retryNote(attempt: number, delayMs: number, reason: string): string {
  const seconds = delayMs / 1000;
  const delay = Number.isInteger(seconds) ? `${seconds} s` : `${seconds.toFixed(1)} s`;
  const why = reason.trim() === "" ? "the model call failed" : reason.trim();
  return `${why[0].toUpperCase()}${why.slice(1)}; retrying in ${delay} (attempt ${attempt})`;
}

/** Adds an error to the current turn, once: the same failure arrives as an update and again in the result. */
function addError(state: ChatState, message: string, errorKind: ErrorKind | undefined): void {
  const turn = currentTurn(state);
  if (turn === undefined || turn.items.some((i) => i.kind === "error" && i.message === message)) {
    return;
  }
  const help = describeError(errorKind);
  turn.items.push({ kind: "error", message, ...(errorKind && { errorKind }), title: help.title, action: help.action, buttons: help.buttons, rev: 0 });
}

/** The kind of the failure the last turn ended with, while it is the last: what the status bar item shows. */
export function lastFailure(state: ChatState): ErrorKind | undefined {
  const turn = state.turns.at(-1);
  if (turn === undefined || !turn.done || turn.stopReason !== "error") {
    return undefined;
  }
  const error = turn.items.findLast((i) => i.kind === "error");
  return error?.kind === "error" ? error.errorKind : undefined;
}

function endTurn(state: ChatState, stopReason: StopReason): void {
  const turn = currentTurn(state);
  if (turn !== undefined) {
    turn.done = true;
    turn.stopReason = stopReason;
    // A call that never reported its end will not do so now.
    const cancelRunning = (items: Item[]): void => {
      for (const item of items) {
        if (item.kind === "tool" && item.subagent !== undefined) {
          cancelRunning(item.subagent.items);
          item.rev++;
        }
        if (item.kind === "tool" && item.status === "running") {
          item.status = "cancelled";
          item.rev++;
        }
      }
    };
    cancelRunning(turn.items);
    for (const item of turn.items) {
      if (item.kind === "question" && item.status === "open") {
        item.status = "withdrawn";
        item.rev++;
      }
    }
  }
  state.busy = false;
  state.stopping = false;
}
