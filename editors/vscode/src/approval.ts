// gemini/confirm asked in the chat, as Copilot Chat and Claude Code ask
// before a command runs: the command, where it runs, and what Always
// Allow will let run without asking, with one click to answer. The chat
// shows it as one of its questions (ask.ts), of kind "confirm".

import type { AskAnswer, AskParams } from "./ask";
import { confirmDialog, prefixLabel } from "./present";
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

/** a, b and c, each in backticks. */
function listed(words: readonly string[]): string {
  const quoted = words.map((w) => `\`${w}\``);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

/**
 * What Always Allow (and the narrower choice of the command's prefix,
 * where offered) lets run without asking for the rest of the session, in
 * words: the commands the server says it allows (alwaysCommands; an older
 * server's line split here).
 */
export function alwaysCovers(params: Pick<ConfirmParams, "kind" | "details" | "canAllowAlways" | "alwaysCommands" | "alwaysPrefixes">): string {
  if (!params.canAllowAlways) {
    // The server's title says why it is asked every time.
    return "";
  }
  if (params.kind !== "execute") {
    return "Always Allow lets this tool run without asking for the rest of the session.";
  }
  const roots = params.alwaysCommands?.length ? params.alwaysCommands : commandRoots(params.details ?? "");
  const named = listed(roots) || "this command";
  const covers = `Always Allow runs it and lets ${named} run with any arguments, without asking, for the rest of the session.`;
  const prefixes = params.alwaysPrefixes ?? [];
  if (prefixes.length === 0) {
    return covers;
  }
  return (
    `${prefixLabel(prefixes)} lets only the commands that start with ${listed(prefixes)} run without asking, ` +
    `and never a line that also runs anything else. ${covers}`
  );
}

/** The chat's question for a gemini/confirm: its text says what runs, where, and what Always Allow covers. */
export function confirmAsk(params: ConfirmParams, dir: string | undefined): AskParams {
  const dialog = confirmDialog(params);
  const lines: string[] = [];
  if (params.kind === "execute" && params.details) {
    // Where it runs as the server says (its dir_path, or the workspace root), else as the call's arguments do.
    const where = params.dir || dir;
    lines.push("```sh\n" + params.details + "\n```", `Runs in ${where ? `\`${where}\`` : "the workspace folder"}.`);
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
