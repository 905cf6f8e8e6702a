import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionInfo, Update } from "../../src/protocol";
import {
  confirmButtons,
  confirmDialog,
  confirmOutcome,
  modelAfterUpdate,
  modelFromResult,
  modelLabel,
  modelMenuItems,
  modelPicks,
  sessionPicks,
  isSettingsEcho,
  modelForNewSession,
  statusView,
  usageView,
} from "../../src/present";

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

describe("usage", () => {
  const usage = { sessionTokens: 465_144, cachedTokens: 350_000, contextUsed: 262_144, contextSize: 1_048_576 };
  it("says the window's fill, the session's tokens and the cached ones", () => {
    const view = usageView(usage);
    assert.equal(view.text, "25% of context · 465.1k tokens, 350.0k cached");
    assert.equal(view.detail, "This session: 465,144 tokens, 350,000 of them from the cache.\nLast request: 262,144 of the model's 1,048,576-token window.");
    assert.equal(usageView({ ...usage, contextUsed: 900 }).fill, "<1%");
  });
  it("says only the tokens where the window was not counted", () => {
    const view = usageView({ ...usage, contextUsed: 0, contextSize: 0 });
    assert.equal(view.fill, "");
    assert.equal(view.text, "465.1k tokens, 350.0k cached");
    assert.equal(view.detail, "This session: 465,144 tokens, 350,000 of them from the cache.");
  });
  it("puts the fill in the status bar item, the figures in its tooltip", () => {
    const view = statusView({ server: "running", working: false, reviews: 0, model: { current: "auto", name: "Auto" }, usage });
    assert.equal(view.text, "$(sparkle) Gemini · Auto · 25% context");
    assert.match(view.tooltip, /\nThis session: 465,144 tokens, 350,000 of them from the cache\.\nLast request: 262,144 of the model's 1,048,576-token window\.$/);
    assert.equal(statusView({ server: "stopped", working: false, reviews: 0, usage }).text, "$(error) Gemini", "a stopped server shows no stale figures");
  });
});

describe("confirmOutcome", () => {
  const coverable = { kind: "execute", canAllowAlways: true };
  const uncoverable = { kind: "execute", canAllowAlways: false };
  it("maps the buttons, and a dismissed dialog rejects", () => {
    assert.equal(confirmOutcome(coverable, "Allow Once"), "proceed_once");
    assert.equal(confirmOutcome(coverable, "Always Allow"), "proceed_always");
    assert.equal(confirmOutcome(coverable, undefined), "cancel");
  });

  it("offers Always Allow only where the server says it holds", () => {
    assert.deepEqual(confirmButtons(coverable).map((b) => b.label), ["Allow Once", "Always Allow"]);
    assert.deepEqual(confirmButtons(uncoverable).map((b) => b.label), ["Allow Once"]);
    assert.deepEqual(confirmButtons({ kind: "execute" }).map((b) => b.label), ["Allow Once"]);
    assert.deepEqual(
      confirmButtons({ kind: "execute", canAllowAlways: true, alwaysPrefixes: ["go test", "grep"] }).map((b) => [b.label, b.outcome]),
      [
        ["Allow Once", "proceed_once"],
        ["Always Allow go test …, grep …", "proceed_always_prefix"],
        ["Always Allow", "proceed_always"],
      ],
    );
    assert.equal(confirmOutcome(uncoverable, "Always Allow"), "cancel");
  });

  it("asks a rewind's conflict as revert anyway or keep, never always", () => {
    const rewind = { kind: "rewind", canAllowAlways: false };
    assert.deepEqual(
      confirmButtons(rewind).map((b) => b.label),
      ["Revert Anyway", "Keep My Changes"],
    );
    assert.equal(confirmOutcome(rewind, "Revert Anyway"), "proceed_once");
    assert.equal(confirmOutcome(rewind, "Keep My Changes"), "cancel");
    assert.equal(confirmOutcome(rewind, "Always Allow"), "cancel");
    assert.equal(confirmOutcome(rewind, undefined), "cancel");
  });

  it("asks the title, with the details under it, and a question of its own when the title is empty", () => {
    assert.deepEqual(confirmDialog({ kind: "execute", title: "Shell go test ./...", details: "go test ./...", canAllowAlways: false }), {
      message: "Shell go test ./...",
      detail: "go test ./...",
      buttons: [{ label: "Allow Once", outcome: "proceed_once" }],
    });
    assert.equal(confirmDialog({ kind: "info", title: " " }).message, "Allow Gemini to go on?");
    assert.equal(confirmDialog({ kind: "info" }).message, "Allow Gemini to go on?");
  });
});

describe("sessionPicks", () => {
  it("lists sessions most recently used first with prompts and age, marking the current one and the saved ones", () => {
    const now = new Date("2025-06-01T12:00:00Z");
    const sessions = [
      // Made long ago, used a moment ago: it comes first.
      { sessionId: "A", title: "fix the build", createdAt: "2025-05-01T08:00:00Z", updatedAt: "2025-06-01T11:30:00Z", prompts: 1, live: true },
      // From a server older than gemini/listSessions: no updatedAt, no live.
      { sessionId: "B", title: "  ", createdAt: "2025-06-01T11:59:30Z", prompts: 3 } as SessionInfo,
      { sessionId: "C", title: "old", createdAt: "2025-05-20T08:00:00Z", updatedAt: "2025-05-20T08:00:00Z", prompts: 2, live: false },
      { sessionId: "D", title: "last week", createdAt: "2025-05-28T08:00:00Z", updatedAt: "2025-05-29T12:00:00Z", prompts: 4, live: false },
      { sessionId: "E", title: "yesterday's", createdAt: "2025-05-31T08:00:00Z", updatedAt: "2025-05-31T08:00:00+02:00", prompts: 1, live: false },
    ];
    const picks = sessionPicks(sessions, "A", now);
    assert.deepEqual(
      picks.map(({ session, ...row }) => {
        assert.equal(session.sessionId, row.sessionId);
        return row;
      }),
      [
        { label: "(untitled session)", description: "3 prompts · just now", sessionId: "B", title: "(untitled session)" },
        { label: "$(check) fix the build", description: "1 prompt · 30 min ago", sessionId: "A", title: "fix the build" },
        { label: "yesterday's", description: "1 prompt · yesterday · saved", sessionId: "E", title: "yesterday's" },
        { label: "last week", description: "4 prompts · 3 days ago · saved", sessionId: "D", title: "last week" },
        { label: "old", description: "2 prompts · 2025-05-20 · saved", sessionId: "C", title: "old" },
      ],
    );
  });
});

/** A usage update of model, its counts zero. */
function usage(model: string): Update {
  const none = { promptTokens: 0, candidatesTokens: 0, thoughtsTokens: 0, totalTokens: 0, cachedTokens: 0, toolUseTokens: 0 };
  return { sessionId: "S", kind: "usage", model, ...none, promptUsage: none, sessionUsage: none, contextUsed: 0, contextSize: 0 };
}

describe("the model", () => {
  // gemini/models' list, as gemini-ls answers it (docs/protocol.md §5f).
  const models = {
    approvalMode: "default",
    sandbox: "",
    current: "auto",
    currentName: "Auto",
    models: [
      { id: "auto", name: "Auto", description: "Picks the model for each prompt: gemini-3.1-pro-preview for complex tasks, gemini-3.8-flash for the rest" },
      { id: "gemini-3.1-pro-preview-customtools", name: "gemini-3.1-pro-preview" },
      { id: "gemini-2.5-pro", name: "gemini-2.5-pro" },
    ],
  };

  it("shows in the status bar once the server said it, and where an alias was routed", () => {
    const idle = { server: "running" as const, working: false, reviews: 0 };
    let model = modelFromResult(models);
    const view = statusView({ ...idle, model });
    assert.equal(view.text, "$(sparkle) Gemini · Auto");
    assert.match(view.tooltip, /Model: Auto\. Run “Gemini: Choose Model”/);
    model = modelAfterUpdate(model, usage("gemini-3.8-flash"))!;
    assert.equal(
      modelLabel(modelAfterUpdate(model, { ...usage("gemini-2.5-flash-lite"), parentCallId: "call_1", agentName: "codebase_investigator" })),
      "Auto → gemini-3.8-flash",
      "a subagent's model is not the one the status bar shows",
    );
    assert.equal(statusView({ ...idle, model }).text, "$(sparkle) Gemini · Auto → gemini-3.8-flash");
    assert.equal(statusView({ ...idle, reviews: 1, model }).text, "$(diff) Gemini: reviewing (1) · Auto → gemini-3.8-flash");
    model = modelAfterUpdate(model, { sessionId: "S", kind: "model", model: "gemini-3.1-pro-preview-customtools", name: "gemini-3.1-pro-preview" })!;
    assert.equal(modelLabel(model), "gemini-3.1-pro-preview");
    model = modelAfterUpdate(model, usage("gemini-3.1-pro-preview-customtools"))!;
    assert.equal(modelLabel(model), "gemini-3.1-pro-preview", "the model named answered: no arrow");
    assert.equal(statusView({ ...idle, server: "stopped", model }).text, "$(error) Gemini");
    assert.equal(statusView(idle).text, "$(sparkle) Gemini", "no model said yet");
  });

  it("is picked from the server's list, in its order, the current one marked", () => {
    const picks = modelPicks(models.models, "gemini-2.5-pro");
    assert.deepEqual(
      picks.map((p) => [p.label, p.description, p.id]),
      [
        ["Auto", "auto", "auto"],
        ["gemini-3.1-pro-preview", "gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview-customtools"],
        ["$(check) gemini-2.5-pro", undefined, "gemini-2.5-pro"],
      ],
    );
    assert.match(picks[0].detail ?? "", /^Picks the model for each prompt/);
  });

  it("fills the model menu at the prompt from the server's list, the current one ticked, no QuickPick icon in its words", () => {
    const items = modelMenuItems(models.models, "gemini-2.5-pro");
    assert.deepEqual(
      items.map((i) => [i.label, i.id, i.checked]),
      [
        ["Auto", "auto", false],
        ["gemini-3.1-pro-preview", "gemini-3.1-pro-preview-customtools", false],
        ["gemini-2.5-pro", "gemini-2.5-pro", true],
      ],
    );
    assert.match(items[0].detail ?? "", /^Picks the model for each prompt/);
    assert.doesNotMatch(items[0].detail ?? "", /Gemini CLI/);
    assert.ok(items.every((i) => !i.label.includes("$(")));
  });

  it("forgets where auto routed the last prompt when another session starts", () => {
    assert.deepEqual(modelForNewSession({ current: "auto", name: "Auto", answered: "gemini-3.8-flash" }), { current: "auto", name: "Auto" });
    const m = { current: "auto", name: "Auto" };
    assert.equal(modelForNewSession(m), m, "unchanged when nothing was routed");
    assert.equal(modelForNewSession(undefined), undefined);
  });

  it("drops the server's echo of the settings the pickers sent, and nothing else", () => {
    assert.ok(isSettingsEcho("Gemini: now using model gemini-2.5-flash."));
    assert.ok(isSettingsEcho("Gemini: now using model auto and approval mode yolo."));
    assert.ok(isSettingsEcho("Gemini: now using approval mode auto_edit."));
    assert.ok(!isSettingsEcho("Gemini: the changes to tools take effect when gemini-ls restarts."));
  });
});
