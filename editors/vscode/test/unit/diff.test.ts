import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffLines, splitLines, type Hunk } from "../../src/diff";

/** Rebuilds current from base by taking each hunk's current lines. */
function patch(base: string[], current: string[], hunks: Hunk[]): string[] {
  const out: string[] = [];
  let i = 0;
  for (const h of hunks) {
    out.push(...base.slice(i, h.baseStart), ...current.slice(h.currentStart, h.currentEnd));
    i = h.baseEnd;
  }
  return [...out, ...base.slice(i)];
}

/** Length of the longest common subsequence, by dynamic programming. */
function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  return dp[0][0];
}

/** A deterministic pseudo-random generator, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe("splitLines", () => {
  it("keeps terminators so joining gives the text back", () => {
    assert.deepEqual(splitLines("a\nb\r\nc"), ["a\n", "b\r\n", "c"]);
    assert.deepEqual(splitLines("a\n"), ["a\n"]);
    assert.deepEqual(splitLines(""), []);
    assert.deepEqual(splitLines("\n\n"), ["\n", "\n"]);
  });
});

describe("diffLines", () => {
  it("finds no hunk in equal texts", () => {
    assert.deepEqual(diffLines(["a\n", "b\n"], ["a\n", "b\n"]), []);
  });

  it("separates changes with unchanged lines between them", () => {
    const base = splitLines("one\ntwo\nthree\nfour\nfive\n");
    const current = splitLines("one\nTWO\nthree\nfour\nFIVE\nsix\n");
    assert.deepEqual(diffLines(base, current), [
      { baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 2 },
      { baseStart: 4, baseEnd: 5, currentStart: 4, currentEnd: 6 },
    ]);
  });

  it("reports pure insertions and deletions with an empty side", () => {
    assert.deepEqual(diffLines(splitLines("a\nc\n"), splitLines("a\nb\nc\n")), [
      { baseStart: 1, baseEnd: 1, currentStart: 1, currentEnd: 2 },
    ]);
    assert.deepEqual(diffLines(splitLines("a\nb\nc\n"), splitLines("a\nc\n")), [
      { baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 1 },
    ]);
  });

  it("treats a missing final newline as a change of the last line", () => {
    assert.deepEqual(diffLines(splitLines("a\nb\n"), splitLines("a\nb")), [
      { baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 2 },
    ]);
  });

  it("handles a new file and an emptied one", () => {
    assert.deepEqual(diffLines([], splitLines("x\ny\n")), [{ baseStart: 0, baseEnd: 0, currentStart: 0, currentEnd: 2 }]);
    assert.deepEqual(diffLines(splitLines("x\ny\n"), []), [{ baseStart: 0, baseEnd: 2, currentStart: 0, currentEnd: 0 }]);
  });

  it("is exact and minimal on random texts", () => {
    const random = rng(42);
    const alphabet = ["a\n", "b\n", "c\n", "d\n", "e"];
    for (let round = 0; round < 300; round++) {
      const make = () => Array.from({ length: Math.floor(random() * 14) }, () => alphabet[Math.floor(random() * alphabet.length)]);
      const base = make();
      const current = make();
      const hunks = diffLines(base, current);
      assert.deepEqual(patch(base, current, hunks), current, `round ${round}`);
      const removed = hunks.reduce((n, h) => n + h.baseEnd - h.baseStart, 0);
      const added = hunks.reduce((n, h) => n + h.currentEnd - h.currentStart, 0);
      const kept = lcs(base, current);
      assert.equal(removed, base.length - kept, `round ${round}: removed lines`);
      assert.equal(added, current.length - kept, `round ${round}: added lines`);
      for (const h of hunks) {
        assert.ok(h.baseEnd > h.baseStart || h.currentEnd > h.currentStart, `round ${round}: empty hunk`);
      }
    }
  });

  it("falls back to one exact hunk when the texts share almost nothing", () => {
    const base = Array.from({ length: 3000 }, (_, i) => `old ${i}\n`);
    const current = Array.from({ length: 3000 }, (_, i) => `new ${i}\n`);
    const hunks = diffLines(base, current);
    assert.deepEqual(hunks, [{ baseStart: 0, baseEnd: 3000, currentStart: 0, currentEnd: 3000 }]);
    assert.deepEqual(patch(base, current, hunks), current);
  });

  it("keeps a small edit in a large file small", () => {
    const base = Array.from({ length: 20000 }, (_, i) => `line ${i}\n`);
    const current = [...base];
    current[10000] = "changed\n";
    assert.deepEqual(diffLines(base, current), [{ baseStart: 10000, baseEnd: 10001, currentStart: 10000, currentEnd: 10001 }]);
  });
});
