// The agents (issue 97) as data: sessions that each run in a git worktree of
// their own, as gemini/agents lists them and gemini/agent notifications
// change them, and how each reads in the agents view, its notifications and
// the land's result. Pure, so the list's state handling is tested without
// VS Code; agentsView.ts draws it.

import { shortTokens } from "./present";
import type { PromptResult } from "./protocol";
import { statText } from "./toolView";

// The wire's types (protocol.ts's AgentInfo and LandAgentResult), as parseAgent
// and parseLandResult make them: closed sets of states, no nulls.
export type AgentState = "working" | "waiting" | "done" | "failed" | "stopped";
export interface AgentFile {
  /** Relative to the agent's worktree. */
  path: string;
  added: number;
  removed: number;
  status: "added" | "modified" | "deleted";
}
export interface Agent {
  /** "" for a worktree found on disk with no saved session. */
  sessionId: string;
  /** The task: its first prompt's first line. */
  title: string;
  state: AgentState;
  worktree: { name: string; path: string; branch: string; base: string };
  startedAt: string;
  endedAt?: string;
  tokens: number;
  files: AgentFile[];
  question?: string;
  error?: string;
  errorKind?: string;
}
export interface LandAgentResult {
  applied: boolean;
  files: AgentFile[];
  conflicts: { path: string; line: number; yours: string; theirs: string }[];
  message: string;
}

/** A state as a notification names it: an agent the server says was discarded leaves the list. */
export type AgentNotice = AgentState | "discarded";

const states: readonly AgentNotice[] = ["working", "waiting", "done", "failed", "stopped", "discarded"];
const fileStatuses: readonly AgentFile["status"][] = ["added", "modified", "deleted"];

/** How many files of an agent the view keeps: a hostile or confused server cannot fill the memory with rows. */
export const maxFiles = 500;
/** How many agents the view keeps. */
export const maxAgents = 200;

/**
 * An agent as the server sent it, checked field by field (a server is
 * trusted no more than any peer): undefined when it is not one, with
 * sloppy optional fields left out.
 */
export function parseAgent(raw: unknown): (Omit<Agent, "state"> & { state: AgentNotice }) | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const a = raw as Record<string, unknown>;
  const w = a.worktree as Record<string, unknown> | undefined;
  if (typeof a.sessionId !== "string" || !states.includes(a.state as AgentNotice) || typeof w !== "object" || w === null || typeof w.name !== "string") {
    return undefined;
  }
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  const files = (Array.isArray(a.files) ? a.files : [])
    .filter((f): f is Record<string, unknown> => typeof f === "object" && f !== null && typeof (f as { path?: unknown }).path === "string")
    .slice(0, maxFiles)
    .map((f) => ({
      path: f.path as string,
      added: count(f.added),
      removed: count(f.removed),
      status: fileStatuses.includes(f.status as AgentFile["status"]) ? (f.status as AgentFile["status"]) : "modified",
    }));
  return {
    sessionId: a.sessionId,
    title: str(a.title),
    state: a.state as AgentNotice,
    worktree: { name: w.name, path: str(w.path), branch: str(w.branch), base: str(w.base) },
    startedAt: str(a.startedAt),
    ...(typeof a.endedAt === "string" && a.endedAt !== "" && { endedAt: a.endedAt }),
    tokens: count(a.tokens),
    files,
    ...(typeof a.question === "string" && a.question !== "" && { question: a.question }),
    ...(typeof a.error === "string" && a.error !== "" && { error: a.error }),
    ...(typeof a.errorKind === "string" && a.errorKind !== "" && { errorKind: a.errorKind }),
  };
}

/** The key of an agent's row: its session, or for a worktree found on disk with none, its worktree's name. */
export function agentKey(a: Pick<Agent, "sessionId" | "worktree">): string {
  return a.sessionId !== "" ? a.sessionId : `worktree:${a.worktree.name}`;
}

