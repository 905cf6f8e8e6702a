// Completion as you type (ghost text from textDocument/inlineCompletion)
// and next edit suggestions (gemini/nextEdit), through the language client.
//
// vscode-languageclient 9 does not map LSP 3.18's inline completion, so the
// extension registers its own provider and sends the request itself: that
// way it can add gemini-ls's `diagnostics` field. Only stable API is used
// (the Marketplace refuses an extension with enabledApiProposals), so the
// extension does not report what VS Code showed or took in part
// (didShowCompletion, didPartiallyAcceptCompletion: VS Code tells those
// only through the proposed inlineCompletionsAdditions); a suggestion taken
// whole still runs the item's command, which the server counts.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { toPromptDiagnostic } from "./context";
import {
  acceptCompletionCommand,
  completionItems,
  completionMethods,
  currentEdits,
  diagnosticsNear,
  inlineText,
  insertText,
  lspTriggerKind,
  shownParts,
  type InlineCompletionParams,
  type LspCommand,
  type NextEditItem,
  type NextEditParams,
} from "./inline";
import type { Range as LspRange } from "./protocol";

/** Completion and next edit work on files the server can read. */
const selector: vscode.DocumentSelector = { scheme: "file" };

/** How long the user's edits must pause before a next edit is asked. */
const nextEditPauseMs = 600;

/** Set while a next edit is shown: Tab and Escape are then ours. */
const nextEditContext = "gemini.nextEditVisible";

type Log = (line: string) => void;

function toRange(r: LspRange): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

function fromRange(r: vscode.Range): LspRange {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

function asCommand(c: LspCommand | undefined): vscode.Command | undefined {
  return c === undefined ? undefined : { title: c.title, command: c.command, arguments: c.arguments };
}

/**
 * The inline completion provider: one request per call, cancelled (by
 * $/cancelRequest) when VS Code cancels the call.
 */
export class InlineCompletions implements vscode.InlineCompletionItemProvider {
  constructor(
    private readonly client: LanguageClient,
    private readonly log: Log,
  ) {}

  async provideInlineCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    context: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    if (!this.client.isRunning()) {
      return undefined;
    }
    const version = document.version;
    const params: InlineCompletionParams = {
      textDocument: { uri: document.uri.toString() },
      position: { line: position.line, character: position.character },
      context: { triggerKind: lspTriggerKind(context.triggerKind) },
    };
    const selected = context.selectedCompletionInfo;
    if (selected !== undefined) {
      params.context.selectedCompletionInfo = { range: fromRange(selected.range), text: selected.text };
    }
    const diagnostics = diagnosticsNear(vscode.languages.getDiagnostics(document.uri).map(promptDiagnostic), position.line);
    if (diagnostics.length > 0) {
      params.diagnostics = diagnostics;
    }
    let result: unknown;
    try {
      // The token sends $/cancelRequest when VS Code gives up on the call.
      result = await this.client.sendRequest(completionMethods.inlineCompletion, params, token);
    } catch (err) {
      if (!token.isCancellationRequested) {
        this.log(`inline completion: ${err instanceof Error ? err.message : String(err)}`);
      }
      return undefined;
    }
    if (token.isCancellationRequested || document.version !== version) {
      return undefined;
    }
    // An empty suggestion would still count as shown, and take Tab and Escape.
    return completionItems(result).filter((item) => insertText(item) !== "").map((item) => {
      const out = new vscode.InlineCompletionItem(
        insertText(item),
        item.range === undefined ? undefined : toRange(item.range),
        asCommand(item.command),
      );
      if (item.filterText !== undefined) {
        out.filterText = item.filterText;
      }
      return out;
    });
  }

  /** Registers the provider for files on disk. */
  register(): vscode.Disposable {
    return vscode.languages.registerInlineCompletionItemProvider(selector, this);
  }
}

function promptDiagnostic(d: vscode.Diagnostic) {
  return toPromptDiagnostic({
    range: fromRange(d.range),
    severity: d.severity,
    message: d.message,
    source: d.source,
    code: typeof d.code === "object" ? { value: d.code.value } : d.code,
  });
}

interface ShownEdit {
  editor: vscode.TextEditor;
  version: number;
  edits: NextEditItem[];
}

/**
 * Next edit suggestions: asked when the user's edits pause and on "Gemini:
 * Suggest Next Edit", shown as decorations (the replaced text struck
 * through, the new text after it), accepted with Tab and dismissed with
 * Escape. Only an answer for the document's current version is shown, and
 * any change to the document takes it away.
 */
