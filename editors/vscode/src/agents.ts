// The agents (issue 97) as data: sessions that each run in a git worktree of
// their own, as gemini/agents lists them and gemini/agent notifications
// change them, and how each reads in the agents view, its notifications and
// the land's result. Background agents (issue 98) are rows of the same list:
// they run on GitHub Actions, have no session here, and have a worktree only
// once the server fetched their pull request's branch. Pure, so the list's
// state handling is tested without VS Code; agentsView.ts draws it.

import { shortTokens } from "./present";
import type { DelegateParams, FollowUpParams, PromptResult } from "./protocol";
import { statText } from "./toolView";

// The wire's types (protocol.ts's AgentInfo and LandAgentResult), as parseAgent
// and parseLandResult make them: closed sets of states, no nulls.
export type AgentState = "queued" | "working" | "waiting" | "done" | "failed" | "stopped";
export interface AgentFile {
  /** Relative to the agent's worktree. */
  path: string;
  added: number;
  removed: number;
  status: "added" | "modified" | "deleted";
}
export interface Worktree {
  name: string;
  path: string;
  branch: string;
  base: string;
}
/** Where a background agent runs on GitHub, as the server follows it. */
export interface Background {
  /** Names it in requests: "bg-<task name>". */
  id: string;
  /** owner/name. */
  repository: string;
  /** Its newest run; 0 until GitHub made it. */
  runId: number;
  /** The run's page; "" until there is one, or when the server sent one that is not http(s). */
  runUrl: string;
  /** gemini/<task>. */
  branch: string;
  pullRequest?: { number: number; url: string };
}
export interface Agent {
  /** "" for a worktree found on disk with no saved session, and for a background agent. */
  sessionId: string;
  /** The task: its first prompt's first line. */
  title: string;
  state: AgentState;
  /** A local agent's always; a background agent's once its pull request's branch was fetched. */
  worktree?: Worktree;
  /** A background agent's: it runs on GitHub Actions, not here. */
  background?: Background;
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

const states: readonly AgentNotice[] = ["queued", "working", "waiting", "done", "failed", "stopped", "discarded"];
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
  if (typeof a.sessionId !== "string" || !states.includes(a.state as AgentNotice)) {
    return undefined;
  }
  const worktree = parseWorktree(a.worktree);
  const background = a.kind === "background" ? parseBackground(a.background) : undefined;
  // A local agent is its worktree; a background one is its run, and has a worktree only at its end.
  if (a.kind === "background" ? background === undefined : worktree === undefined) {
    return undefined;
  }
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
    ...(worktree !== undefined && { worktree }),
    ...(background !== undefined && { background }),
    startedAt: str(a.startedAt),
    ...(typeof a.endedAt === "string" && a.endedAt !== "" && { endedAt: a.endedAt }),
    tokens: count(a.tokens),
    files,
    ...(typeof a.question === "string" && a.question !== "" && { question: a.question }),
    ...(typeof a.error === "string" && a.error !== "" && { error: a.error }),
    ...(typeof a.errorKind === "string" && a.errorKind !== "" && { errorKind: a.errorKind }),
  };
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

function parseWorktree(raw: unknown): Worktree | undefined {
  const w = raw as Record<string, unknown> | undefined;
  if (typeof w !== "object" || w === null || typeof w.name !== "string") {
    return undefined;
  }
  return { name: w.name, path: str(w.path), branch: str(w.branch), base: str(w.base) };
}

function parseBackground(raw: unknown): Background | undefined {
  const b = raw as Record<string, unknown> | undefined;
  if (typeof b !== "object" || b === null || typeof b.id !== "string" || b.id === "") {
    return undefined;
  }
  const pr = b.pullRequest as Record<string, unknown> | undefined;
  const prUrl = typeof pr === "object" && pr !== null ? webUrl(pr.url) : "";
  return {
    id: b.id,
    repository: str(b.repository),
    runId: count(b.runId),
    runUrl: webUrl(b.runUrl),
    branch: str(b.branch),
    ...(prUrl !== "" && { pullRequest: { number: count(pr?.number), url: prUrl } }),
  };
}

/** `v` when it is an http(s) URL, the only links the view opens; else "" (a server's javascript: or file: link is not followed). */
export function webUrl(v: unknown): string {
  if (typeof v !== "string") {
    return "";
  }
  try {
    const u = new URL(v);
    return u.protocol === "https:" || u.protocol === "http:" ? v : "";
  } catch {
    return "";
  }
}

/** The key of an agent's row: its session, a background agent's id, or for a worktree found on disk with no session, its worktree's name. */
export function agentKey(a: Pick<Agent, "sessionId" | "worktree" | "background">): string {
  if (a.sessionId !== "") {
    return a.sessionId;
  }
  return a.background !== undefined ? `background:${a.background.id}` : `worktree:${a.worktree?.name ?? ""}`;
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
    // A background agent's end is told by the server itself (window/showMessage, with its pull request).
    const news = agent.background === undefined && (agent.state === "waiting" || agent.state === "done" || agent.state === "failed");
    return news && before?.state !== agent.state ? { agent, notify: agent.state as AgentChange["notify"] } : { agent };
  }

  /** How many agents wait for the user: the view's badge. */
  waiting(): number {
    return this.rows.filter((a) => a.state === "waiting").length;
  }

  /** Whether any agent is working: the elapsed times tick. */
  anyWorking(): boolean {
    return this.rows.some((a) => a.state === "queued" || a.state === "working" || a.state === "waiting");
  }
}

