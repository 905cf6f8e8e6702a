// The sessions: a new one, an earlier one to continue (or delete), and
// rewinding the current one to before one of its prompts.

import * as vscode from "vscode";
import { describeFiles, parseRewindPrompts, promptForTurn, rewindModes, rewindSummary, type RewindMode, type RewindPrompt, type RewindResult } from "./ask";
import type { Gemini } from "./gemini";
import { sessionPicks, type SessionPick } from "./present";
import { methods, type SessionInfo } from "./protocol";
import { deleteSession, isMethodNotFound, listSessions, resumeSession, type Request, type ResumedSession } from "./sessions";
import { errorMessage } from "./settings";

export async function newSession(g: Gemini): Promise<void> {
  await g.stopPrompt();
  g.apply({ type: "session", mode: g.approvalMode });
  await g.openChat();
}

/**
 * Lists the workspace's sessions, live and saved by an earlier gemini-ls,
 * and continues the one the user picks: the server resumes it and the chat
 * shows what was said in it before the next prompt goes on. Each row's
 * trash button deletes its session.
 */
export async function pickSession(g: Gemini): Promise<void> {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("gemini-ls is not running, so there are no sessions to show.");
    return;
  }
  const request: Request = (method, params) => client.sendRequest(method, params);
  let sessions: SessionInfo[];
  try {
    sessions = await listSessions(request, vscode.workspace.workspaceFolders?.[0]?.uri.toString());
  } catch (err) {
    void vscode.window.showErrorMessage(
      isMethodNotFound(err)
        ? "This gemini-ls is too old to list sessions. Update gemini-ls to continue earlier sessions."
        : `Listing sessions failed: ${errorMessage(err)}`,
    );
    return;
  }
  const picks = sessionPicks(sessions, g.chat.sessionId, new Date());
  if (picks.length === 0) {
    void vscode.window.showInformationMessage("There are no earlier Gemini sessions yet.");
    return;
  }
  const choice = await chooseSession(g, picks, request);
  if (choice === undefined || choice.sessionId === g.chat.sessionId) {
    return;
  }
  await g.stopPrompt();
  let resumed: ResumedSession;
  try {
    resumed = await resumeSession(request, choice.sessionId, choice.session, g.approvalMode);
  } catch (err) {
    void vscode.window.showErrorMessage(`Could not continue the session “${choice.title}”: ${errorMessage(err)}`);
    return;
  }
  g.apply({ type: "session", sessionId: resumed.session.sessionId, title: choice.title, exchanges: resumed.exchanges, mode: resumed.mode, usage: resumed.usage });
  await g.openChat();
}

/**
 * Asks which of `picks` to continue. A row's trash button deletes its
 * session once the user confirms, and the list goes on without it.
 */
export function chooseSession(g: Gemini, picks: SessionPick[], request: Request): Promise<SessionPick | undefined> {
  const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete this session" };
  const qp = vscode.window.createQuickPick<SessionPick & vscode.QuickPickItem>();
  qp.title = "Gemini sessions";
  qp.placeholder = "Continue a session";
  qp.items = picks.map((p) => ({ ...p, buttons: [remove] }));
  return new Promise((resolve) => {
    let chosen: SessionPick | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0];
      qp.hide();
    });
    qp.onDidTriggerItemButton(async ({ item }) => {
      // The confirmation takes the focus: the list stays open under it.
      qp.ignoreFocusOut = true;
      const deleted = await deletePickedSession(g, request, item);
      qp.ignoreFocusOut = false;
      if (deleted) {
        qp.items = qp.items.filter((i) => i.sessionId !== item.sessionId);
      }
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}

/**
 * Deletes the session of `pick` once the user confirms; true when it was
 * deleted. The chat showing it starts a new session: the server has
 * forgotten it.
 */
export async function deletePickedSession(g: Gemini, request: Request, pick: SessionPick): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(
    `Delete the session “${pick.title}”?`,
    { modal: true, detail: "Its conversation and its saved file are deleted for good." },
    "Delete",
  );
  if (answer !== "Delete") {
    return false;
  }
  try {
    await deleteSession(request, pick.sessionId);
  } catch (err) {
    void vscode.window.showErrorMessage(
      isMethodNotFound(err)
        ? "This gemini-ls is too old to delete sessions. Update gemini-ls to delete them here."
        : `Could not delete the session “${pick.title}”: ${errorMessage(err)}`,
    );
    return false;
  }
  if (pick.sessionId === g.chat.sessionId) {
    g.apply({ type: "session", mode: g.approvalMode });
  }
  return true;
}

