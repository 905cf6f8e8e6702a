// A tool call as the chat shows it: what became of it in words (never a
// tick for a failure: a shell command that exited non-zero failed, though
// the server reports the call itself as ok, as Gemini CLI does), and an
// edit's files with their added and removed lines, from the diff its
// result shows. Pure data: shared by the extension host and the webview.

import type { FileStat, FoundPlace, Item, Turn } from "./chatModel";

type ToolItem = Extract<Item, { kind: "tool" }>;

/** What became of a call: its icon and colour in the chat. */
export type ToolTone = "running" | "waiting" | "done" | "failed" | "refused" | "cancelled";

export interface ToolOutcome {
  tone: ToolTone;
  /** The words beside the call: "done", "failed (exit 127)", "waiting for your review". */
  words: string;
}

/** The tools whose call proposes an edit, reviewed before it lands. */
const editTools = new Set(["replace", "write_file", "edit", "rename_symbol"]);

/** Whether a call edits files (and so may wait for the user's review). */
export function isEdit(name: string): boolean {
  return editTools.has(name);
}

/** A shell command's exit code, from its result's display ("Exit code 127"); undefined when it did not say. */
export function exitCodeOf(display: string): string | undefined {
  return /^Exit code (\S+)/.exec(display)?.[1];
}

/**
 * What became of call: running (or waiting for the user's review while
 * one is open), done (or how an edit the user changed landed), failed (a shell command that exited non-zero too),
 * refused (by the user or the approval mode) or cancelled.
 */
export function toolOutcome(call: Pick<ToolItem, "name" | "status" | "display" | "outcome">, reviewOpen: boolean): ToolOutcome {
  switch (call.status) {
    case "running":
      return reviewOpen && isEdit(call.name) ? { tone: "waiting", words: "waiting for your review" } : { tone: "running", words: "running" };
    case "ok": {
      const code = exitCodeOf(call.display);
      if (code !== undefined && code !== "0") {
        return { tone: "failed", words: code === "(none)" ? "failed (killed)" : `failed (exit ${code})` };
      }
      // An edit the user took in part, or with changes of their own, says so.
      return { tone: "done", words: call.outcome ?? "done" };
    }
    case "error":
      return { tone: "failed", words: "failed" };
    case "rejected":
      return { tone: "refused", words: "refused" };
    case "cancelled":
      return { tone: "cancelled", words: "cancelled" };
    default:
      return { tone: "failed", words: call.status };
  }
}

/** The files a result's fenced diffs change, with their lines added and removed. */
export function diffStat(display: string): FileStat[] {
  const files: FileStat[] = [];
  for (const block of display.matchAll(/```diff\n([^]*?)```/g)) {
    let file: FileStat | undefined;
    for (const line of block[1].split("\n")) {
      if (line.startsWith("+++ ")) {
        file = { path: line.slice(4).replace(/^b\//, ""), added: 0, removed: 0 };
        files.push(file);
      } else if (line.startsWith("--- ")) {
        continue;
      } else if (file !== undefined && line.startsWith("+")) {
        file.added++;
      } else if (file !== undefined && line.startsWith("-")) {
        file.removed++;
      }
    }
  }
  return files;
}

/** The files a turn's edits changed (those that landed), each once, with the lines of all its edits. */
export function turnChanges(turn: Pick<Turn, "items">): FileStat[] {
  const byPath = new Map<string, FileStat>();
  for (const item of turn.items) {
    if (item.kind !== "tool" || item.status !== "ok" || !isEdit(item.name)) {
      continue;
    }
    for (const f of diffStat(item.display)) {
      const seen = byPath.get(f.path);
      byPath.set(f.path, seen === undefined ? { ...f } : { path: f.path, added: seen.added + f.added, removed: seen.removed + f.removed });
    }
  }
  return [...byPath.values()];
}

/** "+6 −1", as Copilot Chat counts an edit's lines. */
export function statText(f: Pick<FileStat, "added" | "removed">): string {
  return `+${f.added} −${f.removed}`;
}

/** The codicon of what a call does (its toolKind), as Copilot Chat marks its tools; "tools" for any other. */
export function kindIcon(toolKind: string | undefined): string {
  const icons: Record<string, string> = {
    read: "file",
    edit: "edit",
    search: "search",
    execute: "terminal",
    fetch: "globe",
    think: "lightbulb",
    agent: "hubot",
    communicate: "comment",
  };
  return (toolKind !== undefined && icons[toolKind]) || "tools";
}

/** The codicon of what became of a call: never a check for a failure. */
export const outcomeIcons: Record<ToolTone, string> = {
  running: "loading",
  waiting: "clock",
  done: "check",
  failed: "error",
  refused: "circle-slash",
  cancelled: "debug-stop",
};

/** The codicon of a to-do's status in the plan. */
export function todoIcon(status: string): string {
  const icons: Record<string, string> = {
    pending: "circle-large-outline",
    in_progress: "loading",
    completed: "pass-filled",
    cancelled: "circle-slash",
    blocked: "warning",
  };
  return icons[status] ?? "circle-large-outline";
}

/** A diff line's part in a coloured diff: added, removed, a hunk's head, a file's head, or context. */
export type DiffLineKind = "add" | "del" | "hunk" | "meta" | "context";

/**
 * What each line of a unified diff is, for its colour: a file's heads
 * (before a hunk, or a "---" and "+++" pair) are meta, so a removed line
 * reading "-- x" inside a hunk is a removal, not a head.
 */
export function diffLineKinds(lines: readonly string[]): DiffLineKind[] {
  let inHunk = false;
  return lines.map((line, i) => {
    if (line.startsWith("@@")) {
      inHunk = true;
      return "hunk";
    }
    // A file's head: "--- a/x" then "+++ b/x" (a next file's, after a hunk), or anything before the first hunk.
    const head = (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) || (line.startsWith("+++ ") && lines[i - 1]?.startsWith("--- "));
    if (!inHunk || head || line.startsWith("diff ")) {
      inHunk = false;
      return "meta";
    }
    return line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "context";
  });
}

/** How many places of a search the chat lists before "and N more". */
export const foundShown = 20;

/**
 * The places of a search the chat lists, the first `limit`, and how many
 * more it found (those the server left out of its list included): a row
 * each, "main.go:12" for a line.
 */
export function foundRows(found: readonly FoundPlace[], total: number, limit = foundShown): { rows: { place: FoundPlace; label: string }[]; more: number } {
  const rows = found.slice(0, limit).map((place) => ({ place, label: place.line === undefined ? (place.dir ? `${place.path}/` : place.path) : `${place.path}:${place.line}` }));
  return { rows, more: Math.max(total, found.length) - rows.length };
}
