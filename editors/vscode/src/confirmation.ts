// The server's questions to the user, in the chat when it is on screen:
// gemini/confirm (else VS Code's modal) and gemini/ask (else a QuickPick /
// InputBox).

import * as vscode from "vscode";
import { answerSummary, buildAnswer, declined, parseAskParams, type AskAnswer, type AskParams } from "./ask";
import { confirmAsk, confirmFromAnswer } from "./approval";
import { belongsToChat, questionPlace } from "./agents";
import { canAsk, runningCall, type ChatState } from "./chatModel";
import type { Gemini } from "./gemini";
import { confirmDialog, confirmOutcome } from "./present";
import type { ConfirmOutcome, ConfirmParams } from "./protocol";

/** gemini/confirm as VS Code's own modal: its buttons (Allow Once, and Always Allow where it would hold), or dismiss to reject. */
async function confirmModal(params: ConfirmParams): Promise<{ outcome: ConfirmOutcome }> {
  const dialog = confirmDialog(params);
  const choice = await vscode.window.showWarningMessage(dialog.message, { modal: true, detail: dialog.detail }, ...dialog.buttons.map((b) => b.label));
  return { outcome: confirmOutcome(params, choice) };
}

/** The chat's open questions (gemini/ask), by the id the chat knows them by, and their answers. */
export class Questions {
  private readonly open = new Map<number, { params: AskParams; answer: (a: AskAnswer) => void }>();
  private lastId = 0;

  constructor(private readonly g: Gemini) {}

  /**
   * gemini/confirm: in the chat when it is on screen with a prompt
   * running in it (approval.ts: the command, where it runs, what Always
   * Allow covers; one click answers), else VS Code's modal.
   */
  async answerConfirm(params: ConfirmParams, token: vscode.CancellationToken): Promise<{ outcome: ConfirmOutcome }> {
    const g = this.g;
    // Outside a running prompt (a rewind's conflict) there is no turn to ask in: the modal asks.
    if (this.place(params.sessionId ?? "") === "dialog") {
      return confirmModal(params);
    }
    const answer = await this.askInChat(confirmAsk(params, runningCall(g.chat, params.callId ?? "")?.dir), token);
    return { outcome: confirmFromAnswer(answer) };
  }

  /**
   * gemini/ask: in the chat when it is on screen with the prompt that asks
   * running in it, otherwise with a QuickPick / InputBox. A cancelled
   * request takes the question away.
   */
  async answerAsk(raw: unknown, token: vscode.CancellationToken): Promise<AskAnswer> {
    const g = this.g;
    const params = parseAskParams(raw);
    if (params === undefined) {
      throw new Error("gemini/ask: the params are not an object");
    }
    if (this.place(params.sessionId) === "dialog") {
      const answer = await askWithQuickPick(params, token);
      if (!token.isCancellationRequested && canAsk(g.chat)) {
        // Answered outside the chat, it is recorded in it all the same: the question, then the answer.
        const id = ++this.lastId;
        g.apply({ type: "ask", id, params });
        g.apply({ type: "asked", id, answer: answerSummary(params, answer) });
      }
      return answer;
    }
    return this.askInChat(params, token);
  }

  /**
   * Where session `sessionId`'s question is asked: in the chat, held for
   * its agent's chat (another agent's than the chat shows), or in a dialog.
   */
  private place(sessionId: string): "chat" | "held" | "dialog" {
    const g = this.g;
    return questionPlace(sessionId, { sessionId: g.chat.sessionId, turnOpen: canAsk(g.chat), visible: g.view.isShowing() }, (id) => g.agents.list.has(id));
  }

  /**
   * Puts the open questions of the session the chat shows now into its
   * turn: those an agent asked while the chat showed another session, or
   * that a switch of session took off the screen.
   */
  showHeld(): void {
    const g = this.g;
    for (const [id, { params }] of this.open) {
      if (params.sessionId === g.chat.sessionId && !questionShown(g.chat, id)) {
        g.apply({ type: "ask", id, params });
      }
    }
  }

  /**
   * Puts a question in the chat and waits for its answer; a cancelled
   * request takes it away, declined. Another agent's question waits for
   * that agent's chat (showHeld).
   */
  private askInChat(params: AskParams, token: vscode.CancellationToken): Promise<AskAnswer> {
    const g = this.g;
    const id = ++this.lastId;
    return new Promise<AskAnswer>((resolve) => {
      const cancelled = token.onCancellationRequested(() => {
        if (this.open.delete(id)) {
          g.apply({ type: "asked", id });
          resolve(declined);
        }
      });
      this.open.set(id, {
        params,
        answer: (a) => {
          cancelled.dispose();
          resolve(a);
        },
      });
      if (belongsToChat(params.sessionId, g.chat.sessionId, (s) => g.agents.list.has(s))) {
        g.apply({ type: "ask", id, params });
      }
    });
  }

  /** The chat's answer to question `id`, checked as the server will check it. */
  answerQuestion(id: number, answer: AskAnswer): void {
    const question = this.open.get(id);
    if (question === undefined) {
      return;
    }
    let checked = answer;
    if (!answer.declined) {
      const built = buildAnswer(question.params, answer.chosen, answer.text);
      if ("error" in built) {
        // The form checks the same before sending; reaching here is a bug in it.
        this.g.output.appendLine(`gemini/ask: the chat sent an answer the question does not allow: ${built.error}`);
        return;
      }
      checked = built.answer;
    }
    this.open.delete(id);
    this.g.apply({ type: "asked", id, answer: answerSummary(question.params, checked) });
    question.answer(checked);
  }
}

/**
 * gemini/ask without the chat: a QuickPick of the options (several when
 * `multiple`), with a row for the user's own words where allowed, or an
 * InputBox for a question without options. Dismissing declines; nothing
 * ticked of several options answers nothing.
 */
async function askWithQuickPick(params: AskParams, token: vscode.CancellationToken): Promise<AskAnswer> {
  const title = params.title || "Gemini asks";
  const ownWords = "own words";
  let chosen: string[] = [];
  let wantsWords = params.options.length === 0;
  if (params.options.length > 0) {
    const items = params.options.map((o) => ({ label: o.label, detail: o.description, id: o.id }));
    if (params.freeText) {
      items.push({ label: "Answer in my own words…", detail: undefined, id: ownWords });
    }
    const options = { title, placeHolder: params.text, ignoreFocusOut: true };
    const picked = params.multiple
      ? await vscode.window.showQuickPick(items, { ...options, canPickMany: true }, token)
      : await vscode.window.showQuickPick(items, options, token).then((p) => (p === undefined ? undefined : [p]));
    // Nothing ticked in a multi-select is an answer of nothing (buildAnswer); dismissing declines.
    if (picked === undefined) {
      return declined;
    }
    chosen = picked.filter((p) => p.id !== ownWords).map((p) => p.id);
    wantsWords = picked.some((p) => p.id === ownWords);
  }
  let text = "";
  if (wantsWords) {
    const typed = await vscode.window.showInputBox({ title, prompt: params.text, ignoreFocusOut: true }, token);
    if (typed === undefined) {
      return declined;
    }
    text = typed;
  }
  const built = buildAnswer(params, chosen, text);
  return "error" in built ? declined : built.answer;
}

/** Whether the chat's turns hold question `id`. */
function questionShown(chat: ChatState, id: number): boolean {
  return chat.turns.some((t) => t.items.some((i) => i.kind === "question" && i.id === id));
}
