// A gemini/update as the extension takes it: into the chat (chatModel's
// updateHandlers, one per kind), and for some kinds beyond the chat: the
// model the status bar shows, the "/" commands the server read again.
// Pure, so the wire schema's examples are run through it in the unit tests.

import type { ChatEvent } from "./chatModel";
import { modelAfterUpdate, type ModelState } from "./present";
import { methods, type Update } from "./protocol";

/** What an update may change outside the chat's state. */
export interface UpdateTarget {
  model(): ModelState | undefined;
  setModel(model: ModelState | undefined): void;
  /** Applies a chat event to the chat and its view. */
  apply(event: ChatEvent): void;
  /** Asks gemini/commands again: the list completion offers is out of date. */
  reloadCommands(): void;
}

export function receiveUpdate(update: Update, target: UpdateTarget): void {
  const model = modelAfterUpdate(target.model(), update);
  if (model !== target.model()) {
    target.setModel(model);
  }
  if (update.kind === "commands") {
    target.reloadCommands();
  }
  target.apply({ type: "update", update });
}

/**
 * The methods gemini-ls sends that the extension handles: server.ts
 * registers one handler for each, and no other (its handler tables are
 * typed by these lists).
 */
export const serverToClient = {
  notifications: [methods.update, methods.agent, "window/showMessage"],
  requests: [methods.confirm, methods.ask, methods.diagnostics, methods.languageFeature, methods.applyEdit],
} as const;
