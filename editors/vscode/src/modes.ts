// The approval modes as a user reads them: Gemini CLI 0.61's own words
// (its footer says "auto-accept edits", "plan" and "YOLO", and calls the
// default "manual": "shift+tab to manual"), never the setting's values,
// whose "default" and "auto_edit" mean nothing to a reader, and never
// "Ask", which a Copilot user reads as its read-only Ask mode. Pure: the
// extension's picker and the chat webview share it.

import type { ApprovalMode } from "./protocol";

export interface ModeChoice {
  mode: ApprovalMode;
  label: string;
  /** What the mode lets Gemini do, for the picker. */
  detail: string;
}

/** In 0.61's Shift+Tab order (manual, auto-accept edits, plan), then YOLO, which 0.61 keeps apart (Ctrl+Y). */
export const approvalModes: readonly ModeChoice[] = [
  { mode: "default", label: "Manual", detail: "Asks before each edit and each shell command" },
  { mode: "auto_edit", label: "Auto-accept edits", detail: "Applies edits without review; still asks before shell commands" },
  { mode: "plan", label: "Plan", detail: "Read-only: researches and writes a plan for you to approve" },
  { mode: "yolo", label: "YOLO", detail: "Applies edits and runs shell commands without asking" },
];

/** The name of an approval mode; one this extension does not know shows as the server names it. */
export function modeLabel(mode: ApprovalMode): string {
  return approvalModes.find((m) => m.mode === mode)?.label ?? mode;
}

/**
 * The mode Shift+Tab in the chat's prompt switches to, as Gemini CLI 0.61's
 * app.cycleApprovalMode (its docs: reference/keyboard-shortcuts.md and
 * cli/plan-mode.md) and Claude Code's Shift+Tab: manual, auto-accept edits,
 * plan, and round again. Plan is left out of the round while the agent
 * works (0.61: while it processes or shows a confirmation), so a running
 * prompt is never switched to read-only under its feet. YOLO is not in the
 * round, as in 0.61 (Ctrl+Y there, the picker here); from YOLO, Shift+Tab
 * goes back to manual.
 */
export function cycledMode(mode: ApprovalMode, busy: boolean): ApprovalMode {
  const round: ApprovalMode[] = busy ? ["default", "auto_edit"] : ["default", "auto_edit", "plan"];
  const at = round.indexOf(mode);
  return at === -1 ? "default" : round[(at + 1) % round.length];
}