/**
 * Goes back to before a prompt of the current session: the chat's turn
 * `turn`, or one the user picks from gemini/rewind's list. The user picks
 * the conversation, the code or both; a revert comes back as one
 * workspace/applyEdit in review. The chat then shows the session as the
 * server kept it.
 */
export async function rewind(g: Gemini, turn?: number): Promise<void> {
  const client = g.client;
  const sessionId = g.chat.sessionId;
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("gemini-ls is not running, so there is nothing to rewind.");
    return;
  }
  if (sessionId === undefined) {
    void vscode.window.showInformationMessage("This session has no prompts to rewind yet.");
    return;
  }
  if (g.running !== undefined) {
    void vscode.window.showInformationMessage("Gemini is still answering. Wait for it, or stop it first, then rewind.");
    return;
  }
  const request: Request = (method, params) => client.sendRequest(method, params);
  try {
    const prompts = parseRewindPrompts(await request(methods.rewind, { sessionId }));
    const chosen = turn === undefined ? undefined : promptForTurn(prompts, turn, g.chat.turns[turn]?.prompt ?? "");
    const prompt = chosen ?? (await pickRewindPrompt(prompts));
    if (prompt === undefined) {
      return;
    }
    const mode = await vscode.window.showQuickPick(
      rewindModes.map((m) => ({ label: m.label, detail: m.detail, mode: m.mode })),
      { title: `Rewind to before “${prompt.text}”`, placeHolder: "What to rewind" },
    );
    if (mode === undefined) {
      return;
    }
    let result: RewindResult;
    g.rewinding = { prompt: prompt.prompt };
    try {
      result = await request<RewindResult>(methods.rewind, { sessionId, prompt: prompt.prompt, mode: mode.mode satisfies RewindMode });
    } finally {
      g.rewinding = undefined;
    }
    const resumed = await resumeSession(request, sessionId, { sessionId, title: "", createdAt: "", updatedAt: "", prompts: 0, live: true }, g.chat.mode);
    g.apply({ type: "session", sessionId, title: g.chat.sessionTitle, exchanges: resumed.exchanges, mode: resumed.mode, usage: resumed.usage });
    const summary = rewindSummary(result, (f) => vscode.workspace.asRelativePath(f));
    void (summary.warn ? vscode.window.showWarningMessage(summary.text) : vscode.window.showInformationMessage(summary.text));
  } catch (err) {
    void vscode.window.showErrorMessage(
      isMethodNotFound(err) ? "This gemini-ls is too old to rewind. Update gemini-ls." : `Rewinding failed: ${errorMessage(err)}`,
    );
  }
}

/** The prompt to rewind to before, picked from the session's prompts with the files each changed. */
async function pickRewindPrompt(prompts: RewindPrompt[]): Promise<RewindPrompt | undefined> {
  if (prompts.length === 0) {
    void vscode.window.showInformationMessage("This session has no prompts to rewind.");
    return undefined;
  }
  const picks = prompts.map((p) => ({
    label: `${p.prompt}. ${p.text}`,
    detail: describeFiles(p.files, (f) => vscode.workspace.asRelativePath(f)),
    value: p,
  }));
  return (await vscode.window.showQuickPick(picks, { title: "Gemini: Rewind", placeHolder: "Rewind to before which prompt?" }))?.value;
}

/** The review's name for a rewind's revert, so it does not read as one more of the agent's edits. */
export function rewindDiffTitle(prompt: number): (file: string) => string {
  return (file) => `Rewind: ${file} (now ↔ before prompt ${prompt})`;
}
