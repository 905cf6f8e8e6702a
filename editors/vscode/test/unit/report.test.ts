import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { structuredReport, words } from "../../src/report";

const investigatorReport = "```json\n" + JSON.stringify(
  {
    SummaryOfFindings: 'chat.go defines greet and a main that prints greet("world").',
    ExplorationTrace: ["Listed the project root.", "Read chat.go."],
    // As the server sends it: keys sorted.
    RelevantLocations: [{ FilePath: "chat.go", KeySymbols: ["greet", "main"], Reasoning: "The program." }],
  },
  null,
  2,
) + "\n```";

describe("a subagent's structured report", () => {
  it("reads as its summary, with the rest folded in words", () => {
    const r = structuredReport(investigatorReport);
    assert.ok(r !== undefined);
    assert.equal(r.summary, 'chat.go defines greet and a main that prints greet("world").');
    assert.equal(
      r.details,
      "**Exploration trace**\n\n- Listed the project root.\n- Read chat.go.\n\n" +
        "**Relevant locations**\n\n- `chat.go` — Reasoning: The program. — Key symbols: greet, main",
    );
  });

  it("is left as it is when it is not a json block of an object with a summary", () => {
    for (const display of ["The answer is 42.", "```json\n[1, 2]\n```", '```json\n{"a": 1}\n```', "```json\n{not json\n```", "```diff\n-a\n+b\n```"]) {
      assert.equal(structuredReport(display), undefined, display);
    }
  });

  it("has no details when the summary is all", () => {
    assert.deepEqual(structuredReport('```json\n{"summary": "Done."}\n```'), { summary: "Done.", details: "" });
  });

  it("names fields in words", () => {
    assert.deepEqual(["SummaryOfFindings", "key_symbols", "FilePath", "URLList", "x"].map(words), ["Summary of findings", "Key symbols", "File path", "Url list", "X"]);
  });
});
