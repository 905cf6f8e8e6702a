// The extension's settings (package.json's gemini.*), read where they are
// used so a change in VS Code's settings is seen at once.

import * as vscode from "vscode";

export function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("gemini");
}

/** gemini.inlineCompletion.enabled: ghost text as you type and next edit suggestions. */
export function inlineCompletionEnabled(): boolean {
  return config().get<boolean>("inlineCompletion.enabled", true);
}

/** The approval mode a session starts in: the one sent to the server in initializationOptions. */
export function configuredMode(): string {
  return config().get<string>("approvalMode", "default");
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
