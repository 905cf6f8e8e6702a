// Deciding a review hunk by hunk. A file under review has three texts: the
// original (what the file holds, untouched until Accept), the base (the
// original with the hunks accepted so far) and the current text of the
// proposal's document (the proposal, with the user's edits and the hunks
// rejected so far). The hunks still to decide are the differences between
// base and current.

import { diffLines, splitLines, type Hunk } from "./diff";

export interface HunkState {
  readonly original: string;
  readonly base: string;
  /** Some hunk was accepted, so finishing by hunks applies the change. */
  readonly acceptedAny: boolean;
}

export function startHunks(original: string): HunkState {
  return { original, base: original, acceptedAny: false };
}

/** The hunks left to decide when the editor holds `current`. */
export function pendingHunks(state: HunkState, current: string): Hunk[] {
  return diffLines(splitLines(state.base), splitLines(current));
}

/** The lines the hunks still to decide add and remove: the review's +N −M. */
export function pendingStat(state: HunkState, current: string): { added: number; removed: number } {
  const hunks = pendingHunks(state, current);
  return {
    added: hunks.reduce((n, h) => n + h.currentEnd - h.currentStart, 0),
    removed: hunks.reduce((n, h) => n + h.baseEnd - h.baseStart, 0),
  };
}

/** Accepting a hunk moves it into the base, so it is no longer pending. */
export function acceptHunk(state: HunkState, current: string, index: number): HunkState {
  const base = splitLines(state.base);
  const cur = splitLines(current);
  const hunk = hunkAt(diffLines(base, cur), index);
  const next = [...base.slice(0, hunk.baseStart), ...cur.slice(hunk.currentStart, hunk.currentEnd), ...base.slice(hunk.baseEnd)];
  return { ...state, base: next.join(""), acceptedAny: true };
}

/** Rejecting a hunk gives the editor text with that hunk put back as it was in the base. */
export function rejectHunk(state: HunkState, current: string, index: number): string {
  const base = splitLines(state.base);
  const cur = splitLines(current);
  const hunk = hunkAt(diffLines(base, cur), index);
  return [...cur.slice(0, hunk.currentStart), ...base.slice(hunk.baseStart, hunk.baseEnd), ...cur.slice(hunk.currentEnd)].join("");
}

function hunkAt(hunks: readonly Hunk[], index: number): Hunk {
  const hunk = hunks[index];
  if (hunk === undefined) {
    throw new Error(`there is no hunk ${index + 1} (${hunks.length} left to review)`);
  }
  return hunk;
}

/**
 * The hunk the cursor is in, or else the next one below it, or else the
 * last one; undefined when nothing is left.
 */
export function hunkAtLine(hunks: readonly Hunk[], line: number): number | undefined {
  if (hunks.length === 0) {
    return undefined;
  }
  const inside = hunks.findIndex((h) => line >= h.currentStart && line < Math.max(h.currentEnd, h.currentStart + 1));
  if (inside >= 0) {
    return inside;
  }
  const below = hunks.findIndex((h) => h.currentStart > line);
  return below >= 0 ? below : hunks.length - 1;
}

/**
 * How a review ends once the user has decided every hunk of every file:
 * as an accept if any hunk was accepted, else as a reject. Undefined while
 * some hunk is still pending.
 */
export function outcomeByHunks(files: ReadonlyArray<{ pending: number; acceptedAny: boolean }>): "accept" | "reject" | undefined {
  if (files.some((f) => f.pending > 0)) {
    return undefined;
  }
  return files.some((f) => f.acceptedAny) ? "accept" : "reject";
}
