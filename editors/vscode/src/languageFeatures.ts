// gemini/languageFeature (docs/protocol.md §9d): the agent's navigate_code
// and rename_symbol asked through VS Code's own language features. This
// module reads the request, asks a LanguageFeatureHost (VS Code's
// vscode.execute*Provider commands, editorLanguageFeatures.ts) and turns
// what VS Code answers into LSP's JSON shapes. Pure, so the tests need no
// VS Code: the VS Code types appear here only as the shapes of their fields.
//
// Positions pass through as they are: VS Code's API counts characters in
// UTF-16, and so does the connection to gemini-ls (see
// editorLanguageFeatures.ts).

import type { Position, Range } from "./protocol";

/** The operations of §9d. */
export const operations = [
  "definition",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "document_symbols",
  "workspace_symbols",
  "incoming_calls",
  "outgoing_calls",
  "rename",
] as const;
export type Operation = (typeof operations)[number];

/** The operations answered with locations by one command each. */
export type LocationOperation = "definition" | "type_definition" | "implementation";

/** JSON-RPC's code for params that are not what the method takes. */
export const invalidParams = -32602;
/** LSP's code for a request that was well formed but failed: the servers' own refusal. */
export const requestFailed = -32803;

/** An answer that is a JSON-RPC error: its code and message. */
export class LanguageFeatureError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

// What VS Code answers with, as much of each type as the answer carries.
// Its URIs are objects whose toString() is the URI; its ranges and
// positions are objects whose toJSON() is not LSP's, so both are copied.

/** vscode.Uri: its text is its toString(). */
export interface EditorUri {
  toString(): string;
}

export interface EditorLocation {
  uri: EditorUri;
  range: Range;
}

export interface EditorLocationLink {
  originSelectionRange?: Range;
  targetUri: EditorUri;
  targetRange: Range;
  targetSelectionRange?: Range;
}

/** vscode.Hover: MarkdownStrings and MarkedStrings (a string of Markdown, or code in a language). */
export interface EditorHover {
  contents: readonly (string | { value: string; language?: string })[];
  range?: Range;
}

/** VS Code's symbol kinds count from 0 (File), LSP's from 1; the tags are the same numbers. */
export interface EditorDocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  tags?: readonly number[];
  range: Range;
  selectionRange: Range;
  children?: readonly EditorDocumentSymbol[];
}

export interface EditorSymbolInformation {
  name: string;
  kind: number;
  tags?: readonly number[];
  containerName?: string;
  location: EditorLocation;
}

export interface EditorCallHierarchyItem {
  name: string;
  kind: number;
  tags?: readonly number[];
  detail?: string;
  uri: EditorUri;
  range: Range;
  selectionRange: Range;
}

export interface EditorIncomingCall {
  from: EditorCallHierarchyItem;
  fromRanges: readonly Range[];
}

export interface EditorOutgoingCall {
  to: EditorCallHierarchyItem;
  fromRanges: readonly Range[];
}

export interface EditorTextEdit {
  range: Range;
  newText: string;
}

/** vscode.WorkspaceEdit: its text edits, file by file. */
export interface EditorWorkspaceEdit {
  entries(): readonly (readonly [EditorUri, readonly EditorTextEdit[]])[];
}

/**
 * What answers the operations: VS Code's commands. `Item` is the call
 * hierarchy item as the host knows it, given back to it to ask for calls.
 * An answer of undefined is no answer (VS Code's commands give undefined
 * as well as []).
 */
export interface LanguageFeatureHost<Item extends EditorCallHierarchyItem = EditorCallHierarchyItem> {
  /** Loads the file, without showing it: a language server knows only the documents the editor has open. */
  open(uri: string): Promise<void>;
  locations(operation: LocationOperation, uri: string, position: Position): Promise<readonly (EditorLocation | EditorLocationLink)[] | undefined>;
  references(uri: string, position: Position): Promise<readonly EditorLocation[] | undefined>;
  hovers(uri: string, position: Position): Promise<readonly EditorHover[] | undefined>;
  documentSymbols(uri: string): Promise<readonly EditorDocumentSymbol[] | undefined>;
  workspaceSymbols(query: string): Promise<readonly EditorSymbolInformation[] | undefined>;
  prepareCallHierarchy(uri: string, position: Position): Promise<readonly Item[] | undefined>;
  incomingCalls(item: Item): Promise<readonly EditorIncomingCall[] | undefined>;
  outgoingCalls(item: Item): Promise<readonly EditorOutgoingCall[] | undefined>;
  rename(uri: string, position: Position, newName: string): Promise<EditorWorkspaceEdit | undefined>;
}

/** A gemini/languageFeature request, checked. */
export interface LanguageFeatureRequest {
  operation: Operation;
  /** The file; "" when workspace_symbols was sent none. */
  uri: string;
  /** The symbol's start; line 0, character 0 for the operations without one. */
  position: Position;
  query: string;
  newName: string;
}

