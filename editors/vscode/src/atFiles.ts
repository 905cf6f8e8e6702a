// Completion of the "@path" file references a prompt may name, as data:
// the reference being typed, the workspace files that match it, and what
// accepting one does to the prompt. Pure: the chat webview runs it as the
// user types; the extension host lists the files. The server reads the
// files so named (docs/protocol.md §5.1), by the same rule for where a
// reference starts.

/** How many matching files the list shows at most. */
export const maxFileMatches = 50;

/**
 * The "@path" being typed: from an "@" at the prompt's start or after white
 * space, a bracket or a quote (so user@example.com is none), to the caret,
 * which must end the word. `start` is where the "@" is; `query` the path so
 * far, its "\ " escapes undone.
 */
export function atQuery(prompt: string, caret: number): { start: number; query: string } | undefined {
  const m = /(^|[\s([{<"'`])@((?:\\ |[^\s@\\])*)$/.exec(prompt.slice(0, caret));
  if (m === null || /^[^\s]/.test(prompt.slice(caret))) {
    return undefined;
  }
  return { start: m.index + m[1].length, query: m[2].replace(/\\ /g, " ") };
}

/** A file that matches the query, and where in its path it does (for highlighting). */
export interface FileMatch {
  path: string;
  start: number;
  end: number;
}

/**
 * The files whose path contains the query, case-insensitively: those whose
 * name starts with it first, then those whose path does, then the rest,
 * shorter paths first within each; at most maxFileMatches. An empty query
 * matches every file.
 */
export function matchFiles(files: readonly string[], query: string): FileMatch[] {
  const q = query.toLowerCase();
  const ranked: { match: FileMatch; rank: number }[] = [];
  for (const path of files) {
    const lower = path.toLowerCase();
    const nameAt = lower.lastIndexOf("/") + 1;
    let start = lower.startsWith(q, nameAt) ? nameAt : lower.indexOf(q);
    if (start < 0) {
      continue;
    }
    const rank = start === nameAt ? 0 : start === 0 ? 1 : 2;
    if (rank === 2) {
      start = lower.indexOf(q);
    }
    ranked.push({ match: { path, start, end: start + q.length }, rank });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.match.path.length - b.match.path.length || a.match.path.localeCompare(b.match.path));
  return ranked.slice(0, maxFileMatches).map((r) => r.match);
}

/** A path as a reference writes it: spaces escaped with "\". */
export function referencePath(path: string): string {
  return path.replace(/ /g, "\\ ");
}

/**
 * The prompt after accepting `path` for the reference typed from `start` to
 * `caret`: "@path " in its place, and the caret after the space.
 */
export function acceptFile(prompt: string, start: number, caret: number, path: string): { text: string; caret: number } {
  const head = prompt.slice(0, start) + "@" + referencePath(path) + " ";
  const rest = prompt.slice(caret).replace(/^[ \t]/, "");
  return { text: head + rest, caret: head.length };
}

/**
 * The glob of what the file list leaves out: the patterns VS Code's
 * files.exclude and search.exclude settings turn on, as the Explorer and
 * search leave them out (search.exclude holds node_modules by default).
 */
export function excludeGlob(...settings: Array<Record<string, unknown> | undefined>): string | undefined {
  const patterns = new Set<string>();
  for (const s of settings) {
    for (const [pattern, on] of Object.entries(s ?? {})) {
      if (on === true) {
        patterns.add(pattern);
      }
    }
  }
  return patterns.size === 0 ? undefined : `{${[...patterns].join(",")}}`;
}
