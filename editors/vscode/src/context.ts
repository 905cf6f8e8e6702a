// What a prompt tells the server about where the user is: the file, the
// selection or cursor, and the file's diagnostics (context of gemini/prompt).

import type { Position, PromptContext, PromptDiagnostic, Range } from "./protocol";

/** The parts of an editor a prompt's context is built from, as plain data. */
export interface EditorSnapshot {
  uri: string;
  /** The selection; an empty one is the cursor. */
  selection: Range;
  diagnostics: readonly PromptDiagnostic[];
}

/** A VS Code diagnostic with the fields the context carries, severity counted from 0 as VS Code does. */
export interface EditorDiagnostic {
  range: Range;
  severity: number;
  message: string;
  source?: string;
  code?: string | number | { value: string | number };
}

/** Converts a VS Code diagnostic to LSP's shape (severity 1 error … 4 hint). */
export function toPromptDiagnostic(d: EditorDiagnostic): PromptDiagnostic {
  const out: PromptDiagnostic = { range: d.range, severity: d.severity + 1, message: d.message };
  if (d.source) {
    out.source = d.source;
  }
  const code = typeof d.code === "object" ? d.code.value : d.code;
  if (code !== undefined && code !== "") {
    out.code = code;
  }
  return out;
}

export function isEmpty(r: Range): boolean {
  return r.start.line === r.end.line && r.start.character === r.end.character;
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** Ranges that overlap or touch. */
function intersects(a: Range, b: Range): boolean {
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/**
 * The context of a prompt from this editor: its file and selection (or
 * cursor), with the file's diagnostics, or only those in the selection when
 * there is one. Undefined for documents that are not files on disk, which
 * the server cannot read.
 */
export function promptContext(editor: EditorSnapshot): PromptContext | undefined {
  if (!editor.uri.startsWith("file:")) {
    return undefined;
  }
  const context: PromptContext = { uri: editor.uri, range: editor.selection };
  const diagnostics = isEmpty(editor.selection)
    ? editor.diagnostics
    : editor.diagnostics.filter((d) => intersects(d.range, editor.selection));
  if (diagnostics.length > 0) {
    context.diagnostics = [...diagnostics];
  }
  return context;
}

/**
 * The diagnostics "here": in the selection if there is one, else on the
 * cursor's line, else, when that line has none, all of the file's.
 */
export function diagnosticsHere(editor: EditorSnapshot): PromptDiagnostic[] {
  const sel = editor.selection;
  if (!isEmpty(sel)) {
    return editor.diagnostics.filter((d) => intersects(d.range, sel));
  }
  const line = sel.start.line;
  const onLine = editor.diagnostics.filter((d) => d.range.start.line <= line && d.range.end.line >= line);
  return onLine.length > 0 ? onLine : [...editor.diagnostics];
}

const severityNames = ["", "error", "warning", "info", "hint"];

/** The prompt of "Fix Diagnostics Here": it names each problem, so the model sees them whatever the server passes on. */
export function fixPrompt(diagnostics: readonly PromptDiagnostic[]): string {
  const lines = diagnostics.map((d) => {
    const origin = [d.source, d.code].filter((x) => x !== undefined && x !== "").join(" ");
    const where = `line ${d.range.start.line + 1}`;
    return `- ${where}, ${severityNames[d.severity ?? 0] ?? "problem"}${origin ? ` (${origin})` : ""}: ${d.message}`;
  });
  const noun = diagnostics.length === 1 ? "this problem" : "these problems";
  return `Fix ${noun}:\n${lines.join("\n")}`;
}

export function explainPrompt(selection: Range): string {
  return isEmpty(selection) ? "Explain the code around the cursor." : "Explain the selected code.";
}
