import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerSummary, buildAnswer, describeFiles, parseAskParams, parseRewindPrompts, promptForTurn, questionHeading, rewindSummary, type AskParams } from "../../src/ask";

const database: AskParams = {
  sessionId: "s",
  callId: "call_5",
  kind: "ask_user",
  title: "Database",
  text: "Which database?",
  options: [
    { id: "0", label: "PostgreSQL", description: "Relational." },
    { id: "1", label: "SQLite" },
    { id: "2", label: "Redis" },
  ],
  multiple: false,
  freeText: true,
};

describe("gemini/ask answers", () => {
  it("takes one option, the user's words trimmed, or both", () => {
    assert.deepEqual(buildAnswer(database, ["1"], ""), { answer: { chosen: ["1"], text: "", declined: false } });
    assert.deepEqual(buildAnswer(database, [], "  MySQL "), { answer: { chosen: [], text: "MySQL", declined: false } });
    assert.deepEqual(buildAnswer(database, ["0"], "with a cache"), { answer: { chosen: ["0"], text: "with a cache", declined: false } });
  });

  it("takes several options only where multiple, once each", () => {
    assert.deepEqual(buildAnswer(database, ["0", "2"], ""), { error: "Choose one option." });
    assert.deepEqual(buildAnswer({ ...database, multiple: true }, ["2", "0", "2"], ""), { answer: { chosen: ["2", "0"], text: "", declined: false } });
  });

  it("refuses what the server would refuse: an id not offered, words where none are allowed", () => {
    assert.deepEqual(buildAnswer(database, ["7"], ""), { error: "“7” is not one of the options." });
    assert.deepEqual(buildAnswer({ ...database, freeText: false }, ["0"], "also this"), {
      error: "This question takes one of the options, not your own words.",
    });
  });

  it("refuses an empty answer to a question of one option or words: declining is its own button", () => {
    assert.deepEqual(buildAnswer(database, [], "   "), { error: "Choose an option, or decline." });
    assert.deepEqual(buildAnswer({ ...database, options: [] }, [], ""), { error: "Type an answer, or decline." });
  });

  it("takes nothing ticked of several options as an answer of nothing, not a decline", () => {
    const several = { ...database, multiple: true };
    assert.deepEqual(buildAnswer(several, [], "  "), { answer: { chosen: [], text: "", declined: false } });
    assert.equal(answerSummary(several, { chosen: [], text: "", declined: false }), "Nothing chosen");
  });

  it("summarises the answer by labels and words", () => {
    assert.equal(answerSummary(database, { chosen: ["2", "0"], text: "and a cache", declined: false }), "Redis, PostgreSQL, “and a cache”");
    assert.equal(answerSummary(database, { chosen: [], text: "", declined: true }), "Declined");
  });

  it("reads the server's params, a question without options taking words", () => {
    const params = parseAskParams({ title: "Name", text: "What name?", options: [{ id: "0" }, { id: "1", label: "Ada" }] });
    assert.deepEqual(params?.options, [{ id: "1", label: "Ada" }], "an option without a label is dropped");
    assert.equal(params?.freeText, false);
    assert.equal(params?.multiple, false);
    assert.equal(parseAskParams({ text: "Anything else?" })?.freeText, true);
    assert.equal(parseAskParams(null), undefined);
  });

  it("heads a plan approval as one, and leaves the model's own questions to their title", () => {
    assert.equal(questionHeading({ ...database, kind: "plan_approval", title: "Plan: add a cache" }), "Approve the plan?");
    assert.equal(questionHeading(database), undefined);
  });
});

describe("gemini/rewind picks", () => {
  it("reads the list of prompts, dropping rows without a number", () => {
    const prompts = parseRewindPrompts({ prompts: [{ prompt: 1, text: "Add a greeting", files: ["/p/a.txt", 3] }, { text: "x" }, { prompt: 2 }] });
    assert.deepEqual(prompts, [
      { prompt: 1, text: "Add a greeting", files: ["/p/a.txt"] },
      { prompt: 2, text: "", files: [] },
    ]);
    assert.deepEqual(parseRewindPrompts({}), []);
  });

  it("describes the files each prompt changed", () => {
    const relative = (p: string) => p.replace("/p/", "");
    assert.equal(describeFiles([], relative), "no files changed");
    assert.equal(describeFiles(["/p/a.txt"], relative), "1 file: a.txt");
    assert.equal(describeFiles(["/p/a.txt", "/p/b.go"], relative), "2 files: a.txt, b.go");
  });

  it("finds the server's prompt behind a chat turn by number and text", () => {
    const prompts = [
      { prompt: 1, text: "say two", files: [] },
      { prompt: 2, text: "say three", files: [] },
      { prompt: 3, text: "say two", files: [] },
    ];
    assert.equal(promptForTurn(prompts, 1, "say three")?.prompt, 2);
    assert.equal(promptForTurn(prompts, 0, "say two")?.prompt, 1);
    // The chat is off by one: the last prompt that reads the same.
    assert.equal(promptForTurn(prompts, 1, "say two")?.prompt, 3);
    assert.equal(promptForTurn(prompts, 1, "say four"), undefined);
  });

  it("says what a rewind did, and warns when a file was kept or a note came back", () => {
    const relative = (p: string) => p.replace("/p/", "");
    assert.deepEqual(rewindSummary({ removed: 1, files: [{ path: "/p/a.txt", outcome: "reverted" }, { path: "/p/b.txt", outcome: "unchanged" }] }, relative), {
      text: "Rewound: 1 prompt removed, 1 file reverted.",
      warn: false,
    });
    assert.deepEqual(
      rewindSummary(
        {
          removed: 2,
          files: [
            { path: "/p/a.txt", outcome: "conflict", reason: "changed since" },
            { path: "/p/b.txt", outcome: "not_reverted", reason: "declined" },
          ],
          notes: ["The summary was dropped."],
        },
        relative,
      ),
      {
        text: "Rewound: 2 prompts removed, 0 files reverted. a.txt was kept (a conflict): changed since. b.txt was not reverted: declined. The summary was dropped.",
        warn: true,
      },
    );
    assert.deepEqual(rewindSummary(null, relative), { text: "Rewound: 0 prompts removed, 0 files reverted.", warn: false });
  });
});