/** What a change to the list calls for beyond redrawing: a notification, when an agent newly waits, is done or failed. */
export interface AgentChange {
  agent: Agent;
  /** The state the agent went to, when the user should hear of it; absent otherwise. */
  notify?: "waiting" | "done" | "failed";
}

/**
 * The agents as the view shows them, newest first: replaced whole by
 * gemini/agents' answer, changed row by row by gemini/agent.
 */
export class AgentList {
  private rows: Agent[] = [];

  all(): readonly Agent[] {
    return this.rows;
  }

  get(key: string): Agent | undefined {
    return this.rows.find((a) => agentKey(a) === key);
  }

  /** Whether `sessionId` is an agent's: its updates and questions are its own chat's. */
  has(sessionId: string): boolean {
    return sessionId !== "" && this.rows.some((a) => a.sessionId === sessionId);
  }

  /** The list as gemini/agents answered it: no notification, since nothing changed that the user did not see coming. */
  replace(raw: unknown): void {
    const agents = Array.isArray((raw as { agents?: unknown } | null)?.agents) ? (raw as { agents: unknown[] }).agents : [];
    this.rows = [];
    for (const a of agents.map(parseAgent)) {
      if (a !== undefined && a.state !== "discarded" && this.get(agentKey(a)) === undefined) {
        this.rows.push(a as Agent);
      }
    }
    this.rows = this.rows.slice(0, maxAgents);
  }

  /**
   * Takes one gemini/agent notification: the row is replaced (or added
   * first, as the newest), or removed when the agent was discarded.
   * Undefined for params that are not an agent.
   */
  apply(raw: unknown): AgentChange | { removed: string } | undefined {
    const a = parseAgent(raw);
    if (a === undefined) {
      return undefined;
    }
    const key = agentKey(a);
    const at = this.rows.findIndex((r) => agentKey(r) === key);
    if (a.state === "discarded") {
      if (at >= 0) {
        this.rows.splice(at, 1);
      }
      return { removed: key };
    }
    const agent = a as Agent;
    const before = at >= 0 ? this.rows[at] : undefined;
    if (at >= 0) {
      this.rows[at] = agent;
    } else {
      this.rows.unshift(agent);
      this.rows.length = Math.min(this.rows.length, maxAgents);
    }
    // Told once per arrival: a second notification in the same state (its tokens, its files) is not news.
    const news = agent.state === "waiting" || agent.state === "done" || agent.state === "failed";
    return news && before?.state !== agent.state ? { agent, notify: agent.state as AgentChange["notify"] } : { agent };
  }

  /** How many agents wait for the user: the view's badge. */
  waiting(): number {
    return this.rows.filter((a) => a.state === "waiting").length;
  }

  /** Whether any agent is working: the elapsed times tick. */
  anyWorking(): boolean {
    return this.rows.some((a) => a.state === "working" || a.state === "waiting");
  }
}

/** Each state in words, as the view's row says it. */
export const stateLabels: Record<AgentState, string> = {
  working: "Working",
  waiting: "Waiting for you",
  done: "Done",
  failed: "Failed",
  stopped: "Stopped",
};

/** Each state's codicon and its theme colour (undefined: the foreground). */
export const stateIcons: Record<AgentState, { icon: string; color?: string }> = {
  working: { icon: "loading~spin" },
  waiting: { icon: "bell-dot", color: "notificationsWarningIcon.foreground" },
  done: { icon: "pass", color: "testing.iconPassed" },
  failed: { icon: "error", color: "testing.iconFailed" },
  stopped: { icon: "debug-stop" },
};

