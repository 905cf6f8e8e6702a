// Messages between the extension and the chat webview.

import type { ChatEvent, ChatState } from "./chatModel";

/** Messages from the webview. */
export type ChatRequest =
  | { type: "ready" }
  | { type: "prompt"; text: string }
  | { type: "cancel" }
  | { type: "newSession" }
  | { type: "sessions" };

/** Messages to the webview. */
export type ChatMessage = { type: "state"; state: ChatState } | { type: "event"; event: ChatEvent };

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
      return { type: m.type };
    default:
      return undefined;
  }
}
