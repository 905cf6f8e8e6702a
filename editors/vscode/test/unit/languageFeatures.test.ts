import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  answerLanguageFeature,
  invalidParams,
  LanguageFeatureError,
  parseRequest,
  requestFailed,
  type EditorCallHierarchyItem,
  type EditorWorkspaceEdit,
  type LanguageFeatureHost,
} from "../../src/languageFeatures";
import type { Range } from "../../src/protocol";

// VS Code's own classes serialize unlike LSP: a Uri as its components, a
// Range as [start, end]. The fakes do the same, so the tests see what would
// go over the wire (wire()) if a value were passed on uncopied.
class Uri {
  constructor(private readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): unknown {
    return { $mid: 1, scheme: "file", path: this.text.replace(/^file:\/\//, "") };
  }
}
class Pos {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
class Rng {
  readonly start: Pos;
  readonly end: Pos;
  constructor(l1: number, c1: number, l2: number, c2: number) {
    this.start = new Pos(l1, c1);
    this.end = new Pos(l2, c2);
  }
  toJSON(): unknown {
    return [this.start, this.end];
  }
}
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const lsp = (l1: number, c1: number, l2: number, c2: number): Range => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

const greetTs = "file:///w/greet.ts";
const mainTs = "file:///w/main.ts";
const at = { line: 0, character: 16 };

type Call = [string, ...unknown[]];

/** A host that answers from `answers` and records what it was asked, in order. */
function fakeHost(answers: Partial<LanguageFeatureHost>): { host: LanguageFeatureHost; calls: Call[] } {
  const calls: Call[] = [];
  const record =
    (name: string, answer?: (...args: never[]) => Promise<unknown>) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
      return answer ? (answer as (...a: unknown[]) => Promise<unknown>)(...args) : Promise.resolve(undefined);
    };
  const names: (keyof LanguageFeatureHost)[] = [
    "open",
    "locations",
    "references",
    "hovers",
    "documentSymbols",
    "workspaceSymbols",
    "prepareCallHierarchy",
    "incomingCalls",
    "outgoingCalls",
    "rename",
  ];
  const host = Object.fromEntries(names.map((n) => [n, record(n, answers[n] as never)])) as unknown as LanguageFeatureHost;
  return { host, calls };
}

async function rejected(p: Promise<unknown>): Promise<LanguageFeatureError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof LanguageFeatureError, `not a LanguageFeatureError: ${err}`);
    return err;
  }
  assert.fail("answered, want an error");
}

describe("gemini/languageFeature's params", () => {
  it("reads every operation's fields", () => {
    assert.deepEqual(parseRequest({ operation: "rename", textDocument: { uri: greetTs }, position: at, newName: "salute" }), {
      operation: "rename",
      uri: greetTs,
      position: at,
      query: "",
      newName: "salute",
    });
    // workspace_symbols needs no file, nor the symbol listings a position.
    assert.deepEqual(parseRequest({ operation: "workspace_symbols", query: "gre" }), {
      operation: "workspace_symbols",
      uri: "",
      position: { line: 0, character: 0 },
      query: "gre",
      newName: "",
    });
    assert.equal(parseRequest({ operation: "document_symbols", textDocument: { uri: greetTs } }).uri, greetTs);
  });

  it("refuses params it cannot answer as invalid params, saying why", () => {
    const cases: [unknown, RegExp][] = [
      [null, /unknown operation undefined/],
      [{ operation: "rename_symbol", textDocument: { uri: greetTs }, position: at }, /unknown operation "rename_symbol": want one of definition, /],
      [{ operation: "references", position: at }, /references needs textDocument.uri/],
      [{ operation: "hover", textDocument: { uri: "" }, position: at }, /hover needs textDocument.uri/],
      [{ operation: "definition", textDocument: { uri: greetTs } }, /definition needs a position/],
      [{ operation: "incoming_calls", textDocument: { uri: greetTs }, position: { line: -1, character: 0 } }, /needs a position/],
      [{ operation: "references", textDocument: { uri: greetTs }, position: { line: 1.5, character: 0 } }, /needs a position/],
      [{ operation: "rename", textDocument: { uri: greetTs }, position: at }, /rename needs newName/],
    ];
    for (const [params, message] of cases) {
      assert.throws(
        () => parseRequest(params),
        (err: unknown) => err instanceof LanguageFeatureError && err.code === invalidParams && message.test(err.message),
        JSON.stringify(params),
      );
    }
  });

  it("asks nothing of VS Code for invalid params", async () => {
    const { host, calls } = fakeHost({});
    const err = await rejected(answerLanguageFeature({ operation: "references", textDocument: { uri: greetTs } }, host));
    assert.equal(err.code, invalidParams);
    assert.deepEqual(calls, []);
  });
});

