// How the extension's state reads in the status bar, quick picks and
// dialogs. Pure, so each wording is tested without VS Code.

import { describeError, type ErrorKind, type StatusCommand } from "./errors";
import type { ConfirmOutcome, ConfirmParams, ModelInfo, ModelsResult, SessionInfo, Update } from "./protocol";

export type ServerState = "starting" | "running" | "stopped";

export interface StatusInput {
  server: ServerState;
  /** A prompt is running. */
  working: boolean;
  /** Changes waiting for the user's review. */
  reviews: number;
  /** The title of the tool call running now, if any. */
  activity?: string;
  /** The model as the server reports it; absent until it has said. */
  model?: ModelState;
  /** What keeps Gemini from reaching the model (no key or login, a key refused); absent when nothing does. */
  authProblem?: string;
  /** The kind of failure the last prompt ended with, while it is the last; absent when it did not fail, or failed of no known kind. */
  failure?: ErrorKind;
  /** The session's tokens and the window's fill; absent until the model has answered. */
  usage?: UsageState;
}

/** The session's tokens and how full the model's window is: what the chat's footer and the status bar item show. */
export interface UsageState {
  /** Tokens of the whole session so far. */
  sessionTokens: number;
  /** Of them, served from the context cache. */
  cachedTokens: number;
  /** The last request's prompt tokens, of the model's window: how full it is. */
  contextUsed: number;
  contextSize: number;
}

/** The usage in words: `fill` ("25%", "<1%"; "" where the window was not counted), `text` for the chat's footer, `detail` for a tooltip. */
export interface UsageView {
  fill: string;
  text: string;
  detail: string;
}

export function usageView(u: UsageState): UsageView {
  // A server (or model) that did not count the window says only the tokens.
  const counted = u.contextSize > 0 && u.contextUsed > 0;
  const percent = counted ? (100 * u.contextUsed) / u.contextSize : 0;
  const fill = !counted ? "" : percent < 1 ? "<1%" : `${Math.round(percent)}%`;
  const sum = `${shortTokens(u.sessionTokens)} tokens, ${shortTokens(u.cachedTokens)} cached`;
  return {
    fill,
    text: fill === "" ? sum : `${fill} of context · ${sum}`,
    detail:
      `This session: ${u.sessionTokens.toLocaleString("en")} tokens, ${u.cachedTokens.toLocaleString("en")} of them from the cache.` +
      (u.contextSize > 0 ? `\nLast request: ${u.contextUsed.toLocaleString("en")} of the model's ${u.contextSize.toLocaleString("en")}-token window.` : ""),
  };
}

