// Line diffs for the review: which lines of one text became which lines of
// another, grouped into hunks that can be accepted or rejected one by one.

/**
 * Splits text into lines that keep their terminators, so joining them gives
 * the text back exactly and "x" and "x\n" at the end of a file differ.
 */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * A run of changed lines: `base[baseStart, baseEnd)` became
 * `current[currentStart, currentEnd)`. One side may be empty (a pure
 * insertion or deletion), never both.
 */
export interface Hunk {
  baseStart: number;
  baseEnd: number;
  currentStart: number;
  currentEnd: number;
}

/**
 * The largest edit distance the exact algorithm is run for. Beyond it the
 * differing middle of the two texts becomes one hunk, which is still correct,
 * only coarser, and keeps memory bounded on whole-file rewrites.
 */
const maxEditDistance = 1000;

/** The hunks that turn `base` into `current`, in order. */
export function diffLines(base: readonly string[], current: readonly string[]): Hunk[] {
  let prefix = 0;
  while (prefix < base.length && prefix < current.length && base[prefix] === current[prefix]) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < base.length - prefix &&
    suffix < current.length - prefix &&
    base[base.length - 1 - suffix] === current[current.length - 1 - suffix]
  ) {
    suffix++;
  }
  const a = base.slice(prefix, base.length - suffix);
  const b = current.slice(prefix, current.length - suffix);
  if (a.length === 0 && b.length === 0) {
    return [];
  }
  const matches = myersMatches(a, b);
  const hunks: Hunk[] = [];
  if (matches === undefined) {
    return [{ baseStart: prefix, baseEnd: prefix + a.length, currentStart: prefix, currentEnd: prefix + b.length }];
  }
  // Between consecutive matched lines lies a hunk, if anything differs there.
  let i = 0;
  let j = 0;
  for (const [mi, mj] of [...matches, [a.length, b.length] as const]) {
    if (mi > i || mj > j) {
      hunks.push({ baseStart: prefix + i, baseEnd: prefix + mi, currentStart: prefix + j, currentEnd: prefix + mj });
    }
    i = mi + 1;
    j = mj + 1;
  }
  return hunks;
}

/**
 * Myers' O(ND) shortest edit script, returned as the matched index pairs in
 * order, or undefined when the edit distance exceeds maxEditDistance.
 */
function myersMatches(a: readonly string[], b: readonly string[]): Array<readonly [number, number]> | undefined {
  // Compare small integers rather than strings in the inner loop.
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const x = a.map(idOf);
  const y = b.map(idOf);
  const n = x.length;
  const m = y.length;
  const limit = Math.min(n + m, maxEditDistance);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let i: number;
      if (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) {
        i = v[offset + k + 1];
      } else {
        i = v[offset + k - 1] + 1;
      }
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      v[offset + k] = i;
      if (i >= n && j >= m) {
        return backtrack(trace, offset, n, m, d);
      }
    }
  }
  return undefined;
}

function backtrack(
  trace: readonly Int32Array[],
  offset: number,
  n: number,
  m: number,
  depth: number,
): Array<readonly [number, number]> {
  const matches: Array<readonly [number, number]> = [];
  let i = n;
  let j = m;
  for (let d = depth; d > 0; d--) {
    const v = trace[d];
    const k = i - j;
    const prevK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevI = v[offset + prevK];
    const prevJ = prevI - prevK;
    while (i > prevI && j > prevJ) {
      i--;
      j--;
      matches.push([i, j]);
    }
    i = prevI;
    j = prevJ;
  }
  while (i > 0 && j > 0) {
    i--;
    j--;
    matches.push([i, j]);
  }
  return matches.reverse();
}
