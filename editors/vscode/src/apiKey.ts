// An API key entered in VS Code: kept in VS Code's secret storage (the
// system keychain where there is one), handed to gemini-ls in its
// environment as GEMINI_LS_EDITOR_API_KEY when it starts (serverEnv.ts:
// gemini-ls reads it as GEMINI_API_KEY and passes it to no command it
// runs), and written to no file, settings.json included. Copilot Chat
// and Claude Code keep their credentials the same way.

import * as vscode from "vscode";
import { editorKeyEnv } from "./serverEnv";

/** The secret storage's name for the key. */
const secretName = "gemini.apiKey";

/** Where Google AI Studio makes a key. */
export const aiStudioKeyUrl = "https://aistudio.google.com/apikey";

/** AI Studio's page of a key's quota and usage, which the server's quota sentence names too (internal/apierror). */
export const aiStudioQuotaUrl = "https://aistudio.google.com/usage";

/** The environment that hands gemini-ls the key entered, if any: {} without one. */
export async function keyEnv(secrets: vscode.SecretStorage): Promise<Record<string, string>> {
  return editorKeyEnv(await secrets.get(secretName));
}

/** Whether a key was entered. */
export async function hasApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  return Object.keys(await keyEnv(secrets)).length > 0;
}

/** Why an entered key cannot be one: undefined when it may be. */
export function keyProblem(key: string): string | undefined {
  const trimmed = key.trim();
  if (trimmed === "") {
    return "Paste the key Google AI Studio shows.";
  }
  if (/\s/.test(trimmed)) {
    return "A key has no spaces or line breaks.";
  }
  return undefined;
}

/**
 * Asks for a key (hidden as it is typed) and stores it in the secret
 * storage; true when one was stored. gemini-ls gets it when it starts
 * next: the caller starts it again.
 */
export async function enterApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const key = await vscode.window.showInputBox({
    title: "Gemini: Enter API Key",
    prompt: "A Gemini API key from Google AI Studio. VS Code keeps it in its secret storage; gemini-ls gets it when it starts, in no file.",
    placeHolder: "Paste your API key",
    password: true,
    ignoreFocusOut: true,
    validateInput: keyProblem,
  });
  if (key === undefined) {
    return false;
  }
  await secrets.store(secretName, key.trim());
  return true;
}

/** Forgets the key entered; true when there was one. */
export async function forgetApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const had = (await secrets.get(secretName)) !== undefined;
  await secrets.delete(secretName);
  return had;
}

/** Opens Google AI Studio's key page in the browser. */
export async function openAiStudio(): Promise<void> {
  await vscode.env.openExternal(vscode.Uri.parse(aiStudioKeyUrl));
}

/** Opens Google AI Studio's quota and usage page in the browser. */
export async function openQuotaPage(): Promise<void> {
  await vscode.env.openExternal(vscode.Uri.parse(aiStudioQuotaUrl));
}
