// "#" context in the prompt box, as Copilot Chat's #file, #selection and
// #editor: names for what the editor shows, each accepted as the "@path"
// reference gemini-ls reads (docs/protocol.md §5.1), so the prompt says in
// plain text what goes with it (@select.go#L5-7), as "Add Context" does.
// Pure: the extension describes the editor, the webview completes.

import { referencePath } from "./atFiles";

/** One "#name" the prompt may take, and the reference it stands for. */
export interface ContextItem {
  /** What follows "#": file, selection, editors. */
  name: string;
  /** What it is now, in words: "select.go, lines 5-7". */
  description: string;
  /** What accepting it puts in the prompt: "@select.go#L5-7". */
  reference: string;
}

/** The editor as the "#" items need it: paths relative to the workspace. */
export interface EditorState {
  /** The file of the active (or last active) text editor. */
  active?: { path: string; selection?: { startLine: number; endLine: number } };
  /** The files of the open editors (tabs), the active one among them. */
  open: string[];
}

/** The "#" items for the editor as it is: the active file, its selection (lines from 1), the open editors. */
export function contextItems(editor: EditorState): ContextItem[] {
  const items: ContextItem[] = [];
  const active = editor.active;
  if (active !== undefined) {
    items.push({ name: "file", description: `the active file, ${active.path}`, reference: `@${referencePath(active.path)}` });
    const sel = active.selection;
    if (sel !== undefined) {
      const lines = sel.startLine === sel.endLine ? `L${sel.startLine}` : `L${sel.startLine}-${sel.endLine}`;
      const words = sel.startLine === sel.endLine ? `line ${sel.startLine}` : `lines ${sel.startLine}-${sel.endLine}`;
      items.push({ name: "selection", description: `${active.path}, ${words}`, reference: `@${referencePath(active.path)}#${lines}` });
    }
  }
  const open = [...new Set(editor.open)];
  if (open.length > 0) {
    const n = open.length;
    items.push({
      name: "editors",
      description: `the ${n} open file${n === 1 ? "" : "s"}: ${open.join(", ")}`,
      reference: open.map((p) => `@${referencePath(p)}`).join(" "),
    });
  }
  return items;
}

/**
 * The "#name" being typed: from a "#" at the prompt's start or after white
 * space or a bracket, letters up to the caret, which must end the word.
 * "@lines.txt#L3" is none: its "#" follows a reference.
 */
export function hashQuery(prompt: string, caret: number): { start: number; query: string } | undefined {
  const m = /(^|[\s([{<"'`])#([A-Za-z]*)$/.exec(prompt.slice(0, caret));
  if (m === null || /^[^\s]/.test(prompt.slice(caret))) {
    return undefined;
  }
  return { start: m.index + m[1].length, query: m[2] };
}

/** The items whose name starts with the query, case-insensitively, in their order. */
export function matchContext(items: readonly ContextItem[], query: string): ContextItem[] {
  const q = query.toLowerCase();
  return items.filter((i) => i.name.startsWith(q));
}

/** The prompt after accepting `item` for the "#name" typed from `start` to `caret`: its reference and a space, the caret after it. */
export function acceptContext(prompt: string, start: number, caret: number, item: ContextItem): { text: string; caret: number } {
  const head = prompt.slice(0, start) + item.reference + " ";
  const rest = prompt.slice(caret).replace(/^[ \t]/, "");
  return { text: head + rest, caret: head.length };
}

/** The prompt after inserting `text` (a reference) at the caret, set apart by spaces; and the caret after it. */
export function insertReference(prompt: string, caret: number, text: string): { text: string; caret: number } {
  const before = prompt.slice(0, caret);
  const after = prompt.slice(caret);
  const head = before + (before === "" || /\s$/.test(before) ? "" : " ") + text + " ";
  return { text: head + after.replace(/^[ \t]/, ""), caret: head.length };
}
