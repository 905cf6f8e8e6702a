// The commands that send the editor's code to Gemini (Ask, Explain, Fix,
// Ask About Selection, Edit Selection, Add Context), and the editor as the
// plain data they send.

import * as path from "node:path";
import * as vscode from "vscode";
import { referencePath } from "./atFiles";
import {
  diagnosticsHere,
  explainPrompt,
  fixPrompt,
  isEmpty,
  promptContext,
  toPromptDiagnostic,
  type EditorDiagnostic,
  type EditorSnapshot,
} from "./context";
import { contextItems, type EditorState } from "./contextItems";
import { editSelectionNotice, editSelectionParams } from "./editSelection";
import type { Gemini } from "./gemini";
import { methods, type EditSelectionResult, type PromptContext } from "./protocol";
import { isMethodNotFound } from "./sessions";
import { errorMessage } from "./settings";

export async function ask(g: Gemini, arg: unknown): Promise<void> {
  const text =
    typeof arg === "string" && arg.trim() !== ""
      ? arg
      : await vscode.window.showInputBox({ title: "Gemini: Ask", prompt: "Ask Gemini (the current file, selection and diagnostics go with it)" });
  if (text !== undefined && text.trim() !== "") {
    await g.prompt(text, editorContext());
  }
}

export async function explain(g: Gemini): Promise<void> {
  const snapshot = editorSnapshot();
  if (snapshot === undefined) {
    void vscode.window.showInformationMessage("Open a file and select the code to explain.");
    return;
  }
  await g.prompt(explainPrompt(snapshot.selection), promptContext(snapshot));
}

export async function fixDiagnostics(g: Gemini): Promise<void> {
  const snapshot = editorSnapshot();
  if (snapshot === undefined) {
    void vscode.window.showInformationMessage("Open a file with problems to fix.");
    return;
  }
  const diagnostics = diagnosticsHere(snapshot);
  if (diagnostics.length === 0) {
    void vscode.window.showInformationMessage("There are no diagnostics here to fix.");
    return;
  }
  // Only the diagnostics "here" go with the prompt.
  await g.prompt(fixPrompt(diagnostics), promptContext({ ...snapshot, diagnostics }));
}

export async function askSelection(g: Gemini, arg: unknown): Promise<void> {
  const snapshot = editorSnapshot();
  if (snapshot === undefined || isEmpty(snapshot.selection)) {
    void vscode.window.showInformationMessage("Select some code first, then ask about it.");
    return;
  }
  const question =
    typeof arg === "string" && arg.trim() !== ""
      ? arg
      : await vscode.window.showInputBox({ title: "Gemini: Ask About Selection", prompt: "What do you want to know about the selected code?" });
  if (question !== undefined && question.trim() !== "") {
    await g.prompt(question, promptContext(snapshot));
  }
}

/**
 * Rewrites the selection (the cursor's line when nothing is selected) as
 * the user instructs, without the chat (gemini/editSelection): one model
 * call, whose rewrite opens in the review like any edit, and a message
 * says what became of it.
 */
export async function editSelection(g: Gemini, arg: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showInformationMessage("Open a file and select the code for Gemini to edit.");
    return;
  }
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("gemini-ls is not running. Run “Gemini: Restart Server”; “Gemini: Show Log” says what stopped it.");
    return;
  }
  const instruction =
    typeof arg === "string" && arg.trim() !== ""
      ? arg
      : await vscode.window.showInputBox({
          title: "Gemini: Edit Selection",
          prompt: editor.selection.isEmpty ? "What should Gemini write or change on this line?" : "What should Gemini do with the selected code?",
          placeHolder: "Add error handling, rename x to total, …",
        });
  if (instruction === undefined || instruction.trim() === "") {
    return;
  }
  const { start, end } = editor.selection;
  const params = editSelectionParams(
    editor.document.uri.toString(),
    { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    instruction,
  );
  try {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Gemini: editing the selection…" }, () =>
      client.sendRequest<EditSelectionResult>(methods.editSelection, params),
    );
    const notice = editSelectionNotice(result);
    void (notice.warn ? vscode.window.showWarningMessage(notice.text) : vscode.window.showInformationMessage(notice.text));
  } catch (err) {
    void vscode.window.showErrorMessage(
      isMethodNotFound(err) ? "This gemini-ls is too old to edit a selection. Update gemini-ls." : errorMessage(err),
    );
  }
}

