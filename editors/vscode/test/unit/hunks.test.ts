import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptHunk, hunkAtLine, outcomeByHunks, pendingHunks, pendingStat, rejectHunk, startHunks } from "../../src/hunks";

const original = "a\nb\nc\nd\ne\n";
const proposed = "a\nB\nc\nd\nE\nf\n";

describe("hunk review", () => {
  it("lists the proposal's hunks against the original", () => {
    const state = startHunks(original);
    assert.deepEqual(pendingHunks(state, proposed), [
      { baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 2 },
      { baseStart: 4, baseEnd: 5, currentStart: 4, currentEnd: 6 },
    ]);
  });

  it("accepting a hunk takes it into the base, so only the others stay pending", () => {
    const state = acceptHunk(startHunks(original), proposed, 1);
    assert.equal(state.base, "a\nb\nc\nd\nE\nf\n");
    assert.equal(state.original, original, "the original stays for a reject");
    assert.equal(state.acceptedAny, true);
    assert.deepEqual(pendingHunks(state, proposed), [{ baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 2 }]);
  });

  it("rejecting a hunk puts the base lines back in the editor text", () => {
    const state = startHunks(original);
    const current = rejectHunk(state, proposed, 0);
    assert.equal(current, "a\nb\nc\nd\nE\nf\n");
    assert.equal(pendingHunks(state, current).length, 1);
  });

  it("keeps the user's own edits in what is accepted", () => {
    const edited = "a\nB, edited by the user\nc\nd\nE\nf\n";
    let state = startHunks(original);
    state = acceptHunk(state, edited, 0);
    const current = rejectHunk(state, edited, 0);
    assert.equal(current, "a\nB, edited by the user\nc\nd\ne\n");
    assert.deepEqual(pendingHunks(state, current), []);
  });

  it("says which hunk does not exist", () => {
    assert.throws(() => acceptHunk(startHunks(original), proposed, 5), /there is no hunk 6 \(2 left to review\)/);
  });
});

describe("hunkAtLine", () => {
  const hunks = [
    { baseStart: 1, baseEnd: 2, currentStart: 1, currentEnd: 3 },
    { baseStart: 5, baseEnd: 6, currentStart: 6, currentEnd: 6 },
  ];
  it("finds the hunk under the cursor, a deletion on its line", () => {
    assert.equal(hunkAtLine(hunks, 2), 0);
    assert.equal(hunkAtLine(hunks, 6), 1);
  });
  it("falls back to the next hunk below, then the last", () => {
    assert.equal(hunkAtLine(hunks, 0), 0);
    assert.equal(hunkAtLine(hunks, 4), 1);
    assert.equal(hunkAtLine(hunks, 40), 1);
    assert.equal(hunkAtLine([], 0), undefined);
  });
});

describe("outcomeByHunks", () => {
  it("waits while any hunk is pending", () => {
    assert.equal(outcomeByHunks([{ pending: 0, acceptedAny: true }, { pending: 1, acceptedAny: false }]), undefined);
  });
  it("accepts when some hunk was accepted, rejects when none was", () => {
    assert.equal(outcomeByHunks([{ pending: 0, acceptedAny: false }, { pending: 0, acceptedAny: true }]), "accept");
    assert.equal(outcomeByHunks([{ pending: 0, acceptedAny: false }]), "reject");
  });
});

describe("pendingStat", () => {
  it("counts the lines of the hunks still to decide, as the review box shows them", () => {
    const state = startHunks(original);
    assert.deepEqual(pendingStat(state, proposed), { added: 3, removed: 2 });
  });
  it("drops an accepted hunk's lines", () => {
    assert.deepEqual(pendingStat(acceptHunk(startHunks(original), proposed, 1), proposed), { added: 1, removed: 1 });
  });
  it("drops a hunk the user put back in the proposal", () => {
    const state = startHunks(original);
    assert.deepEqual(pendingStat(state, rejectHunk(state, proposed, 0)), { added: 2, removed: 1 });
    assert.deepEqual(pendingStat(state, original), { added: 0, removed: 0 });
  });
});