/** Reads gemini/languageFeature's params, or throws an invalid params error saying what is wrong. */
export function parseRequest(params: unknown): LanguageFeatureRequest {
  const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  const operation = p.operation;
  if (typeof operation !== "string" || !(operations as readonly string[]).includes(operation)) {
    throw new LanguageFeatureError(invalidParams, `unknown operation ${JSON.stringify(operation)}: want one of ${operations.join(", ")}`);
  }
  const op = operation as Operation;
  const doc = p.textDocument;
  const uri = typeof doc === "object" && doc !== null ? (doc as { uri?: unknown }).uri : undefined;
  if (op !== "workspace_symbols" && (typeof uri !== "string" || uri === "")) {
    throw new LanguageFeatureError(invalidParams, `${op} needs textDocument.uri`);
  }
  let position: Position = { line: 0, character: 0 };
  if (op !== "document_symbols" && op !== "workspace_symbols") {
    const pos = p.position as { line?: unknown; character?: unknown } | undefined;
    if (typeof pos !== "object" || pos === null || !isIndex(pos.line) || !isIndex(pos.character)) {
      throw new LanguageFeatureError(invalidParams, `${op} needs a position of two non-negative integers, line and character`);
    }
    position = { line: pos.line, character: pos.character };
  }
  const query = typeof p.query === "string" ? p.query : "";
  const newName = typeof p.newName === "string" ? p.newName : "";
  if (op === "rename" && newName === "") {
    throw new LanguageFeatureError(invalidParams, "rename needs newName");
  }
  return { operation: op, uri: typeof uri === "string" ? uri : "", position, query, newName };
}

function isIndex(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 0;
}

/**
 * gemini/languageFeature's answer to `params`, in LSP's shapes (§9d's
 * table), from what `host` answers. The file is loaded first. Throws a
 * LanguageFeatureError: invalid params, or, with the error's own message,
 * anything the host threw (a rename refused).
 */
export async function answerLanguageFeature<Item extends EditorCallHierarchyItem>(params: unknown, host: LanguageFeatureHost<Item>): Promise<unknown> {
  const req = parseRequest(params);
  try {
    return await answer(req, host);
  } catch (err) {
    if (err instanceof LanguageFeatureError) {
      throw err;
    }
    throw new LanguageFeatureError(requestFailed, err instanceof Error ? err.message : String(err));
  }
}

async function answer<Item extends EditorCallHierarchyItem>(req: LanguageFeatureRequest, host: LanguageFeatureHost<Item>): Promise<unknown> {
  const { operation: op, uri, position } = req;
  if (op === "workspace_symbols") {
    // The file only names the root, and may be the root's directory: loaded
    // when it is a file, because some servers (TypeScript's) search only
    // the projects of files open.
    if (uri !== "") {
      await host.open(uri).catch(() => {});
    }
    return ((await host.workspaceSymbols(req.query)) ?? []).map(toSymbolInformation);
  }
  await host.open(uri);
  switch (op) {
    case "definition":
    case "type_definition":
    case "implementation":
      return toLocations((await host.locations(op, uri, position)) ?? []);
    case "references":
      return ((await host.references(uri, position)) ?? []).map(toLocation);
    case "hover":
      return toHover((await host.hovers(uri, position)) ?? []);
    case "document_symbols":
      return ((await host.documentSymbols(uri)) ?? []).map(toDocumentSymbol);
    case "incoming_calls":
    case "outgoing_calls": {
      const items = (await host.prepareCallHierarchy(uri, position)) ?? [];
      if (op === "incoming_calls") {
        const calls = await Promise.all(items.map(async (item) => (await host.incomingCalls(item)) ?? []));
        return calls.flat().map((c) => ({ from: toCallHierarchyItem(c.from), fromRanges: c.fromRanges.map(copyRange) }));
      }
      const calls = await Promise.all(items.map(async (item) => (await host.outgoingCalls(item)) ?? []));
      return calls.flat().map((c) => ({ to: toCallHierarchyItem(c.to), fromRanges: c.fromRanges.map(copyRange) }));
    }
    case "rename": {
      const edit = await host.rename(uri, position, req.newName);
      return edit === undefined ? null : toWorkspaceEdit(edit);
    }
  }
}

// LSP's shapes.

export interface LspLocation {
  uri: string;
  range: Range;
}

export interface LspLocationLink {
  originSelectionRange?: Range;
  targetUri: string;
  targetRange: Range;
  targetSelectionRange: Range;
}

export interface LspHover {
  contents: { kind: "markdown"; value: string };
  range?: Range;
}

export interface LspDocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  tags?: number[];
  range: Range;
  selectionRange: Range;
  children: LspDocumentSymbol[];
}