/** Each state in words, as the view's row says it. */
export const stateLabels: Record<AgentState, string> = {
  queued: "Queued",
  working: "Working",
  waiting: "Waiting for you",
  done: "Done",
  failed: "Failed",
  stopped: "Stopped",
};

/** Each state's codicon and its theme colour (undefined: the foreground). */
export const stateIcons: Record<AgentState, { icon: string; color?: string }> = {
  queued: { icon: "clock" },
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
 * call for the user are said in words too ("Waiting for you · 12s"). A
 * background agent's icon says GitHub, so its state is always in words:
 * "Working on GitHub · 2m 10s", "Done on GitHub · PR #7 · +12 −3".
 */
export function agentDescription(a: Agent, now: Date): string {
  if (a.background !== undefined) {
    const pr = a.background.pullRequest;
    return [`${stateLabels[a.state]} on GitHub`, elapsed(a, now), pr !== undefined ? `PR #${pr.number}` : "", filesStat(a.files)].filter((p) => p !== "").join(" · ");
  }
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
  const pr = a.background?.pullRequest;
  return `${agentTitle(a)}: ${[
    a.background !== undefined ? `${stateLabels[a.state]} on GitHub` : stateLabels[a.state],
    elapsed(a, now),
    a.tokens > 0 ? `${shortTokens(a.tokens)} tokens` : "",
    pr !== undefined ? `pull request #${pr.number}` : "",
    files,
  ]
    .filter((p) => p !== "")
    .join(", ")}`;
}

/** The row's title: the task, or the worktree's (or branch's) name for one with no title. */
export function agentTitle(a: Pick<Agent, "title" | "worktree" | "background">): string {
  return a.title.trim() || a.worktree?.name || a.background?.branch || a.background?.id || "";
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
  const b = a.background;
  if (b !== undefined) {
    lines.push("", `Runs on GitHub Actions in \`${b.repository}\`, on branch \`${b.branch}\``);
    const links = [b.runUrl !== "" ? `[Run ${b.runId}](${linkTarget(b.runUrl)})` : "", b.pullRequest !== undefined ? `[Pull request #${b.pullRequest.number}](${linkTarget(b.pullRequest.url)})` : ""];
    if (links.some((l) => l !== "")) {
      lines.push("", links.filter((l) => l !== "").join(" · "));
    }
  }
  if (a.worktree !== undefined) {
    lines.push("", `Worktree \`${a.worktree.path || a.worktree.name}\` on branch \`${a.worktree.branch}\``);
  } else if (b !== undefined) {
    lines.push("", "Its work comes to a local worktree for review when the run is done.");
  }
  return lines.join("\n");
}

/** A URL as a Markdown link's target: parentheses and spaces encoded, so it cannot end the link early. */
function linkTarget(url: string): string {
  return url.replace(/[() ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, "\\$&");
}

/**
 * The row's context value, which package.json's menus read: a local agent's
 * state and whether it has a session ("agent.done", "agent.done.nosession");
 * a background agent's state, whether it has a pull request and a local
 * worktree ("background.working", "background.done.pr.worktree").
 */
export function agentContext(a: Agent): string {
  if (a.background !== undefined) {
    return `background.${a.state}${a.background.pullRequest !== undefined ? ".pr" : ""}${a.worktree !== undefined ? ".worktree" : ""}`;
  }
  return `agent.${a.state}${a.sessionId === "" ? ".nosession" : ""}`;
}

/** gemini/delegate's params: the task, and the editor's GitHub token when it has one (else the server finds one). */
export function delegateParams(task: string, token: string | undefined): DelegateParams {
  return { prompt: task.trim(), ...(token !== undefined && token !== "" && { token }) };
}

/** gemini/followUpAgent's params: the agent's id, what it should do next, and the token as delegateParams sends it. */
export function followUpParams(id: string, prompt: string, token: string | undefined): FollowUpParams {
  return { id, prompt: prompt.trim(), ...(token !== undefined && token !== "" && { token }) };
}

/** Why a follow-up cannot go to agent `a` now, as the server would refuse it; undefined when it can. */
export function followUpProblem(a: Agent): string | undefined {
  if (a.background === undefined) {
    return `“${agentTitle(a)}” runs here: write to it in its chat.`;
  }
  if (a.state === "queued" || a.state === "working") {
    return `“${agentTitle(a)}” is still running on GitHub: send the follow-up once it is done.`;
  }
  if (a.background.pullRequest === undefined) {
    return `“${agentTitle(a)}” has no pull request yet to comment on.`;
  }
  return undefined;
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
    case "queued":
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