/**
 * Add Context: the active file, its selection, the open editors, or any
 * file of the workspace, put into the prompt as the "@" reference the
 * server reads. From the Explorer or an editor's title, the file clicked.
 */
export async function addContext(g: Gemini, target: unknown): Promise<void> {
  if (target instanceof vscode.Uri) {
    await g.openChat();
    g.view.insertIntoPrompt(`@${referencePath(vscode.workspace.asRelativePath(target, false))}`);
    return;
  }
  const files = "files";
  const picks: Array<vscode.QuickPickItem & { reference: string }> = contextItems(editorState()).map((item) => ({
    label: `#${item.name}`,
    description: item.reference,
    detail: item.description,
    reference: item.reference,
  }));
  picks.push({ label: "Files…", detail: "Any file of the workspace", reference: files });
  const choice = await vscode.window.showQuickPick(picks, { title: "Gemini: Add Context", placeHolder: "What should go with the prompt?" });
  let reference = choice?.reference;
  if (reference === files) {
    const file = await vscode.window.showQuickPick(await g.completion.files(), { title: "Gemini: Add Context", placeHolder: "A file of the workspace" });
    reference = file === undefined ? undefined : `@${referencePath(file)}`;
  }
  if (reference !== undefined) {
    await g.openChat();
    g.view.insertIntoPrompt(reference);
  }
}

/** Shows the chat, or the welcome view in its place while the chat cannot work. */


/** The active editor as plain data, or undefined when no text editor is active. */
export function editorSnapshot(): EditorSnapshot | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    return undefined;
  }
  const { start, end } = editor.selection;
  return {
    uri: editor.document.uri.toString(),
    selection: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    diagnostics: vscode.languages.getDiagnostics(editor.document.uri).map((d) => toPromptDiagnostic(editorDiagnostic(d))),
  };
}

/** A VS Code diagnostic as plain data. */
export function editorDiagnostic(d: vscode.Diagnostic): EditorDiagnostic {
  return {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    severity: d.severity,
    message: d.message,
    source: d.source,
    code: typeof d.code === "object" ? { value: d.code.value } : d.code,
  };
}

/** The editor as "#" context and Add Context offer it: the active file, its selection, the open editors. */
export function editorState(): EditorState {
  const relative = (uri: vscode.Uri) => vscode.workspace.asRelativePath(uri, false);
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "file");
  const open = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .map((t) => t.input)
    .filter((i): i is vscode.TabInputText => i instanceof vscode.TabInputText && i.uri.scheme === "file")
    .map((i) => relative(i.uri));
  if (editor === undefined || editor.document.uri.scheme !== "file") {
    return { open };
  }
  const { start, end } = editor.selection;
  // A selection that ends at a line's start does not take that line, as VS Code's own line count.
  const endLine = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return {
    active: { path: relative(editor.document.uri), selection: editor.selection.isEmpty ? undefined : { startLine: start.line + 1, endLine: endLine + 1 } },
    open,
  };
}

/** A code block's Insert at Cursor: into the editor last used, replacing its selection. */
export async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (editor === undefined) {
    void vscode.window.showInformationMessage("Open a file to insert the code into.");
    return;
  }
  await editor.edit((b) => b.replace(editor.selection, text));
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}

/** The active editor as a prompt's context, or undefined when no text editor is active. */
export function editorContext(): PromptContext | undefined {
  const snapshot = editorSnapshot();
  return snapshot && promptContext(snapshot);
}

/**
 * Opens a file a tool call named at its line (1-based; none: the top), as
 * Copilot Chat's file links do: a path relative to the first workspace
 * folder, or absolute.
 */
export async function openAtLine(file: string, line: number | undefined): Promise<void> {
  const uri = workspaceUri(file);
  const at = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  try {
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(at, at), preview: true });
  } catch (err) {
    void vscode.window.showErrorMessage(`Could not open ${file}: ${errorMessage(err)}`);
  }
}

/** A path the server names (relative to the first workspace folder, or absolute) as a URI. */
function workspaceUri(file: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return path.isAbsolute(file) || folder === undefined ? vscode.Uri.file(file) : vscode.Uri.joinPath(folder, file);
}

/** Shows a directory a search found in the Explorer: it has no editor to open. */
export async function revealFolder(dir: string): Promise<void> {
  await vscode.commands.executeCommand("revealInExplorer", workspaceUri(dir));
}