describe("gemini/languageFeature's answers", () => {
  it("loads the file, then asks for its references: LSP Locations", async () => {
    const { host, calls } = fakeHost({
      references: async () => [
        { uri: new Uri(greetTs), range: new Rng(0, 16, 0, 21) },
        { uri: new Uri(mainTs), range: new Rng(2, 12, 2, 17) },
      ],
    });
    const result = await answerLanguageFeature({ operation: "references", textDocument: { uri: greetTs }, position: at }, host);
    assert.deepEqual(wire(result), [
      { uri: greetTs, range: lsp(0, 16, 0, 21) },
      { uri: mainTs, range: lsp(2, 12, 2, 17) },
    ]);
    assert.deepEqual(calls, [
      ["open", greetTs],
      ["references", greetTs, at],
    ]);
  });

  it("answers nothing found with an empty list or null, not an error", async () => {
    const { host } = fakeHost({});
    for (const op of ["definition", "type_definition", "implementation", "references", "document_symbols", "workspace_symbols", "incoming_calls", "outgoing_calls"]) {
      assert.deepEqual(await answerLanguageFeature({ operation: op, textDocument: { uri: greetTs }, position: at }, host), [], op);
    }
    for (const op of ["hover", "rename"]) {
      assert.equal(await answerLanguageFeature({ operation: op, textDocument: { uri: greetTs }, position: at, newName: "x" }, host), null, op);
    }
  });

  it("asks each location operation's own command, and answers links as LocationLinks", async () => {
    const link = { originSelectionRange: new Rng(2, 12, 2, 17), targetUri: new Uri(greetTs), targetRange: new Rng(0, 0, 2, 1), targetSelectionRange: new Rng(0, 16, 0, 21) };
    const { host, calls } = fakeHost({ locations: async () => [link, { ...link, originSelectionRange: undefined }] });
    for (const op of ["definition", "type_definition", "implementation"]) {
      const result = await answerLanguageFeature({ operation: op, textDocument: { uri: mainTs }, position: { line: 2, character: 12 } }, host);
      assert.deepEqual(wire(result), [
        { originSelectionRange: lsp(2, 12, 2, 17), targetUri: greetTs, targetRange: lsp(0, 0, 2, 1), targetSelectionRange: lsp(0, 16, 0, 21) },
        { targetUri: greetTs, targetRange: lsp(0, 0, 2, 1), targetSelectionRange: lsp(0, 16, 0, 21) },
      ]);
    }
    assert.deepEqual(
      calls.filter((c) => c[0] === "locations").map((c) => c[1]),
      ["definition", "type_definition", "implementation"],
    );
  });

  it("answers Locations and links together as Locations, a link by its target's name", async () => {
    const { host } = fakeHost({
      locations: async () => [
        { uri: new Uri(mainTs), range: new Rng(5, 0, 5, 3) },
        { targetUri: new Uri(greetTs), targetRange: new Rng(0, 0, 2, 1), targetSelectionRange: new Rng(0, 16, 0, 21) },
        { targetUri: new Uri(greetTs), targetRange: new Rng(4, 0, 6, 1) },
      ],
    });
    assert.deepEqual(wire(await answerLanguageFeature({ operation: "definition", textDocument: { uri: mainTs }, position: at }, host)), [
      { uri: mainTs, range: lsp(5, 0, 5, 3) },
      { uri: greetTs, range: lsp(0, 16, 0, 21) },
      { uri: greetTs, range: lsp(4, 0, 6, 1) },
    ]);
  });

  it("answers every provider's hover as one Hover of Markdown", async () => {
    const { host } = fakeHost({
      hovers: async () => [
        { contents: [{ language: "typescript", value: "function greet(name: string): string" }, { value: "Says hello." }], range: new Rng(0, 16, 0, 21) },
        { contents: ["", "From a linter.", { language: "md", value: "a ``` fence" }] },
      ],
    });
    assert.deepEqual(wire(await answerLanguageFeature({ operation: "hover", textDocument: { uri: greetTs }, position: at }, host)), {
      contents: {
        kind: "markdown",
        value: "```typescript\nfunction greet(name: string): string\n```\n\nSays hello.\n\n---\n\nFrom a linter.\n\n````md\na ``` fence\n````",
      },
      range: lsp(0, 16, 0, 21),
    });
  });

  it("answers hovers that say nothing with null", async () => {
    const { host } = fakeHost({ hovers: async () => [{ contents: [] }, { contents: ["  ", { value: "" }] }] });
    assert.equal(await answerLanguageFeature({ operation: "hover", textDocument: { uri: greetTs }, position: at }, host), null);
  });

  it("answers document symbols as DocumentSymbols, their kinds counted from 1 as LSP does", async () => {
    const { host, calls } = fakeHost({
      documentSymbols: async () => [
        {
          name: "Greeter",
          detail: "",
          kind: 4, // VS Code's Class
          range: new Rng(0, 0, 9, 1),
          selectionRange: new Rng(0, 13, 0, 20),
          children: [{ name: "greet", detail: "(name: string)", kind: 5, tags: [1], range: new Rng(1, 2, 3, 3), selectionRange: new Rng(1, 2, 1, 7), children: [] }],
        },
      ],
    });
    const result = await answerLanguageFeature({ operation: "document_symbols", textDocument: { uri: greetTs } }, host);
    assert.deepEqual(wire(result), [
      {
        name: "Greeter",
        kind: 5, // LSP's Class
        range: lsp(0, 0, 9, 1),
        selectionRange: lsp(0, 13, 0, 20),
        children: [{ name: "greet", detail: "(name: string)", kind: 6, tags: [1], range: lsp(1, 2, 3, 3), selectionRange: lsp(1, 2, 1, 7), children: [] }],
      },
    ]);
    assert.deepEqual(calls, [
      ["open", greetTs],
      ["documentSymbols", greetTs],
    ]);
  });

  it("answers workspace symbols as SymbolInformation, after loading the root's file when it is one", async () => {
    const symbols = async () => [
      { name: "greet", kind: 11, containerName: "", location: { uri: new Uri(greetTs), range: new Rng(0, 16, 0, 21) } },
      { name: "Greeter", kind: 4, containerName: "greet.ts", tags: [1], location: { uri: new Uri(greetTs), range: new Rng(4, 0, 9, 1) } },
    ];
    const want = [
      { name: "greet", kind: 12, location: { uri: greetTs, range: lsp(0, 16, 0, 21) } },
      { name: "Greeter", kind: 5, containerName: "greet.ts", tags: [1], location: { uri: greetTs, range: lsp(4, 0, 9, 1) } },
    ];
    const { host, calls } = fakeHost({ workspaceSymbols: symbols });
    assert.deepEqual(wire(await answerLanguageFeature({ operation: "workspace_symbols", textDocument: { uri: greetTs }, query: "gree" }, host)), want);
    assert.deepEqual(calls, [
      ["open", greetTs],
      ["workspaceSymbols", "gree"],
    ]);
    // The root itself, a directory, cannot be loaded: the symbols are asked for all the same.
    const dir = fakeHost({ open: () => Promise.reject(new Error("cannot open file:///w")), workspaceSymbols: symbols });
    assert.deepEqual(wire(await answerLanguageFeature({ operation: "workspace_symbols", textDocument: { uri: "file:///w" }, query: "gree" }, dir.host)), want);
    const none = fakeHost({ workspaceSymbols: symbols });
    await answerLanguageFeature({ operation: "workspace_symbols", query: "gree" }, none.host);
    assert.deepEqual(none.calls, [["workspaceSymbols", "gree"]]);
  });

  const item = (name: string, uri: string, line: number): EditorCallHierarchyItem => ({
    name,
    kind: 11, // VS Code's Function
    detail: "",
    uri: new Uri(uri),
    range: new Rng(line, 0, line + 2, 1),
    selectionRange: new Rng(line, 9, line, 9 + name.length),
  });
  const lspItem = (name: string, uri: string, line: number) => ({
    name,
    kind: 12,
    uri,
    range: lsp(line, 0, line + 2, 1),
    selectionRange: lsp(line, 9, line, 9 + name.length),
  });

  it("answers incoming calls of every item the call hierarchy prepared, each asked with the item as VS Code gave it", async () => {
    const items = [item("greet", greetTs, 0), item("greet", greetTs, 10)];
    const { host, calls } = fakeHost({
      prepareCallHierarchy: async () => items,
      incomingCalls: async (i: EditorCallHierarchyItem) =>
        i === items[0] ? [{ from: item("main", mainTs, 4), fromRanges: [new Rng(5, 2, 5, 7), new Rng(6, 2, 6, 7)] }] : [{ from: item("other", mainTs, 20), fromRanges: [new Rng(21, 2, 21, 7)] }],
    });
    const result = await answerLanguageFeature({ operation: "incoming_calls", textDocument: { uri: greetTs }, position: at }, host);
    assert.deepEqual(wire(result), [
      { from: lspItem("main", mainTs, 4), fromRanges: [lsp(5, 2, 5, 7), lsp(6, 2, 6, 7)] },
      { from: lspItem("other", mainTs, 20), fromRanges: [lsp(21, 2, 21, 7)] },
    ]);
    assert.deepEqual(calls.map((c) => c[0]), ["open", "prepareCallHierarchy", "incomingCalls", "incomingCalls"]);
    assert.ok(calls[2][1] === items[0] && calls[3][1] === items[1], "the calls were not asked with the prepared items themselves");
  });

  it("answers outgoing calls the same way", async () => {
    const items = [item("main", mainTs, 4)];
    const { host, calls } = fakeHost({
      prepareCallHierarchy: async () => items,
      outgoingCalls: async () => [{ to: { ...item("greet", greetTs, 0), detail: "greet.ts", tags: [1] }, fromRanges: [new Rng(5, 2, 5, 7)] }],
    });
    const result = await answerLanguageFeature({ operation: "outgoing_calls", textDocument: { uri: mainTs }, position: { line: 4, character: 9 } }, host);
    assert.deepEqual(wire(result), [{ to: { ...lspItem("greet", greetTs, 0), detail: "greet.ts", tags: [1] }, fromRanges: [lsp(5, 2, 5, 7)] }]);
    assert.ok(calls[2][0] === "outgoingCalls" && calls[2][1] === items[0]);
  });

  it("answers a rename with its edit as LSP changes, file by file", async () => {
    const edit: EditorWorkspaceEdit = {
      entries: () => [
        [new Uri(greetTs), [{ range: new Rng(0, 16, 0, 21), newText: "salute" }]],
        [new Uri(mainTs), [{ range: new Rng(0, 9, 0, 14), newText: "salute" }, { range: new Rng(2, 12, 2, 17), newText: "salute" }]],
        [new Uri(greetTs), [{ range: new Rng(7, 0, 7, 5), newText: "salute" }]],
      ],
    };
    const { host, calls } = fakeHost({ rename: async () => edit });
    const result = await answerLanguageFeature({ operation: "rename", textDocument: { uri: greetTs }, position: at, newName: "salute" }, host);
    assert.deepEqual(wire(result), {
      changes: {
        [greetTs]: [
          { range: lsp(0, 16, 0, 21), newText: "salute" },
          { range: lsp(7, 0, 7, 5), newText: "salute" },
        ],
        [mainTs]: [
          { range: lsp(0, 9, 0, 14), newText: "salute" },
          { range: lsp(2, 12, 2, 17), newText: "salute" },
        ],
      },
    });
    assert.deepEqual(calls, [
      ["open", greetTs],
      ["rename", greetTs, at, "salute"],
    ]);
  });

  it("answers a refused rename with the refusal's own message", async () => {
    const { host } = fakeHost({ rename: () => Promise.reject(new Error("You cannot rename this element.")) });
    const err = await rejected(answerLanguageFeature({ operation: "rename", textDocument: { uri: greetTs }, position: at, newName: "x" }, host));
    assert.equal(err.code, requestFailed);
    assert.equal(err.message, "You cannot rename this element.");
  });

  it("answers a file VS Code cannot load with its error, asking nothing more", async () => {
    const { host, calls } = fakeHost({ open: () => Promise.reject(new Error("cannot open file:///w/gone.ts")) });
    const err = await rejected(answerLanguageFeature({ operation: "hover", textDocument: { uri: "file:///w/gone.ts" }, position: at }, host));
    assert.equal(err.code, requestFailed);
    assert.equal(err.message, "cannot open file:///w/gone.ts");
    assert.deepEqual(calls, [["open", "file:///w/gone.ts"]]);
  });
});