/** The time the agent has run: from its start to its last turn's end, or to `now` while it works. "45s", "3m 04s", "1h 02m". */
export function elapsed(a: Pick<Agent, "startedAt" | "endedAt">, now: Date): string {
  const start = Date.parse(a.startedAt);
  const end = a.endedAt !== undefined ? Date.parse(a.endedAt) : now.getTime();
  if (Number.isNaN(start) || Number.isNaN(end)) {
    return "";
  }
  const s = Math.max(0, Math.floor((end - start) / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) {
    return `${s}s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  }
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

/** The lines the agent's work adds and removes in all: "+12 −3"; "" when it changed nothing. */
export function filesStat(files: readonly AgentFile[]): string {
  if (files.length === 0) {
    return "";
  }
  return statText({ added: files.reduce((n, f) => n + f.added, 0), removed: files.reduce((n, f) => n + f.removed, 0) });
}

/**
 * The words beside a row's title, short enough for a side bar: "1m 04s ·
 * 3.4k tokens · +12 −3". The icon says working or done; the states that
 * call for the user are said in words too ("Waiting for you · 12s").
 */
export function agentDescription(a: Agent, now: Date): string {
  const parts = [a.state === "working" || a.state === "done" ? "" : stateLabels[a.state], elapsed(a, now)];
  if (a.tokens > 0) {
    parts.push(`${shortTokens(a.tokens)} tokens`);
  }
  parts.push(filesStat(a.files));
  return parts.filter((p) => p !== "").join(" · ");
}

/** The row in words for a screen reader, the state always said: "Fix the login: Done, 1m 04s, 2 files +12 −3". */
export function agentLabel(a: Agent, now: Date): string {
  const files = a.files.length === 0 ? "" : `${a.files.length} file${a.files.length === 1 ? "" : "s"} ${filesStat(a.files)}`;
  return `${agentTitle(a)}: ${[stateLabels[a.state], elapsed(a, now), a.tokens > 0 ? `${shortTokens(a.tokens)} tokens` : "", files].filter((p) => p !== "").join(", ")}`;
}

/** The row's title: the task, or the worktree's name for one found on disk with no title. */
export function agentTitle(a: Pick<Agent, "title" | "worktree">): string {
  return a.title.trim() || a.worktree.name;
}

/** The row's tooltip, in Markdown: the task, its state and why, where it works. */
export function agentTooltip(a: Agent, now: Date): string {
  const lines = [`**${escapeMarkdown(agentTitle(a))}**`, "", agentLabel(a, now).slice(agentTitle(a).length + 2)];
  if (a.question !== undefined) {
    lines.push("", `Waits for you: ${escapeMarkdown(a.question)}`);
  }
  if (a.error !== undefined) {
    lines.push("", `Failed: ${escapeMarkdown(a.error)}`);
  }
  lines.push("", `Worktree \`${a.worktree.path || a.worktree.name}\` on branch \`${a.worktree.branch}\``);
  return lines.join("\n");
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, "\\$&");
}

/** The notification's sentence for an agent that newly waits, is done, or failed. */
export function noticeText(a: Agent, state: NonNullable<AgentChange["notify"]>): string {
  const name = `Agent “${agentTitle(a)}”`;
  switch (state) {
    case "waiting":
      return `${name} waits for you${a.question ? `: ${a.question}` : "."}`;
    case "done": {
      const n = a.files.length;
      return n === 0 ? `${name} is done; it changed no file.` : `${name} is done: ${n} file${n === 1 ? "" : "s"} changed (${filesStat(a.files)}).`;
    }
    case "failed":
      return `${name} failed${a.error ? `: ${a.error}` : "."}`;
  }
}

/**
 * Whether `name` is a worktree name the server takes (letters, digits,
 * ".", "_", "-"; no "..", no leading "-"; docs/protocol.md 5h): the input box
 * says why not as the user types; the server checks again and wins.
 * Undefined when it is one ("" is: the server makes a name).
 */
export function worktreeNameProblem(name: string): string | undefined {
  if (name === "") {
    return undefined;
  }
  if (!/^[A-Za-z0-9._-]+$/.test(name)) {
    return "A worktree name holds only letters, digits, “.”, “_” and “-”.";
  }
  if (name.startsWith("-")) {
    return "A worktree name cannot start with “-”.";
  }
  if (name.includes("..")) {
    return "A worktree name cannot hold “..”.";
  }
  return undefined;
}

