// How a review ends, worked out without VS Code: whether an Accept changes
// anything, and which file's editor takes the diff's place.

/** A file of a review as Accept finds it. */
export interface AcceptedFile {
  /** The file did not exist: accepting creates it. */
  created: boolean;
  /** What the file holds, which the review never touched. */
  original: string;
  /** What the proposal's document holds now, the user's edits included. */
  final: string;
}

/**
 * Whether accepting these files changes any of them. It does not when the
 * user put every hunk of every existing file back (with Reject Hunk, the
 * diff editor's revert arrow or by typing) and the change creates no file:
 * such an Accept is a reject, so the model is told nothing was applied.
 */
export function acceptChangesAnything(files: readonly AcceptedFile[]): boolean {
  return files.some((f) => f.created || f.final !== f.original);
}

/** A file of a review as its end finds it. */
export interface EndingFile {
  /** The file exists once the review is over (it existed, or was created by the Accept). */
  exists: boolean;
  /** The file's diff is the active tab of the active editor group. */
  diffActive: boolean;
}

/**
 * The file whose own editor takes the focus when the review ends, in place
 * of the diff: the one whose diff the user was looking at, else the first
 * that exists; undefined when none does (a rejected new file).
 */
export function fileToFocus(files: readonly EndingFile[]): number | undefined {
  const active = files.findIndex((f) => f.diffActive && f.exists);
  if (active >= 0) {
    return active;
  }
  const first = files.findIndex((f) => f.exists);
  return first >= 0 ? first : undefined;
}
