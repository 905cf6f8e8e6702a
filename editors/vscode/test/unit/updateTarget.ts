// A test's UpdateTarget: a real chat with a prompt running, and a record of
// what else the updates asked for.

import { applyEvent, emptyChat, type ChatEvent } from "../../src/chatModel";
import type { ModelState } from "../../src/present";
import type { UpdateTarget } from "../../src/updates";

/** An UpdateTarget over a real chat, recording what else the updates did. */
export function recordingTarget() {
  const chat = emptyChat();
  applyEvent(chat, { type: "prompt", text: "p" });
  const seen = { chat, model: undefined as ModelState | undefined, reloads: 0, events: [] as ChatEvent[] };
  const target: UpdateTarget = {
    model: () => seen.model,
    setModel: (m) => {
      seen.model = m;
    },
    apply: (event) => {
      seen.events.push(event);
      applyEvent(chat, event);
    },
    reloadCommands: () => {
      seen.reloads++;
    },
  };
  return { seen, target };
}
