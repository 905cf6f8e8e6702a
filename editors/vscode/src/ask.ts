// gemini/ask (docs/protocol.md §9b) and gemini/rewind (§5d) as data: what
// the user's choices make of an answer, and the rewind's picks. Pure, so the
// chat webview, the QuickPick fallback and the tests share it.

export interface AskOption {
  id: string;
  label: string;
  description?: string;
}

export interface AskParams {
  sessionId: string;
  callId: string;
  kind: string;
  title: string;
  text: string;
  options: AskOption[];
  multiple: boolean;
  freeText: boolean;
}

export interface AskAnswer {
  chosen: string[];
  text: string;
  declined: boolean;
}

export const declined: AskAnswer = { chosen: [], text: "", declined: true };

/** The server's params, with what an older or sloppier server leaves out filled in. */
export function parseAskParams(raw: unknown): AskParams | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const p = raw as Record<string, unknown>;
  const options = Array.isArray(p.options)
    ? p.options.filter((o): o is AskOption => typeof o === "object" && o !== null && typeof o.id === "string" && typeof o.label === "string")
    : [];
  return {
    sessionId: typeof p.sessionId === "string" ? p.sessionId : "",
    callId: typeof p.callId === "string" ? p.callId : "",
    kind: typeof p.kind === "string" ? p.kind : "ask_user",
    title: typeof p.title === "string" ? p.title : "",
    text: typeof p.text === "string" ? p.text : "",
    options,
    multiple: p.multiple === true,
    freeText: p.freeText === true || options.length === 0,
  };
}

/** The line above the server's title that says what kind of question this is, if it needs one. */
export function questionHeading(params: AskParams): string | undefined {
  return params.kind === "plan_approval" ? "Approve the plan?" : undefined;
}

/**
 * The answer to `params` of the options `chosen` (ids) and the user's own
 * `text`, or why it is not one the question allows: an id not offered,
 * several where one is allowed, words where none are, or nothing at all.
 * Nothing at all is an answer to a question of several options, as
 * Gemini CLI's "Done" with none ticked is: the model is told the user
 * answered nothing, which is not declining.
 */
export function buildAnswer(params: AskParams, chosen: readonly string[], text: string): { answer: AskAnswer } | { error: string } {
  const offered = new Set(params.options.map((o) => o.id));
  const ids = [...new Set(chosen)];
  const stray = ids.find((id) => !offered.has(id));
  if (stray !== undefined) {
    return { error: `“${stray}” is not one of the options.` };
  }
  if (ids.length > 1 && !params.multiple) {
    return { error: "Choose one option." };
  }
  const words = text.trim();
  if (words !== "" && !params.freeText) {
    return { error: "This question takes one of the options, not your own words." };
  }
  if (ids.length === 0 && words === "" && !params.multiple) {
    return { error: params.options.length === 0 ? "Type an answer, or decline." : "Choose an option, or decline." };
  }
  return { answer: { chosen: ids, text: words, declined: false } };
}

/** One row of the rewind QuickPick: a prompt of the session and the files changed during it. */
export interface RewindPrompt {
  prompt: number;
  text: string;
  files: string[];
}

export type RewindMode = "conversation" | "code" | "both";

export const rewindModes: { mode: RewindMode; label: string; detail: string }[] = [
  { mode: "both", label: "Conversation and code", detail: "Forget the prompts from here on and revert the files they changed" },
  { mode: "conversation", label: "Conversation only", detail: "Forget the prompts from here on; keep the files as they are" },
  { mode: "code", label: "Code only", detail: "Revert the files changed from here on; keep the conversation" },
];

/** "2 files: a.txt, b.go" or "no files changed", for the rewind pick's detail line. */
export function describeFiles(files: readonly string[], relative: (path: string) => string): string {
  if (files.length === 0) {
    return "no files changed";
  }
  const names = files.map(relative).join(", ");
  return `${files.length} file${files.length === 1 ? "" : "s"}: ${names}`;
}

export function parseRewindPrompts(raw: unknown): RewindPrompt[] {
  const prompts = (raw as { prompts?: unknown } | null)?.prompts;
  if (!Array.isArray(prompts)) {
    return [];
  }
  return prompts
    .filter((p): p is Record<string, unknown> => typeof p === "object" && p !== null && typeof p.prompt === "number")
    .map((p) => ({
      prompt: p.prompt as number,
      text: typeof p.text === "string" ? p.text : "",
      files: Array.isArray(p.files) ? p.files.filter((f): f is string => typeof f === "string") : [],
    }));
}

/** The answer as the chat shows it once given: the labels chosen, then the user's words. */
export function answerSummary(params: AskParams, answer: AskAnswer): string {
  if (answer.declined) {
    return "Declined";
  }
  if (answer.chosen.length === 0 && answer.text === "") {
    return "Nothing chosen";
  }
  const labels = answer.chosen.map((id) => params.options.find((o) => o.id === id)?.label ?? id);
  return [...labels, ...(answer.text === "" ? [] : [`“${answer.text}”`])].join(", ");
}

/**
 * The server's prompt behind the chat's turn `turn` (from 0) that reads
 * `text`: prompt turn+1 when it reads the same, else the last that does.
 * The chat and the transcript may disagree (a session resumed from an
 * older server); then nothing, and the user picks.
 */
export function promptForTurn(prompts: readonly RewindPrompt[], turn: number, text: string): RewindPrompt | undefined {
  const same = prompts.find((p) => p.prompt === turn + 1);
  if (same !== undefined && same.text === text) {
    return same;
  }
  return prompts.findLast((p) => p.text === text);
}

export interface RewindResult {
  removed?: number;
  files?: { path: string; outcome: string; reason?: string }[];
  notes?: string[];
  message?: string;
}

/**
 * What to tell the user after a rewind: one line, and whether it is a
 * warning: a file kept (a conflict, or not journaled) or a note on what
 * could not be rewound as asked must not pass as success.
 */
export function rewindSummary(result: RewindResult | null | undefined, relative: (path: string) => string): { text: string; warn: boolean } {
  const files = result?.files ?? [];
  const kept = files.filter((f) => f.outcome === "conflict" || f.outcome === "not_reverted");
  const reverted = files.filter((f) => f.outcome === "reverted").length;
  const parts = [`Rewound: ${result?.removed ?? 0} prompt${result?.removed === 1 ? "" : "s"} removed, ${reverted} file${reverted === 1 ? "" : "s"} reverted.`];
  for (const f of kept) {
    const what = f.outcome === "conflict" ? "was kept (a conflict)" : "was not reverted";
    parts.push(`${relative(f.path)} ${what}${f.reason ? `: ${f.reason}` : ""}.`);
  }
  parts.push(...(result?.notes ?? []));
  return { text: parts.join(" "), warn: kept.length > 0 || (result?.notes ?? []).length > 0 };
}