/** A token count as it fits in a footer: 950, 12.3k, 1.2M. */
export function shortTokens(n: number): string {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(1)}M`;
}

/** The model as the server reports it: gemini/models, then the model and usage updates. */
export interface ModelState {
  /** As named: auto, gemini-2.5-pro, ... */
  current?: string;
  /** As shown: Auto, gemini-3.1-pro-preview, ... */
  name?: string;
  /** The model that last answered, where an alias routed the prompt. */
  answered?: string;
}

/**
 * The model as the status bar shows it: "Auto", and where an alias was
 * routed, the model that answered: "Auto → gemini-3.8-flash"; "" until the
 * server has said.
 */
export function modelLabel(m: ModelState | undefined): string {
  const name = m?.name || m?.current || "";
  if (name === "") {
    return "";
  }
  const answered = m?.answered;
  return answered && answered !== m?.current && answered !== name ? `${name} → ${answered}` : name;
}

/** The model as the chat's model picker names it: "Auto", "gemini-2.5-flash"; "" until the server has said. */
export function modelName(m: ModelState | undefined): string {
  return m?.name || m?.current || "";
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** What clicking the item does. */
  command: "gemini.openChat" | "gemini.review.show" | "gemini.restartServer" | "gemini.statusMenu" | StatusCommand;
  /** Drawn on the status bar's error background, as VS Code draws items that need the user. */
  error?: boolean;
}

export function statusView(s: StatusInput): StatusView {
  const view = baseStatusView(s);
  if (s.server === "stopped") {
    return view;
  }
  return withUsage(withModel(view, modelLabel(s.model)), s.usage);
}

function withModel(view: StatusView, model: string): StatusView {
  if (model === "") {
    return view;
  }
  return {
    ...view,
    text: `${view.text} · ${model}`,
    tooltip: `${view.tooltip}\nModel: ${model}. Run “Gemini: Choose Model” to choose another.`,
  };
}

/** The window's fill after the model, as the chat's footer has it; the session's tokens in the tooltip. */
function withUsage(view: StatusView, usage: UsageState | undefined): StatusView {
  if (usage === undefined) {
    return view;
  }
  const u = usageView(usage);
  return {
    ...view,
    text: u.fill === "" ? view.text : `${view.text} · ${u.fill} context`,
    tooltip: `${view.tooltip}\n${u.detail}`,
  };
}

function baseStatusView(s: StatusInput): StatusView {
  if (s.server === "stopped") {
    return { text: "$(error) Gemini", tooltip: "gemini-ls is not running. Click to start it again.", command: "gemini.restartServer" };
  }
  if (s.authProblem !== undefined && s.server === "running" && !s.working) {
    return {
      text: "$(error) Gemini: sign in",
      tooltip: `${s.authProblem} Click to enter an API key or sign in with Google.`,
      command: "gemini.signInMenu",
      error: true,
    };
  }
  if (s.reviews > 0) {
    return {
      text: `$(diff) Gemini: reviewing (${s.reviews})`,
      tooltip: `${s.reviews === 1 ? "A change waits" : `${s.reviews} changes wait`} for your review. Click to show it.`,
      command: "gemini.review.show",
    };
  }
  // The last prompt failed: what to do about it, a click away.
  const failed = s.failure !== undefined && s.server === "running" && !s.working ? describeError(s.failure) : undefined;
  if (failed?.status !== undefined) {
    return {
      text: `$(error) Gemini: ${failed.status.text}`,
      tooltip: `${failed.title} ${failed.action}`.trim(),
      command: failed.status.command,
      error: true,
    };
  }
  if (s.working || s.server === "starting") {
    const what = s.server === "starting" ? "Starting gemini-ls…" : s.activity ? `Gemini: ${s.activity}` : "Gemini is working…";
    return { text: "$(loading~spin) Gemini", tooltip: what, command: "gemini.openChat" };
  }
  return { text: "$(sparkle) Gemini", tooltip: "Gemini is ready. Click for the chat, the model, the mode and the rest.", command: "gemini.statusMenu" };
}

export const confirmChoices = { once: "Allow Once", always: "Always Allow" } as const;

export interface ConfirmButton {
  label: string;
  outcome: ConfirmOutcome;
}

/** What the buttons of a confirmation rest on; a newer server may send a kind not listed in the schema. */
export type ConfirmQuestion = {
  kind: ConfirmParams["kind"] | (string & {});
  canAllowAlways?: boolean;
  alwaysPrefixes?: null | string[];
};

/** The choice that allows a shell command's prefixes (go test) for the session: "Always Allow go test …". */
export function prefixLabel(prefixes: readonly string[]): string {
  return `${confirmChoices.always} ${prefixes.map((p) => `${p} …`).join(", ")}`;
}

/**
 * The buttons of gemini/confirm's modal for question q; dismissing the
 * dialog answers "cancel". Always Allow only where the server says it
 * would hold (not for a command it cannot cover), and its narrower scope,
 * the command's prefix, where the server offers one. A rewind's conflict (a
 * file changed since the agent's change) is revert it anyway or keep it.
 */
export function confirmButtons(q: ConfirmQuestion): ConfirmButton[] {
  if (q.kind === "rewind") {
    return [
      { label: "Revert Anyway", outcome: "proceed_once" },
      { label: "Keep My Changes", outcome: "cancel" },
    ];
  }
  const once: ConfirmButton = { label: confirmChoices.once, outcome: "proceed_once" };
  if (!q.canAllowAlways) {
    return [once];
  }
  const always: ConfirmButton[] = [{ label: confirmChoices.always, outcome: "proceed_always" }];
  if (q.alwaysPrefixes && q.alwaysPrefixes.length > 0) {
    // The narrower scope first, as Claude Code and Copilot offer it: go test, not every go command.
    always.unshift({ label: prefixLabel(q.alwaysPrefixes), outcome: "proceed_always_prefix" });
  }
  return [once, ...always];
}

/** gemini/confirm's modal: its question, the details under it, its buttons. */
export interface ConfirmDialog {
  message: string;
  detail?: string;
  buttons: ConfirmButton[];
}

/**
 * The modal for gemini/confirm's params: the title as the question (a
 * question of its own should a server send none: a modal without one
 * reads as nothing to answer), the details, the buttons.
 */
export function confirmDialog(params: Partial<ConfirmParams> & ConfirmQuestion): ConfirmDialog {
  const title = params.title?.trim() ?? "";
  return { message: title === "" ? "Allow Gemini to go on?" : params.title ?? "", detail: params.details, buttons: confirmButtons(params) };
}

/** The answer to gemini/confirm for the button the user chose; dismissing the dialog rejects. */
export function confirmOutcome(q: ConfirmQuestion, choice: string | undefined): ConfirmOutcome {
  return confirmButtons(q).find((b) => b.label === choice)?.outcome ?? "cancel";
}

export interface SessionPick {
  label: string;
  description: string;
  sessionId: string;
  title: string;
  session: SessionInfo;
}

/** When a session was last used: updatedAt, or createdAt from servers that do not send it. */
function lastUsed(s: SessionInfo): number {
  return Date.parse(s.updatedAt ?? s.createdAt);
}

/**
 * Quick pick rows for the session list, the most recently used first, the
 * current one marked, "saved" for a session on disk that is not live in the
 * server.
 */
export function sessionPicks(sessions: readonly SessionInfo[], currentId: string | undefined, now: Date): SessionPick[] {
  return [...sessions]
    .sort((a, b) => lastUsed(b) - lastUsed(a))
    .map((s) => {
      const title = s.title.trim() || "(untitled session)";
      const saved = s.live === false ? " · saved" : "";
      return {
        label: (s.sessionId === currentId ? "$(check) " : "") + title,
        description: `${s.prompts} prompt${s.prompts === 1 ? "" : "s"} · ${age(new Date(lastUsed(s)), now)}${saved}`,
        sessionId: s.sessionId,
        title,
        session: s,
      };
    });
}

function age(then: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) {
    return "unknown time";
  }
  if (seconds < 60) {
    return "just now";
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  const days = Math.floor(hours / 24);
  if (days < 2) {
    return "yesterday";
  }
  if (days < 7) {
    return `${days} days ago`;
  }
  return then.toISOString().slice(0, 10);
}

export interface ModelPick {
  label: string;
  description?: string;
  detail?: string;
  /** What /model set takes. */
  id: string;
}

/** Quick pick rows for gemini/models' list, in the server's order, the current model marked. */
export function modelPicks(models: readonly ModelInfo[], current: string): ModelPick[] {
  return models.map((m) => {
    const pick: ModelPick = { label: (m.id === current ? "$(check) " : "") + (m.name || m.id), id: m.id };
    if (m.name && m.name !== m.id) {
      pick.description = m.id;
    }
    if (m.description) {
      pick.detail = m.description;
    }
    return pick;
  });
}

/**
 * The chat's model menu at the prompt: gemini/models' list in the server's
 * order, each by its name with what it is for under it (its id where that
 * says more than the name), the one in use ticked.
 */
export function modelMenuItems(models: readonly ModelInfo[], current: string): { id: string; label: string; detail?: string; checked: boolean }[] {
  return models.map((m) => {
    const detail = m.description || (m.name && m.name !== m.id ? m.id : "");
    return { id: m.id, label: m.name || m.id, checked: m.id === current, ...(detail && { detail }) };
  });
}

/**
 * Whether a message of the server's (window/showMessage) only repeats a
 * settings change this extension sent ("Gemini: now using model … and
 * approval mode auto_edit."): the pickers show the change in words, and
 * only the extension sends the server settings, so the echo is dropped
 * rather than shown as a toast in the server's setting names.
 */
export function isSettingsEcho(message: string): boolean {
  return /^Gemini: now using (model|approval mode) /.test(message);
}

/** The model as gemini/models reports it. */
export function modelFromResult(r: ModelsResult): ModelState {
  return { current: r.current, name: r.currentName };
}

/**
 * The model as a new or another session starts with it: where an alias
 * routed the last prompt is that prompt's, so it is forgotten.
 */
export function modelForNewSession(m: ModelState | undefined): ModelState | undefined {
  return m?.answered === undefined ? m : { current: m.current, name: m.name };
}

/** The model after update u: /model set chose another, or an answer came from the model an alias routed to. */
export function modelAfterUpdate(m: ModelState | undefined, u: Update): ModelState | undefined {
  if (u.kind === "model") {
    return { current: u.model, name: u.name };
  }
  // A subagent's model is its own; the status bar shows the main agent's.
  if (u.kind === "usage" && u.model && !u.parentCallId) {
    return { ...m, answered: u.model };
  }
  return m;
}
