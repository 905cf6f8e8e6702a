// Completion as you type and next edit suggestions, the parts that are
// plain data: the wire shapes of docs/protocol.md section 10a, and what the
// extension decides from them. No vscode import, so the unit tests run them.

import type { Position, PromptDiagnostic, Range } from "./protocol";

export const completionMethods = {
  inlineCompletion: "textDocument/inlineCompletion",
  nextEdit: "gemini/nextEdit",
} as const;

/** The server's command an accepted suggestion runs, counted in /stats. */
export const acceptCompletionCommand = "gemini.acceptCompletion";

/** LSP's InlineCompletionTriggerKind: 1 Invoked (the user asked), 2 Automatic (as they typed). */
export type LspTriggerKind = 1 | 2;

/**
 * VS Code's InlineCompletionTriggerKind (0 Invoke, 1 Automatic) as LSP's
 * (1 Invoked, 2 Automatic): the server answers an Invoked request at once
 * and debounces an Automatic one.
 */
export function lspTriggerKind(vscodeKind: number): LspTriggerKind {
  return vscodeKind === 0 ? 1 : 2;
}

export interface LspCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

export interface InlineCompletionParams {
  textDocument: { uri: string };
  position: Position;
  context: { triggerKind: LspTriggerKind; selectedCompletionInfo?: { range: Range; text: string } };
  /** gemini-ls's own: the editor's diagnostics near the cursor. */
  diagnostics?: PromptDiagnostic[];
}

export interface InlineCompletionItem {
  insertText: string | { kind: string; value: string };
  filterText?: string;
  range?: Range;
  command?: LspCommand;
}

/** The server answers a list; LSP also allows a bare array, or null. */
export function completionItems(result: unknown): InlineCompletionItem[] {
  const items = Array.isArray(result) ? result : (result as { items?: unknown } | null | undefined)?.items;
  if (!Array.isArray(items)) {
    return [];
  }
  return items.filter((i): i is InlineCompletionItem => typeof i === "object" && i !== null && "insertText" in i);
}

/** The text an item inserts; a snippet's text as it stands. */
export function insertText(item: InlineCompletionItem): string {
  return typeof item.insertText === "string" ? item.insertText : item.insertText.value;
}

/** How far from the cursor, in lines, a diagnostic still goes with a completion request (the server uses those within 10). */
export const diagnosticLines = 10;

/** The diagnostics whose range comes within `diagnosticLines` lines of the cursor's line. */
export function diagnosticsNear(diagnostics: readonly PromptDiagnostic[], line: number): PromptDiagnostic[] {
  return diagnostics.filter((d) => d.range.start.line - diagnosticLines <= line && line <= d.range.end.line + diagnosticLines);
}

export interface NextEditParams {
  textDocument: { uri: string; version: number };
  position: Position;
}

export interface NextEditItem {
  range: Range;
  text: string;
  textDocument: { uri: string; version: number };
  command?: LspCommand;
}

/**
 * The edits of a gemini/nextEdit answer that can be shown for the document
 * `uri` at `version`: none unless every edit is for that very version (an
 * answer for a version the user has typed past is never shown).
 */
export function currentEdits(result: unknown, uri: string, version: number): NextEditItem[] {
  const edits = (result as { edits?: unknown } | null | undefined)?.edits;
  if (!Array.isArray(edits) || edits.length === 0) {
    return [];
  }
  const ok = edits.every(
    (e: NextEditItem) =>
      typeof e === "object" && e !== null && typeof e.text === "string" && e.range !== undefined && e.textDocument?.version === version && e.textDocument?.uri === uri,
  );
  return ok ? (edits as NextEditItem[]) : [];
}

/** The longest text shown inline for a predicted edit; the rest is cut with "…". */
export const shownTextMax = 120;

/**
 * The new text of a predicted edit as one line the editor can show after
 * the replaced text: line breaks as ⏎, tabs as spaces, cut when long.
 */
export function inlineText(text: string): string {
  const one = text.replace(/\r?\n/g, " ⏎ ").replace(/\t/g, "  ");
  return one.length > shownTextMax ? `${one.slice(0, shownTextMax - 1)}…` : one;
}

/** A part of a predicted edit as shown: the range it replaces and its new text. */
export interface ShownPart {
  range: Range;
  text: string;
}

/**
 * How a predicted edit is shown. An edit that replaces as many lines as it
 * writes (a rename through several lines) is shown line by line, each
 * line's change narrowed to what differs, so the struck and the new text
 * sit side by side on their line; any other edit is shown whole. `old` is
 * the text the edit's range covers now.
 */
export function shownParts(old: string, edit: { range: Range; text: string }): ShownPart[] {
  const before = old.split(/\r?\n/);
  const after = edit.text.split(/\r?\n/);
  if (before.length === 1 || before.length !== after.length) {
    return [{ range: edit.range, text: edit.text }];
  }
  const parts: ShownPart[] = [];
  before.forEach((b, i) => {
    const a = after[i];
    if (a === b) {
      return;
    }
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) {
      head++;
    }
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
      tail++;
    }
    const line = edit.range.start.line + i;
    const offset = i === 0 ? edit.range.start.character : 0;
    parts.push({
      range: { start: { line, character: offset + head }, end: { line, character: offset + b.length - tail } },
      text: a.slice(head, a.length - tail),
    });
  });
  return parts;
}
