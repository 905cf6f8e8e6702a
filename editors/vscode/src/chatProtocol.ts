// Messages between the extension and the chat webview.

import type { ChatEvent, ChatState } from "./chatModel";
import type { SlashCommand } from "./slashCommands";

/** Messages from the webview. */
export type ChatRequest =
  | { type: "ready" }
  | { type: "prompt"; text: string }
  | { type: "cancel" }
  | { type: "newSession" }
  | { type: "sessions" }
  /** The user started a "/": the list may be refreshed if it has aged. */
  | { type: "commands" };

/** Messages to the webview. */
export type ChatMessage =
  | { type: "state"; state: ChatState }
  | { type: "event"; event: ChatEvent }
  /** The commands a prompt may start with, for completion. */
  | { type: "commands"; commands: SlashCommand[] };

export function parseChatRequest(msg: unknown): ChatRequest | undefined {
  if (typeof msg !== "object" || msg === null) {
    return undefined;
  }
  const m = msg as Record<string, unknown>;
  switch (m.type) {
    case "prompt":
      return typeof m.text === "string" && m.text.trim() !== "" ? { type: "prompt", text: m.text } : undefined;
    case "ready":
    case "cancel":
    case "newSession":
    case "sessions":
    case "commands":
      return { type: m.type };
    default:
      return undefined;
  }
}