export class NextEdits implements vscode.Disposable {
  private readonly removed = vscode.window.createTextEditorDecorationType({
    textDecoration: "line-through",
    backgroundColor: new vscode.ThemeColor("diffEditor.removedTextBackground"),
  });
  private readonly inserted = vscode.window.createTextEditorDecorationType({
    after: {
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedTextBackground"),
      border: "1px solid",
      borderColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
      margin: "0 0 0 2px",
    },
  });
  private readonly hint = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor("editorCodeLens.foreground"), fontStyle: "italic", margin: "0 0 0 2em" },
  });
  private readonly disposables: vscode.Disposable[];
  private timer?: ReturnType<typeof setTimeout>;
  private asking?: vscode.CancellationTokenSource;
  private shown?: ShownEdit;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly enabled: () => boolean,
    private readonly log: Log,
  ) {
    this.disposables = [
      this.removed,
      this.inserted,
      this.hint,
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.dismiss()),
    ];
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    if (e.contentChanges.length === 0) {
      return;
    }
    if (this.shown?.editor.document === e.document) {
      this.dismiss();
    }
    const editor = vscode.window.activeTextEditor;
    if (editor?.document !== e.document || e.document.uri.scheme !== "file" || !this.enabled()) {
      return;
    }
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.suggest(editor, false);
    }, nextEditPauseMs);
  }

  private cancel(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.asking?.cancel();
    this.asking?.dispose();
    this.asking = undefined;
  }

  /** "Gemini: Suggest Next Edit": asks now, for the active editor. */
  async suggestNow(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Open a file to get a next edit suggestion.");
      return;
    }
    if (!this.enabled()) {
      void vscode.window.showInformationMessage("Gemini's next edit suggestions are off (gemini.inlineCompletion.enabled, gemini.nextEdit.enabled).");
      return;
    }
    this.cancel();
    this.dismiss();
    await this.suggest(editor, true);
  }

  private async suggest(editor: vscode.TextEditor, asked: boolean): Promise<void> {
    const client = this.client();
    if (client === undefined || !client.isRunning()) {
      if (asked) {
        void vscode.window.showErrorMessage("gemini-ls is not running, so it cannot suggest a next edit.");
      }
      return;
    }
    const document = editor.document;
    const version = document.version;
    const uri = document.uri.toString();
    const cursor = editor.selection.active;
    const params: NextEditParams = { textDocument: { uri, version }, position: { line: cursor.line, character: cursor.character } };
    const asking = new vscode.CancellationTokenSource();
    this.asking = asking;
    let result: unknown;
    try {
      result = await client.sendRequest(completionMethods.nextEdit, params, asking.token);
    } catch (err) {
      if (!asking.token.isCancellationRequested) {
        this.log(`next edit: ${err instanceof Error ? err.message : String(err)}`);
      }
      return;
    } finally {
      if (this.asking === asking) {
        this.asking = undefined;
      }
      asking.dispose();
    }
    // Stale: the user typed on, switched editors, or asked again meanwhile.
    if (asking.token.isCancellationRequested || document.version !== version || vscode.window.activeTextEditor !== editor) {
      return;
    }
    const edits = currentEdits(result, uri, version);
    if (edits.length === 0) {
      if (asked) {
        vscode.window.setStatusBarMessage("Gemini: no next edit to suggest here", 3000);
      }
      return;
    }
    await this.show({ editor, version, edits });
  }

  private async show(shown: ShownEdit): Promise<void> {
    this.shown = shown;
    // Escape and Tab are ours once the context is set: set it before the
    // edit can be seen, so a key pressed at once reaches us.
    await vscode.commands.executeCommand("setContext", nextEditContext, true);
    if (this.shown !== shown) {
      return; // dismissed meanwhile
    }
    const removed: vscode.DecorationOptions[] = [];
    const inserted: vscode.DecorationOptions[] = [];
    const document = shown.editor.document;
    for (const part of shown.edits.flatMap((e) => shownParts(document.getText(toRange(e.range)), e))) {
      const range = toRange(part.range);
      if (!range.isEmpty) {
        removed.push({ range, hoverMessage: "Gemini's next edit replaces this" });
      }
      if (part.text !== "") {
        inserted.push({ range: new vscode.Range(range.end, range.end), renderOptions: { after: { contentText: inlineText(part.text) } } });
      }
    }
    const last = toRange(shown.edits[shown.edits.length - 1].range).end.line;
    const lineEnd = shown.editor.document.lineAt(last).range.end;
    shown.editor.setDecorations(this.removed, removed);
    shown.editor.setDecorations(this.inserted, inserted);
    shown.editor.setDecorations(this.hint, [
      { range: new vscode.Range(lineEnd, lineEnd), renderOptions: { after: { contentText: "Gemini: Tab to accept, Escape to dismiss" } } },
    ]);
  }

  /** Escape, a change, another editor: the shown edit goes away. */
  dismiss(): void {
    const shown = this.shown;
    if (shown === undefined) {
      return;
    }
    this.shown = undefined;
    for (const type of [this.removed, this.inserted, this.hint]) {
      shown.editor.setDecorations(type, []);
    }
    void vscode.commands.executeCommand("setContext", nextEditContext, false);
  }

  /**
   * Tab: applies the shown edits if the document is still the version they
   * were made for, puts the cursor after the last, and runs the item's
   * command (gemini.acceptCompletion, counted by the server).
   */
  async accept(): Promise<void> {
    const shown = this.shown;
    this.dismiss();
    if (shown === undefined || shown.editor.document.version !== shown.version) {
      return;
    }
    const ranges = shown.edits.map((e) => toRange(e.range));
    const applied = await shown.editor.edit((b) => shown.edits.forEach((e, i) => b.replace(ranges[i], e.text)));
    if (!applied) {
      return;
    }
    const last = shown.edits[shown.edits.length - 1];
    const lines = last.text.split("\n");
    const start = ranges[ranges.length - 1].start;
    // The edits before the last one on the same line do not move it: the server's edits do not overlap and come in order.
    const end = lines.length === 1 ? start.translate(0, last.text.length) : new vscode.Position(start.line + lines.length - 1, lines[lines.length - 1].length);
    shown.editor.selection = new vscode.Selection(end, end);
    const command = shown.edits.find((e) => e.command !== undefined)?.command;
    if (command !== undefined) {
      await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
    }
  }

  dispose(): void {
    this.cancel();
    this.dismiss();
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

/** gemini.acceptCompletion: the item's command, passed on to the server, which counts the accept. */
export async function acceptCompletion(client: LanguageClient | undefined, args: unknown[]): Promise<void> {
  if (client === undefined || !client.isRunning()) {
    return;
  }
  try {
    await client.sendRequest("workspace/executeCommand", { command: acceptCompletionCommand, arguments: args });
  } catch {
    // Only a count is lost.
  }
}
