// gemini/confirm asked in the chat, as Copilot Chat and Claude Code ask
// before a command runs: the command, where it runs, and what Always
// Allow will let run without asking, with one click to answer. The chat
// shows it as one of its questions (ask.ts), of kind "confirm".

import type { AskAnswer, AskParams } from "./ask";
import { confirmDialog } from "./present";
import type { ConfirmOutcome, ConfirmParams } from "./protocol";

/** The kind of chat question that stands for a gemini/confirm. */
export const confirmKind = "confirm";

/**
 * The commands a shell command line runs, as Always Allow covers them
 * (docs/protocol.md, gemini/confirm's outcome): the first word of each
 * command of a pipeline or list, variable assignments before it skipped.
 */
export function commandRoots(line: string): string[] {
  const roots: string[] = [];
  for (const part of line.split(/\|\||&&|[|;&\n]/)) {
    const word = part
      .trim()
      .split(/\s+/)
      .find((w) => w !== "" && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (word !== undefined && !roots.includes(word)) {
      roots.push(word);
    }
  }
  return roots;
}

/** What Always Allow lets run without asking for the rest of the session, in words. */
export function alwaysCovers(params: Pick<ConfirmParams, "kind" | "details" | "canAllowAlways">): string {
  if (!params.canAllowAlways) {
    // The server's title says why it is asked every time.
    return "";
  }
  if (params.kind !== "execute") {
    return "Always Allow lets this tool run without asking for the rest of the session.";
  }
  const roots = commandRoots(params.details ?? "").map((r) => `\`${r}\``);
  const named = roots.length <= 1 ? (roots[0] ?? "this command") : `${roots.slice(0, -1).join(", ")} and ${roots.at(-1)}`;
  return `Always Allow runs it and lets ${named} run with any arguments, without asking, for the rest of the session.`;
}

/** The chat's question for a gemini/confirm: its text says what runs, where, and what Always Allow covers. */
export function confirmAsk(params: ConfirmParams, dir: string | undefined): AskParams {
  const dialog = confirmDialog(params);
  const lines: string[] = [];
  if (params.kind === "execute" && params.details) {
    lines.push("```sh\n" + params.details + "\n```", `Runs in ${dir ? `\`${dir}\`` : "the workspace folder"}.`);
  } else if (params.details) {
    lines.push(params.details);
  }
  const covers = alwaysCovers(params);
  if (covers !== "") {
    lines.push(covers);
  }
  const options = dialog.buttons.map((b) => ({ id: b.outcome, label: b.label }));
  if (params.permanent && params.canAllowAlways) {
    options.push({ id: "proceed_always_and_save", label: params.permanent });
  }
  return {
    sessionId: params.sessionId,
    callId: params.callId ?? "",
    kind: confirmKind,
    title: dialog.message,
    text: lines.join("\n\n"),
    options,
    multiple: false,
    freeText: false,
  };
}

/** The answer to gemini/confirm for the chat's answer: the option chosen; declined (Deny) cancels. */
export function confirmFromAnswer(answer: AskAnswer): ConfirmOutcome {
  return answer.declined || answer.chosen.length !== 1 ? "cancel" : answer.chosen[0];
}
