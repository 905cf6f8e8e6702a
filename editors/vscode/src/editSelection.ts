// The edit of a selection (gemini/editSelection), as data: what range an
// editor's selection asks to rewrite, and how the outcome is told.

import type { EditSelectionParams, EditSelectionResult, Range } from "./protocol";

/**
 * The params for rewriting `selection` of the document `uri`: the selection
 * as it is, or with nothing selected the cursor's whole line, so that "fix
 * this" works on the line and "write …" on an empty line writes there.
 */
export function editSelectionParams(uri: string, selection: Range, instruction: string): EditSelectionParams {
  const { start, end } = selection;
  const range =
    start.line === end.line && start.character === end.character
      ? { start: { line: start.line, character: 0 }, end: { line: start.line + 1, character: 0 } }
      : selection;
  return { textDocument: { uri }, range, instruction: instruction.trim() };
}

/** How the outcome is shown: a warning when the edit could not be made, else information. */
export function editSelectionNotice(result: EditSelectionResult): { text: string; warn: boolean } {
  return { text: result.message, warn: result.outcome === "refused" || result.outcome === "stale" };
}
