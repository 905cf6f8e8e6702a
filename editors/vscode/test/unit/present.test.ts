import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { confirmOutcome, sessionPicks, statusView } from "../../src/present";

describe("statusView", () => {
  it("is idle, working with a spinner, or reviewing with a count", () => {
    assert.equal(statusView({ server: "running", working: false, reviews: 0 }).text, "$(sparkle) Gemini");
    const working = statusView({ server: "running", working: true, reviews: 0, activity: "Shell go test" });
    assert.equal(working.text, "$(loading~spin) Gemini");
    assert.equal(working.tooltip, "Gemini: Shell go test");
    const reviewing = statusView({ server: "running", working: true, reviews: 2 });
    assert.equal(reviewing.text, "$(diff) Gemini: reviewing (2)");
    assert.equal(reviewing.command, "gemini.review.show");
  });
  it("offers a restart when the server is down", () => {
    const view = statusView({ server: "stopped", working: false, reviews: 0 });
    assert.equal(view.command, "gemini.restartServer");
    assert.equal(view.text, "$(error) Gemini");
  });
});

describe("confirmOutcome", () => {
  it("maps the buttons, and a dismissed dialog rejects", () => {
    assert.equal(confirmOutcome("Allow Once"), "proceed_once");
    assert.equal(confirmOutcome("Always Allow"), "proceed_always");
    assert.equal(confirmOutcome(undefined), "cancel");
  });
});

describe("sessionPicks", () => {
  it("lists sessions newest first with prompts and age, marking the current one", () => {
    const now = new Date("2025-06-01T12:00:00Z");
    const picks = sessionPicks(
      [
        { sessionId: "A", title: "fix the build", createdAt: "2025-06-01T11:30:00Z", prompts: 1 },
        { sessionId: "B", title: "  ", createdAt: "2025-06-01T11:59:30Z", prompts: 3 },
        { sessionId: "C", title: "old", createdAt: "2025-05-20T08:00:00Z", prompts: 2 },
      ],
      "A",
      now,
    );
    assert.deepEqual(picks, [
      { label: "(untitled session)", description: "3 prompts · just now", sessionId: "B", title: "(untitled session)" },
      { label: "$(check) fix the build", description: "1 prompt · 30 min ago", sessionId: "A", title: "fix the build" },
      { label: "old", description: "2 prompts · 2025-05-20", sessionId: "C", title: "old" },
    ]);
  });
});