export interface LspSymbolInformation {
  name: string;
  kind: number;
  tags?: number[];
  containerName?: string;
  location: LspLocation;
}

export interface LspCallHierarchyItem {
  name: string;
  kind: number;
  tags?: number[];
  detail?: string;
  uri: string;
  range: Range;
  selectionRange: Range;
}

export interface LspWorkspaceEdit {
  changes: Record<string, EditorTextEdit[]>;
}

function copyPosition(p: Position): Position {
  return { line: p.line, character: p.character };
}

/** A plain range: VS Code's Range serializes as [start, end]. */
export function copyRange(r: Range): Range {
  return { start: copyPosition(r.start), end: copyPosition(r.end) };
}

export function toLocation(l: EditorLocation): LspLocation {
  return { uri: l.uri.toString(), range: copyRange(l.range) };
}

function isLink(l: EditorLocation | EditorLocationLink): l is EditorLocationLink {
  return "targetUri" in l;
}

/**
 * Definitions as LSP has them: LocationLink[] when every one is a link,
 * else Location[] (an array is one or the other), a link's location then
 * its target's name (targetSelectionRange), or its whole target.
 */
export function toLocations(found: readonly (EditorLocation | EditorLocationLink)[]): LspLocation[] | LspLocationLink[] {
  if (found.length > 0 && found.every(isLink)) {
    return found.map((l) => {
      const link: LspLocationLink = {
        targetUri: l.targetUri.toString(),
        targetRange: copyRange(l.targetRange),
        targetSelectionRange: copyRange(l.targetSelectionRange ?? l.targetRange),
      };
      if (l.originSelectionRange !== undefined) {
        link.originSelectionRange = copyRange(l.originSelectionRange);
      }
      return link;
    });
  }
  return found.map((l) => (isLink(l) ? { uri: l.targetUri.toString(), range: copyRange(l.targetSelectionRange ?? l.targetRange) } : toLocation(l)));
}

/**
 * The hovers of every provider as one LSP Hover of Markdown, each hover's
 * parts a paragraph, the hovers apart by a rule; null when they say
 * nothing. The range is the first one given.
 */
export function toHover(hovers: readonly EditorHover[]): LspHover | null {
  const texts = hovers
    .map((h) =>
      h.contents
        .map((c) => (typeof c === "string" ? c : c.language !== undefined ? fence(c.language, c.value) : c.value))
        .filter((t) => t.trim() !== "")
        .join("\n\n"),
    )
    .filter((t) => t !== "");
  if (texts.length === 0) {
    return null;
  }
  const hover: LspHover = { contents: { kind: "markdown", value: texts.join("\n\n---\n\n") } };
  const range = hovers.find((h) => h.range !== undefined)?.range;
  if (range !== undefined) {
    hover.range = copyRange(range);
  }
  return hover;
}

/** Code as a Markdown fence longer than any run of backticks in it. */
function fence(language: string, code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${language}\n${code}\n${ticks}`;
}

function tagged<T extends { tags?: number[] }>(out: T, tags: readonly number[] | undefined): T {
  if (tags !== undefined && tags.length > 0) {
    out.tags = [...tags];
  }
  return out;
}

export function toDocumentSymbol(s: EditorDocumentSymbol): LspDocumentSymbol {
  const out: LspDocumentSymbol = {
    name: s.name,
    kind: s.kind + 1,
    range: copyRange(s.range),
    selectionRange: copyRange(s.selectionRange),
    children: (s.children ?? []).map(toDocumentSymbol),
  };
  if (s.detail) {
    out.detail = s.detail;
  }
  return tagged(out, s.tags);
}

export function toSymbolInformation(s: EditorSymbolInformation): LspSymbolInformation {
  const out: LspSymbolInformation = { name: s.name, kind: s.kind + 1, location: toLocation(s.location) };
  if (s.containerName) {
    out.containerName = s.containerName;
  }
  return tagged(out, s.tags);
}

export function toCallHierarchyItem(i: EditorCallHierarchyItem): LspCallHierarchyItem {
  const out: LspCallHierarchyItem = {
    name: i.name,
    kind: i.kind + 1,
    uri: i.uri.toString(),
    range: copyRange(i.range),
    selectionRange: copyRange(i.selectionRange),
  };
  if (i.detail) {
    out.detail = i.detail;
  }
  return tagged(out, i.tags);
}

/** A rename's edit as LSP's { changes: { uri: TextEdit[] } }: the text edits, file by file. */
export function toWorkspaceEdit(edit: EditorWorkspaceEdit): LspWorkspaceEdit {
  const changes: Record<string, EditorTextEdit[]> = {};
  for (const [uri, edits] of edit.entries()) {
    const key = uri.toString();
    (changes[key] ??= []).push(...edits.map((e) => ({ range: copyRange(e.range), newText: e.newText })));
  }
  return { changes };
}
