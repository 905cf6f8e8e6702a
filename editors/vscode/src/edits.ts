// What a workspace/applyEdit request proposes, worked out as plain text so
// the review can show it and apply exactly what the user accepts.

import type { Position, Range } from "./protocol";

export interface TextEdit {
  range: Range;
  newText: string;
  annotationId?: string;
}

interface TextDocumentEdit {
  textDocument: { uri: string; version?: number | null };
  edits: TextEdit[];
}

interface ResourceOperation {
  kind: "create" | "rename" | "delete";
  uri?: string;
  oldUri?: string;
  annotationId?: string;
}

export interface WorkspaceEdit {
  changes?: Record<string, TextEdit[]>;
  documentChanges?: Array<TextDocumentEdit | ResourceOperation>;
  changeAnnotations?: Record<string, { label: string; needsConfirmation?: boolean; description?: string }>;
}

/** One file's part of a proposed change. */
export interface FileChange {
  uri: string;
  /** The proposal creates the file. */
  create: boolean;
  /** The document version the edits were computed against, when given. */
  version?: number;
  /** Edit lists in the order they apply; each list is relative to the text the previous one produced. */
  edits: TextEdit[][];
}

export interface EditPlan {
  /** Some part carries an annotation with needsConfirmation: the user must review it. */
  needsReview: boolean;
  files: FileChange[];
}

/**
 * Reads a WorkspaceEdit into per-file changes. It throws for what a review
 * cannot show (renames and deletions), so the caller can refuse it clearly.
 */
export function planEdit(edit: WorkspaceEdit): EditPlan {
  const annotations = edit.changeAnnotations ?? {};
  const confirm = (id: string | undefined): boolean =>
    id !== undefined && annotations[id]?.needsConfirmation === true;
  const files = new Map<string, FileChange>();
  const fileFor = (uri: string): FileChange => {
    let file = files.get(uri);
    if (file === undefined) {
      file = { uri, create: false, edits: [] };
      files.set(uri, file);
    }
    return file;
  };
  let needsReview = false;
  for (const change of edit.documentChanges ?? []) {
    if ("kind" in change) {
      needsReview ||= confirm(change.annotationId);
      if (change.kind !== "create" || change.uri === undefined) {
        throw new Error(`a ${change.kind} operation cannot be reviewed here`);
      }
      fileFor(change.uri).create = true;
      continue;
    }
    const file = fileFor(change.textDocument.uri);
    if (typeof change.textDocument.version === "number" && file.edits.length === 0) {
      file.version = change.textDocument.version;
    }
    file.edits.push(change.edits);
    needsReview ||= change.edits.some((e) => confirm(e.annotationId));
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    fileFor(uri).edits.push(edits);
    needsReview ||= edits.some((e) => confirm(e.annotationId));
  }
  return { needsReview, files: [...files.values()] };
}

/** Offsets of the starts of lines, with LSP's line breaks: \n, \r\n and \r. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
      starts.push(i + 1);
    } else if (c === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/**
 * The UTF-16 offset of an LSP position. As LSP asks, a character past the
 * end of its line means the end of the line, and a line past the end of the
 * text means the end of the text.
 */
function offsetAt(text: string, starts: readonly number[], pos: Position): number {
  if (pos.line >= starts.length) {
    return text.length;
  }
  const start = starts[pos.line];
  let end = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  // The line's end is before its line break.
  while (end > start && (text[end - 1] === "\n" || text[end - 1] === "\r")) {
    end--;
  }
  return Math.min(start + Math.max(pos.character, 0), end);
}

/**
 * Applies LSP text edits, all relative to `text`, as LSP defines it: edits
 * must not overlap, and inserts at the same position apply in array order.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const spans = edits
    .map((e, order) => ({
      start: offsetAt(text, starts, e.range.start),
      end: offsetAt(text, starts, e.range.end),
      newText: e.newText,
      order,
    }))
    .sort((a, b) => a.start - b.start || a.order - b.order);
  let out = "";
  let cursor = 0;
  for (const span of spans) {
    if (span.end < span.start) {
      throw new Error(`edit range ends before it starts at offset ${span.start}`);
    }
    if (span.start < cursor) {
      throw new Error(`overlapping edits at offset ${span.start}`);
    }
    out += text.slice(cursor, span.start) + span.newText;
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

/** The text a file change proposes, given the file's text now. */
export function proposedText(original: string, change: FileChange): string {
  return change.edits.reduce((text, edits) => applyTextEdits(text, edits), original);
}

/** The smallest single replacement that turns `from` into `to`, as offsets into `from`. */
export function minimalReplacement(from: string, to: string): { start: number; end: number; text: string } {
  let prefix = 0;
  const max = Math.min(from.length, to.length);
  while (prefix < max && from.charCodeAt(prefix) === to.charCodeAt(prefix)) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < max - prefix &&
    from.charCodeAt(from.length - 1 - suffix) === to.charCodeAt(to.length - 1 - suffix)
  ) {
    suffix++;
  }
  // Never split a surrogate pair or a \r\n between the kept and replaced parts.
  while (prefix > 0 && isPairEnd(from, prefix)) {
    prefix--;
  }
  while (suffix > 0 && isPairEnd(from, from.length - suffix)) {
    suffix--;
  }
  return { start: prefix, end: from.length - suffix, text: to.slice(prefix, to.length - suffix) };
}

/** Whether the character at `i` completes a pair with the one before it. */
function isPairEnd(text: string, i: number): boolean {
  const prev = text.charCodeAt(i - 1);
  const cur = text.charCodeAt(i);
  return (prev === 13 && cur === 10) || (prev >= 0xd800 && prev <= 0xdbff && cur >= 0xdc00 && cur <= 0xdfff);
}
