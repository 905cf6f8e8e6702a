// The model and the approval mode: as the server reports them, the pickers
// that choose them, and the settings that send the choice to the server.

import * as vscode from "vscode";
import type { Gemini } from "./gemini";
import { approvalModes } from "./modes";
import { modelFromResult, modelMenuItems, modelName, modelPicks, type ModelState } from "./present";
import { methods, type ApprovalMode, type ModelsResult } from "./protocol";
import { isMethodNotFound } from "./sessions";
import { config, errorMessage } from "./settings";

/** The model as the server reports it, for the status bar and the chat's model picker. */
export function setModel(g: Gemini, model: ModelState | undefined): void {
  g.model = model;
  g.status.update({ model });
  g.view.postModel(modelName(model));
}

/** The models gemini-ls offers and the one chosen (gemini/models). */
export async function fetchModels(g: Gemini): Promise<ModelsResult> {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    throw new Error("gemini-ls is not running");
  }
  return client.sendRequest<ModelsResult>(methods.models, {});
}

/** Shows the model gemini-ls starts with; an older gemini-ls, without gemini/models, shows none. */
export async function refreshModel(g: Gemini): Promise<void> {
  try {
    setModel(g, modelFromResult(await fetchModels(g)));
  } catch (err) {
    if (!isMethodNotFound(err)) {
      g.output.appendLine(`asking gemini-ls for its model: ${errorMessage(err)}`);
    }
  }
}

/**
 * The model picker: gemini-ls's list (Gemini CLI 0.61's models), the one
 * in use ticked. The choice is remembered in gemini.model, as Copilot
 * Chat remembers the model picked last, and reaches the server at once
 * (workspace/didChangeConfiguration) for every session's next request.
 */
export async function chooseModel(g: Gemini): Promise<void> {
  const result = await listModels(g);
  if (result === undefined) {
    return;
  }
  const choice = await vscode.window.showQuickPick(modelPicks(result.models ?? [], result.current), {
    title: "Gemini: Choose Model",
    placeHolder: `Current: ${result.currentName}`,
    matchOnDescription: true,
  });
  if (choice !== undefined) {
    await useModel(g, choice.id);
  }
}

/** The chat's model picker opening at the prompt: the server's models, sent to the webview's menu there. */
export async function showModelMenu(g: Gemini): Promise<void> {
  const result = await listModels(g);
  if (result !== undefined) {
    g.view.postModels(modelMenuItems(result.models ?? [], result.current));
  }
}

/** The server's models and the one in use, shown at once; undefined, said in a message, when it cannot list them. */
async function listModels(g: Gemini): Promise<ModelsResult | undefined> {
  let result: ModelsResult;
  try {
    result = await fetchModels(g);
  } catch (err) {
    void vscode.window.showErrorMessage(
      isMethodNotFound(err) ? "This gemini-ls is too old to list its models. Update gemini-ls to choose the model here." : `Listing the models failed: ${errorMessage(err)}`,
    );
    return undefined;
  }
  setModel(g, modelFromResult(result));
  return result;
}

/**
 * Uses the model chosen (by its id), remembered in gemini.model as Copilot
 * Chat remembers the model picked last; it reaches the server at once
 * (workspace/didChangeConfiguration) for every session's next request.
 */
export async function useModel(g: Gemini, id: string): Promise<void> {
  if (id === g.model?.current) {
    return;
  }
  if (config().get<string>("model", "").trim() === id) {
    // The setting names it already (a /model set chose another since): no change event would send it.
    await sendSettings(g);
    await refreshModel(g);
    return;
  }
  // Where the model is set now (a workspace's settings win over the user's), so the choice takes.
  const inspected = config().inspect<string>("model");
  const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  // The settings change sends it to the server (onDidChangeConfiguration).
  await config().update("model", id, target);
}

/**
 * The mode picker: the approval modes in 0.61's words. The choice holds
 * for every session until VS Code restarts gemini-ls (then the
 * gemini.approvalMode setting's mode), as 0.61's Shift+Tab holds until
 * it exits; it is not saved, so YOLO is never left on by accident.
 */
export async function chooseMode(g: Gemini): Promise<void> {
  // The session's mode, which may be its own (plan mode the model entered).
  const current = g.chat.mode;
  const picks = approvalModes.map((m) => ({ label: (m.mode === current ? "$(check) " : "") + m.label, detail: m.detail, mode: m.mode }));
  const choice = await vscode.window.showQuickPick(picks, { title: "Gemini: Choose Approval Mode", placeHolder: "What may Gemini do without asking?" });
  if (choice !== undefined && choice.mode !== current) {
    await setApprovalMode(g, choice.mode);
  }
}

export async function setApprovalMode(g: Gemini, mode: ApprovalMode): Promise<void> {
  g.approvalMode = mode;
  g.apply({ type: "mode", mode });
  await sendSettings(g);
}

/**
 * Sends the server the model and approval mode chosen now. Both every
 * time: the server reads a change over its settings files, and a mode
 * or model left out would go back to the one it started with.
 */
export async function sendSettings(g: Gemini): Promise<void> {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    return;
  }
  const gemini: Record<string, string> = { approvalMode: g.approvalMode };
  const model = config().get<string>("model", "").trim();
  if (model !== "") {
    gemini.model = model;
  }
  await client.sendNotification(methods.didChangeConfiguration, { settings: { gemini } });
}
