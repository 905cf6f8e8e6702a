// The LanguageFeatureHost of gemini/languageFeature (languageFeatures.ts):
// VS Code's language features, asked through its vscode.execute*Provider
// commands, which ask every provider of every extension for the file.
//
// No loop: gemini-ls's own language client registers none of these
// providers (the server offers no definition, references, hover, symbols,
// call hierarchy nor rename), so these commands never reach gemini-ls.
//
// VS Code cannot tell whether any provider exists for a file, so it never
// answers "no language server" (-32001): it answers what the providers gave,
// maybe nothing.
//
// Positions go to VS Code and come back as they are: its API counts
// characters in UTF-16, and so does the connection, as vscode-languageclient
// offers the server only utf-16 (general.positionEncodings) and refuses to
// start with a server that picks another.

import * as vscode from "vscode";
import type { LanguageFeatureHost, LocationOperation } from "./languageFeatures";
import type { Position } from "./protocol";

const locationCommands: Record<LocationOperation, string> = {
  definition: "vscode.executeDefinitionProvider",
  type_definition: "vscode.executeTypeDefinitionProvider",
  implementation: "vscode.executeImplementationProvider",
};

function at(uri: string): vscode.Uri {
  return vscode.Uri.parse(uri, true);
}

function pos(p: Position): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

function run<T>(command: string, ...args: unknown[]): Promise<T | undefined> {
  return Promise.resolve(vscode.commands.executeCommand<T | undefined>(command, ...args));
}

export const editorLanguageFeatures: LanguageFeatureHost<vscode.CallHierarchyItem> = {
  // Loads the document in the extension host, without an editor: the
  // language extensions get it as opened, as for a file the user opened.
  open: async (uri) => {
    await vscode.workspace.openTextDocument(at(uri));
  },
  locations: (op, uri, p) => run<(vscode.Location | vscode.LocationLink)[]>(locationCommands[op], at(uri), pos(p)),
  references: (uri, p) => run<vscode.Location[]>("vscode.executeReferenceProvider", at(uri), pos(p)),
  hovers: (uri, p) => run<vscode.Hover[]>("vscode.executeHoverProvider", at(uri), pos(p)),
  // VS Code answers with objects that are DocumentSymbol and SymbolInformation at once.
  documentSymbols: (uri) => run<vscode.DocumentSymbol[]>("vscode.executeDocumentSymbolProvider", at(uri)),
  workspaceSymbols: (query) => run<vscode.SymbolInformation[]>("vscode.executeWorkspaceSymbolProvider", query),
  prepareCallHierarchy: (uri, p) => run<vscode.CallHierarchyItem[]>("vscode.prepareCallHierarchy", at(uri), pos(p)),
  incomingCalls: (item) => run<vscode.CallHierarchyIncomingCall[]>("vscode.provideIncomingCalls", item),
  outgoingCalls: (item) => run<vscode.CallHierarchyOutgoingCall[]>("vscode.provideOutgoingCalls", item),
  // The edit the providers propose, unapplied: gemini-ls proposes it to the
  // user (workspace/applyEdit). A refusal ("You cannot rename this
  // element.") is thrown, and its message is the answer's error.
  rename: (uri, p, newName) => run<vscode.WorkspaceEdit>("vscode.executeDocumentRenameProvider", at(uri), pos(p), newName),
};
