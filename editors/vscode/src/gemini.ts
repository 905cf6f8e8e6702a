// The extension's shared state, as the modules of each concern (the
// commands, the server's handlers, the questions) see it. It is a type of
// its own so that those modules depend on it and not on extension.ts,
// which builds the state from them: the imports run one way.

import type * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { AgentsView } from "./agentsView";
import type { ChatView } from "./chat";
import type { ChatCompletion } from "./chatCompletion";
import type { ChatEvent, ChatState } from "./chatModel";
import type { NextEdits } from "./completion";
import type { LanguageModels } from "./languageModels";
import type { ModelState } from "./present";
import type { ApprovalMode, ConfirmOutcome, ConfirmParams, PromptContext } from "./protocol";
import type { ReviewManager } from "./review";
import type { StatusBar } from "./status";

/**
 * What keeps the chat from working, as the gemini.setup context key names
 * it for the welcome view (package.json's viewsWelcome): gemini-ls cannot
 * be started, or it has no way to reach the model; "" when nothing does.
 */
export type SetupNeed = "" | "serverMissing" | "signedOut";

/** A prompt gemini-ls is answering, and how to stop waiting for it. */
export interface RunningPrompt {
  done: Promise<void>;
  cancel: vscode.CancellationTokenSource;
}

/** The model's questions (gemini/ask), as the server's handler hands them on. */
export interface AskHandler {
  answerAsk(params: unknown, token: vscode.CancellationToken): Promise<unknown>;
  answerConfirm(params: ConfirmParams, token: vscode.CancellationToken): Promise<{ outcome: ConfirmOutcome }>;
  /** Puts the open questions of the session the chat shows now into its turn (an agent's, asked while the chat showed another). */
  showHeld(): void;
}

/** The extension's state, which the modules of each concern read and change. */
export interface Gemini {
  readonly output: vscode.OutputChannel;
  readonly status: StatusBar;
  /** The approval mode every session runs in: the setting's, until the mode picker chooses another. */
  approvalMode: ApprovalMode;
  readonly chat: ChatState;
  readonly view: ChatView;
  readonly reviews: ReviewManager;
  /** The agents, each in a worktree of its own, and the view that lists them. */
  readonly agents: AgentsView;
  client?: LanguageClient;
  /** The inline completion provider, registered while a server that offers it runs. */
  inline?: vscode.Disposable;
  readonly nextEdits: NextEdits;
  /** gemini-ls's models offered to VS Code's own chat (vscode.lm), where VS Code has the API. */
  readonly languageModels: LanguageModels;
  running?: RunningPrompt;
  /** The "/" commands and "@" files the chat completes. */
  readonly completion: ChatCompletion;
  /** The chat's open questions (gemini/ask). */
  readonly questions: AskHandler;
  /** The model as gemini-ls reports it, for the status bar. */
  model?: ModelState;
  /** Where a per-platform .vsix keeps its gemini-ls (server/). */
  readonly extensionDir: string;
  /** The extension's secrets (the API key the user entered), kept by VS Code. */
  readonly secrets: vscode.SecretStorage;
  /** What keeps the chat from working, shown as the welcome view in its place; "" when nothing does. */
  setup: SetupNeed;
  /** The rewind under way, whose revert the review names as one. */
  rewinding?: { prompt: number };

  /** Applies a chat event to the state and passes it on to the view. */
  apply(event: ChatEvent): void;
  /** Shows the chat, or the welcome view in its place while the chat cannot work. */
  openChat(): Promise<void>;
  /** Sends a prompt in the current session and shows it in the chat. */
  prompt(text: string, context: PromptContext | undefined): Promise<void>;
  /** Stops the running prompt, if any, and waits a little for its answer. */
  stopPrompt(): Promise<void>;
}