/** gemini/prompt's params that start an agent: a new session (no sessionId) in worktree `name`, or one the server names. */
export function startAgentParams(task: string, name: string): { prompt: string; worktree: string | true } {
  return { prompt: task, worktree: name.trim() === "" ? true : name.trim() };
}

/**
 * gemini/landAgent's result, checked (a server is trusted no more than any
 * peer): what the editor shows of it.
 */
export function parseLandResult(raw: unknown): LandAgentResult {
  const r = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const conflicts = (Array.isArray(r.conflicts) ? r.conflicts : [])
    .filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null && typeof (c as { path?: unknown }).path === "string")
    .map((c) => ({
      path: c.path as string,
      line: typeof c.line === "number" ? c.line : 0,
      yours: typeof c.yours === "string" ? c.yours : "",
      theirs: typeof c.theirs === "string" ? c.theirs : "",
    }));
  const files = parseAgent({ sessionId: "", state: "done", worktree: { name: "" }, files: r.files })?.files ?? [];
  return { applied: r.applied === true, files, conflicts, message: typeof r.message === "string" ? r.message : "" };
}

/**
 * The land's conflicts as a Markdown document, both sides of each: the
 * user's lines, as they are in the user's file, and the agent's, which
 * were left out of the edit. `relative` names a path as the user knows it.
 */
export function conflictsDocument(title: string, result: LandAgentResult, relative: (path: string) => string): string {
  const lines = [`# Conflicts landing “${title}”`, "", result.message, ""];
  lines.push(
    "Each hunk below was left out of the edit: you changed its lines since the agent started. Your text is as it is in your file; the agent's is on its branch. Copy what you want of it by hand.",
    "",
  );
  for (const c of result.conflicts) {
    lines.push(`## ${relative(c.path)}:${c.line}`, "", "Yours:", "", ...fenced(c.yours), "", "The agent's:", "", ...fenced(c.theirs), "");
  }
  return lines.join("\n");
}

/** `text` in a code fence longer than any run of backticks in it, so its own fences cannot close it. */
function fenced(text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [fence, text.replace(/\n$/, ""), fence];
}

/**
 * Whether what session `sessionId` sends (an update, a question) is the
 * chat's to show: the chat shows one session, and an agent's belong to its
 * own chat, so a chat that has no session yet never takes an agent's id as
 * its own.
 */
export function belongsToChat(sessionId: string, chatSessionId: string | undefined, isAgent: (id: string) => boolean): boolean {
  return sessionId === chatSessionId || !isAgent(sessionId);
}

/**
 * Where a question (gemini/confirm, gemini/ask) of session `sessionId` is
 * asked: in the chat when it shows that session with a turn open and is on
 * screen; held for its agent's chat when it is another agent's (the agent
 * waits, the user is told, and the question shows when they open its chat);
 * else in a dialog, as before agents.
 */
export function questionPlace(
  sessionId: string,
  chat: { sessionId: string | undefined; turnOpen: boolean; visible: boolean },
  isAgent: (id: string) => boolean,
): "chat" | "held" | "dialog" {
  if (!belongsToChat(sessionId, chat.sessionId, isAgent)) {
    return "held";
  }
  return chat.visible && chat.turnOpen ? "chat" : "dialog";
}

/**
 * How the chat's turn of an agent it shows ends when the agent's state
 * says its turn ended (the chat did not send the prompt, so no result
 * comes to it): undefined while it works or waits.
 */
export function turnEndOf(a: Pick<Agent, "sessionId" | "state" | "error">): PromptResult | undefined {
  switch (a.state) {
    case "working":
    case "waiting":
      return undefined;
    case "done":
      return { sessionId: a.sessionId, stopReason: "end_turn", text: "" };
    case "stopped":
      return { sessionId: a.sessionId, stopReason: "cancelled", text: "" };
    case "failed":
      return { sessionId: a.sessionId, stopReason: "error", text: "", error: a.error ?? "The agent failed." };
  }
}
