// Gemini's models in VS Code's own chat: a LanguageModelChatProvider
// (VS Code 1.104's vscode.lm.registerLanguageModelChatProvider) that offers
// the models gemini-ls lists (gemini/models) and answers through gemini-ls
// (gemini/answer), with the key or sign-in gemini-ls already has: the
// extension never speaks to the model itself. An older VS Code, without
// the API, gets nothing registered and loses nothing else.

import * as vscode from "vscode";
import { ProgressType, type LanguageClient } from "vscode-languageclient/node";
import { describeError, kindOfResponseError } from "./errors";
import { answerMessages, estimateTokens, lmModels, lmVendor, type LmMessage, type LmModelInfo } from "./lmModels";
import { methods, type AnswerParams, type AnswerResult, type ModelsResult } from "./protocol";
import { errorMessage } from "./settings";

/** The provider as VS Code 1.104 calls it; @types/vscode stays at the oldest VS Code the extension runs in (engines). */
interface ChatProvider {
  readonly onDidChangeLanguageModelChatInformation: vscode.Event<void>;
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): Promise<LmModelInfo[]>;
  provideLanguageModelChatResponse(
    model: LmModelInfo,
    messages: readonly LmMessage[],
    options: unknown,
    progress: vscode.Progress<vscode.LanguageModelTextPart>,
    token: vscode.CancellationToken,
  ): Promise<void>;
  provideTokenCount(model: LmModelInfo, text: string | LmMessage, token: vscode.CancellationToken): Promise<number>;
}

type RegisterProvider = (vendor: string, provider: ChatProvider) => vscode.Disposable;

/** One piece of gemini/answer's text, sent as $/progress under the request's partialResultToken. */
const answerPiece = new ProgressType<{ text: string }>();

/** The provider of gemini-ls's models to VS Code's chat, registered where VS Code has the API. */
export class LanguageModels implements ChatProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private registration?: vscode.Disposable;
  private requests = 0;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Registers the provider; false in a VS Code without the API (before 1.104). */
  register(): boolean {
    const register = (vscode.lm as { registerLanguageModelChatProvider?: RegisterProvider }).registerLanguageModelChatProvider;
    if (typeof register !== "function") {
      this.log("This VS Code has no language model provider API (VS Code 1.104 and later have it): Gemini's models are offered in gemini-ls's chat only.");
      return false;
    }
    this.registration = register(lmVendor, this);
    return true;
  }

  /** gemini-ls started (again), or its sign-in changed: VS Code asks for the models anew. */
  refresh(): void {
    this.changed.fire();
  }

  async provideLanguageModelChatInformation(): Promise<LmModelInfo[]> {
    const client = this.client();
    if (client === undefined || !client.isRunning()) {
      return [];
    }
    try {
      const result = await client.sendRequest<ModelsResult>(methods.models, {});
      return lmModels(result.models ?? []);
    } catch (err) {
      this.log(`listing the models for VS Code's chat: ${errorMessage(err)}`);
      return [];
    }
  }

  async provideLanguageModelChatResponse(
    model: LmModelInfo,
    messages: readonly LmMessage[],
    _options: unknown,
    progress: vscode.Progress<vscode.LanguageModelTextPart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const client = this.client();
    if (client === undefined || !client.isRunning()) {
      throw new Error("gemini-ls is not running: run Gemini: Restart Server, or see Gemini: Show Log.");
    }
    const partialResultToken = `gemini-lm-${++this.requests}`;
    const params: AnswerParams = { model: model.id, ...answerMessages(messages), partialResultToken };
    const pieces = client.onProgress(answerPiece, partialResultToken, (piece) => progress.report(new vscode.LanguageModelTextPart(piece.text)));
    try {
      await client.sendRequest<AnswerResult>(methods.answer, params, token);
    } catch (err) {
      if (token.isCancellationRequested) {
        return;
      }
      const { errorKind } = kindOfResponseError(err);
      const help = errorKind === undefined ? "" : ` ${describeError(errorKind).action}`;
      throw new Error(`${errorMessage(err)}${help}`.trim());
    } finally {
      pieces.dispose();
    }
  }

  async provideTokenCount(_model: LmModelInfo, text: string | LmMessage): Promise<number> {
    if (typeof text === "string") {
      return estimateTokens(text);
    }
    const { system, messages } = answerMessages([text]);
    return estimateTokens((system ?? "") + (messages ?? []).map((m) => m.text).join(""));
  }

  dispose(): void {
    this.registration?.dispose();
    this.changed.dispose();
  }
}
