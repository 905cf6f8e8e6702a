// Messages between the extension and the chat webview.

import type { AskAnswer } from "./ask";
import { chatCommands, type ChatCommand } from "./chatCommands";
import type { ChatEvent, ChatState } from "./chatModel";
import type { ContextItem } from "./contextItems";
import { approvalModes } from "./modes";
import type { ApprovalMode } from "./protocol";
import type { SlashCommand } from "./slashCommands";

/** Messages from the webview. */
export type ChatRequest =
  | { type: "ready" }
  | { type: "prompt"; text: string }
  | { type: "cancel" }
  /** The user started a "/": the list may be refreshed if it has aged. */
  | { type: "commands" }
  /** The user started an "@": the workspace's files, for completion. */
  | { type: "files" }
  /** The user started a "#": what the editor shows, for completion. */
  | { type: "context" }
  /** The user answered question `id` (gemini/ask's request id). */
  | { type: "answer"; id: number; answer: AskAnswer }
  /** Rewind to before the chat's turn `turn` (from 0). */
  | { type: "rewind"; turn: number }
  /** The model picker opens: the extension sends the server's models ("models"). */
  | { type: "pickModel" }
  /** A mode chosen in the mode picker, or by Shift+Tab in the prompt. */
  | { type: "setMode"; mode: ApprovalMode }
  /** A model chosen in the model picker (one of the "models" sent). */
  | { type: "setModel"; id: string }
  /** Add Context: the extension shows a QuickPick. */
  | { type: "addContext" }
  /** A code block's Copy and Insert at Cursor. */
  | { type: "copy"; text: string }
  | { type: "insertCode"; text: string }
  /** One of the chat's buttons that run a command. */
  | { type: "run"; command: ChatCommand }
  /** A tool call's file, opened at its line (1-based; absent: the top); a directory is shown in the Explorer. */
  | { type: "open"; path: string; line?: number; dir?: boolean }
  /** Run in the Background with the prompt box's text (which may be empty): the extension asks for the task with it. */
  | { type: "background"; text: string }
  /** A shell call's output in a terminal (the call's by id: the extension's state has its output). */
  | { type: "openTerminal"; callId: string };

/** Messages to the webview. */
export type ChatMessage =
  | { type: "state"; state: ChatState }
  | { type: "event"; event: ChatEvent }
  /** The commands a prompt may start with, for completion. */
  | { type: "commands"; commands: SlashCommand[] }
  /** The workspace's files, relative to its folder, for "@" completion. */
  | { type: "files"; files: string[] }
  /** The "#" items for the editor as it is now. */
  | { type: "context"; items: ContextItem[] }
  /** The model as the model picker shows it: "Auto", "gemini-2.5-flash"; "" before the server said. */
  | { type: "model"; label: string }
  /** The prompt box's text went to a background agent: the box is emptied, if it still holds that text. */
  | { type: "clearPrompt"; text: string }
  /** A reference Add Context chose, for the prompt box at its caret. */
  | { type: "insertPrompt"; text: string }
  /** Whether VS Code trusts the workspace; not: Restricted Mode, which the chat says. */
  | { type: "trust"; trusted: boolean }
  /** The models the server offers, for the model picker's menu at the prompt. */
  | { type: "models"; models: PickerItem[] };

/** One row of a picker's menu at the prompt. */
export interface PickerItem {
  id: string;
  label: string;
  /** A second line, quieter: what the mode lets Gemini do, what the model is for. */
  detail?: string;
  /** The one in use, ticked. */
  checked: boolean;
}

export function parseChatRequest(msg: unknown): ChatRequest | undefined {
  if (typeof msg !== "object" || msg === null) {
    return undefined;
  }
  const m = msg as Record<string, unknown>;
  switch (m.type) {
    case "prompt":
      return typeof m.text === "string" && m.text.trim() !== "" ? { type: "prompt", text: m.text } : undefined;
    case "answer": {
      const a = m.answer as Record<string, unknown> | null;
      if (typeof m.id !== "number" || typeof a !== "object" || a === null) {
        return undefined;
      }
      const chosen = Array.isArray(a.chosen) ? a.chosen.filter((c): c is string => typeof c === "string") : [];
      return { type: "answer", id: m.id, answer: { chosen, text: typeof a.text === "string" ? a.text : "", declined: a.declined === true } };
    }
    case "rewind":
      return typeof m.turn === "number" && Number.isInteger(m.turn) && m.turn >= 0 ? { type: "rewind", turn: m.turn } : undefined;
    case "copy":
    case "insertCode":
      return typeof m.text === "string" ? { type: m.type, text: m.text } : undefined;
    case "run":
      return chatCommands.some((c) => c === m.command) ? { type: "run", command: m.command as ChatCommand } : undefined;
    case "open":
      return typeof m.path === "string" && m.path !== "" && (m.line === undefined || (Number.isInteger(m.line) && (m.line as number) >= 1))
        ? { type: "open", path: m.path, line: m.line as number | undefined, ...(m.dir === true && { dir: true }) }
        : undefined;
    case "background":
      return typeof m.text === "string" ? { type: "background", text: m.text } : undefined;
    case "openTerminal":
      return typeof m.callId === "string" && m.callId !== "" ? { type: "openTerminal", callId: m.callId } : undefined;
    case "setMode":
      return approvalModes.some((c) => c.mode === m.mode) ? { type: "setMode", mode: m.mode as ApprovalMode } : undefined;
    case "setModel":
      return typeof m.id === "string" && m.id.trim() !== "" ? { type: "setModel", id: m.id } : undefined;
    case "ready":
    case "cancel":
    case "commands":
    case "files":
    case "context":
    case "pickModel":
    case "addContext":
      return { type: m.type };
    default:
      return undefined;
  }
}
