// Gemini for VS Code: starts gemini-ls for every file, and wires the chat,
// the context-carrying commands, the edit review and the confirmations.
// Each concern has its module; this one holds the state they share.

import * as vscode from "vscode";
import type { LanguageClient, WorkspaceEdit as LspWorkspaceEdit } from "vscode-languageclient/node";
import {
  conflictsProvider,
  conflictsScheme,
  discardAgent,
  followUpAgent,
  landAgent,
  newAgent,
  openAgentChat,
  openPullRequest,
  openRun,
  refreshAgents,
  runInBackground,
  stopAgent,
} from "./agentCommands";
import { AgentsView, agentsViewId, type AgentNode } from "./agentsView";
import { ChatView, chatViewId, welcomeViewId } from "./chat";
import { ChatCompletion } from "./chatCompletion";
import { applyEvent, callById, emptyChat, lastFailure, runningTool, type ChatEvent, type ChatState } from "./chatModel";
import type { ChatRequest } from "./chatProtocol";
import { acceptCompletion, NextEdits } from "./completion";
import { Questions } from "./confirmation";
import { LanguageModels } from "./languageModels";
import { contextItems } from "./contextItems";
import { addContext, ask, askSelection, editorContext, editorState, editSelection, explain, fixDiagnostics, insertAtCursor, openAtLine, revealFolder } from "./editorCommands";
import { chooseMode, chooseModel, refreshModel, sendSettings, setApprovalMode, setModel, showModelMenu, useModel } from "./modelCommands";
import { modelForNewSession, modelName, type ModelState } from "./present";
import { methods, type ApprovalMode, type PromptContext, type PromptParams, type PromptResult } from "./protocol";
import { ReviewManager, type HunkRef } from "./review";
import type { Gemini, RunningPrompt, SetupNeed } from "./gemini";
import { checkSignIn, restart, restartInSession, signIn, start, stopClient } from "./server";
import { enterApiKey, forgetApiKey, hasApiKey, openAiStudio, openQuotaPage } from "./apiKey";
import { kindOfResponseError } from "./errors";
import { newSession, pickSession, rewind } from "./sessionCommands";
import { config, configuredMode, errorMessage, inlineCompletionEnabled } from "./settings";
import { placeAgents, placeChat } from "./placement";
import { ShellTerminals } from "./shellTerminal";
import { StatusBar } from "./status";
import { isPermissionsCommand, restrictedPermissions } from "./trust";

/** How long New Session waits for a stopped prompt to answer before moving on. */
const stopWaitMs = 5000;

/** The running extension; VS Code's activate/deactivate pair has nowhere else to keep it. */
let gemini: GeminiExtension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  gemini = new GeminiExtension(context);
  void placeChat(context.globalState, [chatViewId, welcomeViewId]).then(() => placeAgents(context.globalState, agentsViewId));
  void gemini.refreshKeyContext();
  void start(gemini);
}

/** Puts files under review back and stops the server before VS Code goes. */
export async function deactivate(): Promise<void> {
  await gemini?.shutdown();
  gemini = undefined;
}

/** The extension's state (gemini.ts), built from the modules of each concern. */
class GeminiExtension implements Gemini {
  readonly output = vscode.window.createOutputChannel("Gemini");
  readonly status = new StatusBar();
  /** The approval mode every session runs in: the setting's, until the mode picker chooses another. */
  approvalMode: ApprovalMode = configuredMode();
  readonly chat: ChatState = emptyChat(this.approvalMode);
  readonly view: ChatView;
  readonly reviews: ReviewManager;
  readonly agents = new AgentsView();
  client?: LanguageClient;
  /** The inline completion provider, registered while a server that offers it runs. */
  inline?: vscode.Disposable;
  readonly nextEdits: NextEdits;
  readonly languageModels: LanguageModels;
  running?: RunningPrompt;
  /** The "/" commands and "@" files the chat completes. */
  readonly completion: ChatCompletion;
  private readonly disposables: vscode.Disposable[] = [];
  /** The chat's open questions (gemini/ask). */
  readonly questions = new Questions(this);
  /** The terminals showing shell calls' output, opened from their rows. */
  private readonly shellTerminals = new ShellTerminals();
  /** The model as gemini-ls reports it, for the status bar. */
  model?: ModelState;
  /** Where a per-platform .vsix keeps its gemini-ls (server/). */
  readonly extensionDir: string;
  readonly secrets: vscode.SecretStorage;
  /** What keeps the chat from working, shown as the welcome view in its place; "" when nothing does. */
  setup: SetupNeed = "";
  /** The rewind under way, whose revert the review names as one. */
  rewinding?: { prompt: number };

  constructor(context: vscode.ExtensionContext) {
    this.extensionDir = context.extensionPath;
    this.secrets = context.secrets;
    this.completion = new ChatCompletion(
      () => this.client,
      () => this.view,
      (line) => this.output.appendLine(line),
    );
    this.view = new ChatView(
      context.extensionUri,
      () => this.chat,
      () => this.completion.commands,
      () => modelName(this.model),
      () => vscode.workspace.isTrusted,
      (request) => this.onChatRequest(request),
    );
    this.reviews = new ReviewManager({
      autoSave: () => config().get<boolean>("autoSave", true),
      applyPlain: async (edit) => {
        const client = this.client;
        if (client === undefined) {
          return false;
        }
        return vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(edit as LspWorkspaceEdit));
      },
      onDidChangeReviews: (reviews) => {
        this.status.update({ reviews });
        // The chat tells the review too, with Accept and Reject there (toolView.ts).
        this.apply({ type: "review", files: this.reviews.pendingFiles() });
      },
    });
    this.nextEdits = new NextEdits(
      () => this.client,
      () => inlineCompletionEnabled() && config().get<boolean>("nextEdit.enabled", true),
      (line) => this.output.appendLine(line),
    );
    // Gemini's models in VS Code's own chat too, answered through gemini-ls (languageModels.ts).
    this.languageModels = new LanguageModels(
      () => this.client,
      (line) => this.output.appendLine(line),
    );
    this.languageModels.register();
    this.disposables.push(
      this.output,
      this.status,
      this.reviews,
      this.nextEdits,
      this.languageModels,
      this.shellTerminals,
      this.agents,
      vscode.workspace.registerTextDocumentContentProvider(conflictsScheme, conflictsProvider),
      vscode.window.registerWebviewViewProvider(chatViewId, this.view),
      // The welcome view is a tree view with nothing in it: VS Code shows viewsWelcome there.
      vscode.window.registerTreeDataProvider(welcomeViewId, { getChildren: () => [], getTreeItem: (item: vscode.TreeItem) => item }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (["gemini.serverPath", "gemini.inlineCompletion.enabled"].some((s) => e.affectsConfiguration(s))) {
          void restart(this);
        } else if (e.affectsConfiguration("gemini.approvalMode")) {
          void setApprovalMode(this, configuredMode());
        } else if (e.affectsConfiguration("gemini.model")) {
          void sendSettings(this).then(() => refreshModel(this));
        }
      }),
      // Trusted in VS Code now: gemini-ls starts again trusting the folder (trust.ts), the conversation kept.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.view.postTrust(true);
        void restartInSession(this);
      }),
      ...this.commands(),
    );
  }


  private commands(): vscode.Disposable[] {
    const register = (id: string, run: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, run);
    return [
      register("gemini.openChat", () => this.openChat()),
      register("gemini.openChatInEditor", () => this.view.openInEditor()),
      register("gemini.ask", (text?: unknown) => ask(this, text)),
      register("gemini.explain", () => explain(this)),
      register("gemini.fixDiagnostics", () => fixDiagnostics(this)),
      register("gemini.askSelection", (text?: unknown) => askSelection(this, text)),
      register("gemini.editSelection", (instruction?: unknown) => editSelection(this, instruction)),
      register("gemini.cancel", () => this.cancel()),
      register("gemini.newSession", () => newSession(this)),
      register("gemini.sessions", () => pickSession(this)),
      register("gemini.rewind", () => rewind(this)),
      register("gemini.restartServer", () => restart(this)),
      register("gemini.signIn", (manual?: unknown) => signIn(this, manual === true)),
      register("gemini.enterApiKey", () => this.enterApiKey()),
      register("gemini.forgetApiKey", () => this.forgetApiKey()),
      register("gemini.openAiStudio", () => openAiStudio()),
      register("gemini.openQuota", () => openQuotaPage()),
      register("gemini.retry", () => this.retry()),
      register("gemini.signInMenu", () => this.signInMenu()),
      register("gemini.statusMenu", () => this.statusMenu()),
      register("gemini.chooseModel", () => chooseModel(this)),
      register("gemini.chooseMode", () => chooseMode(this)),
      register("gemini.addContext", (uri?: unknown) => addContext(this, uri)),
      register("gemini.openSettings", () => vscode.commands.executeCommand("workbench.action.openSettings", "@ext:gemini-ls.gemini-ls")),
      register("gemini.showLog", () => this.output.show()),
      register("gemini.review.accept", (target?: unknown) => this.reviews.accept(target)),
      register("gemini.review.reject", (target?: unknown) => this.reviews.reject(target)),
      register("gemini.review.acceptHunk", (ref?: HunkRef) => this.reviews.acceptHunk(ref)),
      register("gemini.review.rejectHunk", (ref?: HunkRef) => this.reviews.rejectHunk(ref)),
      register("gemini.review.show", () => this.reviews.show()),
      register("gemini.agents.new", () => newAgent(this)),
      register("gemini.agents.refresh", () => refreshAgents(this)),
      register("gemini.agents.openChat", (node?: AgentNode) => openAgentChat(this, node)),
      register("gemini.agents.stop", (node?: AgentNode) => stopAgent(this, node)),
      register("gemini.agents.land", (node?: AgentNode) => landAgent(this, node, "review")),
      register("gemini.agents.merge", (node?: AgentNode) => landAgent(this, node, "merge")),
      register("gemini.agents.discard", (node?: AgentNode) => discardAgent(this, node)),
      register("gemini.runInBackground", (text?: unknown) => runInBackground(this, typeof text === "string" ? text : undefined)),
      register("gemini.agents.openRun", (node?: AgentNode) => openRun(this, node)),
      register("gemini.agents.openPullRequest", (node?: AgentNode) => openPullRequest(this, node)),
      register("gemini.agents.followUp", (node?: AgentNode) => followUpAgent(this, node)),
      register("gemini.suggestNextEdit", () => this.nextEdits.suggestNow()),
      register("gemini.acceptNextEdit", () => this.nextEdits.accept()),
      register("gemini.dismissNextEdit", () => this.nextEdits.dismiss()),
      // The command an accepted suggestion carries: the server counts it.
      register("gemini.acceptCompletion", (...args: unknown[]) => acceptCompletion(this.client, args)),
    ];
  }

  /** Stores a key the user enters and starts gemini-ls again with it (apiKey.ts). */
  private async enterApiKey(): Promise<void> {
    if (await enterApiKey(this.secrets)) {
      await this.refreshKeyContext();
      await this.retry();
    }
  }

  private async forgetApiKey(): Promise<void> {
    const forgot = await forgetApiKey(this.secrets);
    await this.refreshKeyContext();
    if (forgot) {
      await restart(this);
      void vscode.window.showInformationMessage("Gemini: the API key entered in VS Code is forgotten.");
    }
  }

  /**
   * Starts gemini-ls again, as after a key was entered or a login made
   * elsewhere, and sends again the last prompt when it failed: Copilot
   * Chat's Retry.
   */
  private async retry(): Promise<void> {
    const last = this.chat.turns.at(-1);
    const again = last?.done === true && last.stopReason === "error" ? last.prompt : undefined;
    await restart(this);
    await checkSignIn(this);
    if (again !== undefined && this.setup === "") {
      await this.prompt(again, undefined);
    } else {
      await this.openChat();
    }
  }

  /** The status bar item's menu when Gemini cannot reach the model: the ways to fix it. */
  private async signInMenu(): Promise<void> {
    const picks: (vscode.QuickPickItem & { command: string })[] = [
      { label: "$(key) Enter API Key", description: "kept in VS Code's secret storage", command: "gemini.enterApiKey" },
      { label: "$(account) Sign in with Google", command: "gemini.signIn" },
      { label: "$(link-external) Get a Key in Google AI Studio", command: "gemini.openAiStudio" },
      { label: "$(refresh) Retry", command: "gemini.retry" },
      { label: "$(output) Show Log", command: "gemini.showLog" },
    ];
    const pick = await vscode.window.showQuickPick(picks, { title: "Gemini cannot reach the model", placeHolder: "How should Gemini sign in?" });
    if (pick !== undefined) {
      await vscode.commands.executeCommand(pick.command);
    }
  }

  /** The status bar item's menu, as Copilot's status item offers its useful actions. */
  private async statusMenu(): Promise<void> {
    const picks: (vscode.QuickPickItem & { command: string })[] = [
      { label: "$(comment-discussion) Open Chat", command: "gemini.openChat" },
      { label: "$(add) New Session", command: "gemini.newSession" },
      { label: "$(history) Show Sessions", command: "gemini.sessions" },
      { label: "$(add) New Agent…", description: "in a worktree of its own", command: "gemini.agents.new" },
      { label: "$(github) Run in the Background…", description: "on GitHub Actions", command: "gemini.runInBackground" },
      { label: "$(sparkle) Choose Model", description: modelName(this.model), command: "gemini.chooseModel" },
      { label: "$(shield) Choose Approval Mode", command: "gemini.chooseMode" },
      { label: "$(key) Enter API Key", command: "gemini.enterApiKey" },
      { label: "$(gear) Open Settings", command: "gemini.openSettings" },
      { label: "$(output) Show Log", command: "gemini.showLog" },
      { label: "$(debug-restart) Restart Server", command: "gemini.restartServer" },
    ];
    const pick = await vscode.window.showQuickPick(picks, { title: "Gemini" });
    if (pick !== undefined) {
      await vscode.commands.executeCommand(pick.command);
    }
  }

  /** Sets gemini.hasApiKey, which shows Forget API Key in the palette only where there is one. */
  async refreshKeyContext(): Promise<void> {
    await vscode.commands.executeCommand("setContext", "gemini.hasApiKey", await hasApiKey(this.secrets));
  }

  /** Applies a chat event to the state and passes it on to the view. */
  apply(event: ChatEvent): void {
    const wasBusy = this.chat.busy;
    applyEvent(this.chat, event);
    // Rewind is offered where there is a prompt to go back before.
    void vscode.commands.executeCommand("setContext", "gemini.hasTurns", this.chat.turns.length > 0);
    if (this.chat.busy !== wasBusy) {
      // Gemini: Cancel's key works while a prompt runs.
      void vscode.commands.executeCommand("setContext", "gemini.busy", this.chat.busy);
    }
    if (event.type === "session" && modelForNewSession(this.model) !== this.model) {
      setModel(this, modelForNewSession(this.model));
    }
    this.view.post(event);
    this.status.update({ working: this.chat.busy, activity: runningTool(this.chat), model: this.model, usage: this.chat.usage, failure: lastFailure(this.chat) });
  }

  private onChatRequest(request: Exclude<ChatRequest, { type: "ready" }>): void {
    switch (request.type) {
      case "prompt":
        void this.prompt(request.text, editorContext());
        return;
      case "cancel":
        void this.cancel();
        return;
      case "commands":
        this.completion.refreshCommands();
        return;
      case "files":
        void this.completion.sendFiles();
        return;
      case "answer":
        this.questions.answerQuestion(request.id, request.answer);
        return;
      case "rewind":
        void rewind(this, request.turn);
        return;
      case "context":
        this.view.postContext(contextItems(editorState()));
        return;
      case "pickModel":
        void showModelMenu(this);
        return;
      case "setMode":
        if (request.mode !== this.chat.mode) {
          void setApprovalMode(this, request.mode);
        }
        return;
      case "setModel":
        void useModel(this, request.id);
        return;
      case "addContext":
        void addContext(this, undefined);
        return;
      case "background":
        void runInBackground(this, request.text).then((started) => started && this.view.clearPrompt(request.text));
        return;
      case "copy":
        void vscode.env.clipboard.writeText(request.text);
        return;
      case "insertCode":
        void insertAtCursor(request.text);
        return;
      case "run":
        void vscode.commands.executeCommand(request.command);
        return;
      case "open":
        void (request.dir ? revealFolder(request.path) : openAtLine(request.path, request.line));
        return;
      case "openTerminal":
        this.shellTerminals.show(callById(this.chat, request.callId));
        return;
    }
  }

  /** Shows the chat, or the welcome view in its place while the chat cannot work. */
  async openChat(): Promise<void> {
    await vscode.commands.executeCommand(`${this.setup === "" ? chatViewId : welcomeViewId}.focus`);
  }

  /** Sends a prompt in the current session and shows it in the chat. */
  async prompt(text: string, context: PromptContext | undefined): Promise<void> {
    await this.openChat();
    if (this.setup !== "") {
      // The welcome view is on screen and says what to do first.
      return;
    }
    if (this.running !== undefined || this.chat.busy) {
      // chat.busy alone: the chat shows an agent at work, whose prompt is not the chat's to wait on.
      void vscode.window.showInformationMessage("Gemini is still answering. Wait for it, or stop it first.");
      return;
    }
    if (!vscode.workspace.isTrusted && isPermissionsCommand(text)) {
      // Only VS Code's workspace trust decides in VS Code: /permissions is not run (trust.ts).
      this.apply({ type: "prompt", text });
      this.apply({ type: "failed", message: restrictedPermissions, errorKind: "restricted" });
      return;
    }
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      this.apply({ type: "prompt", text });
      this.apply({ type: "failed", message: "gemini-ls is not running. Run “Gemini: Restart Server”; “Gemini: Show Log” says what stopped it." });
      return;
    }
    const params: PromptParams = { prompt: text };
    if (this.chat.sessionId !== undefined) {
      params.sessionId = this.chat.sessionId;
    }
    if (context !== undefined) {
      params.context = context;
    }
    this.apply({ type: "prompt", text });
    const cancel = new vscode.CancellationTokenSource();
    const done = (async () => {
      try {
        const result = await client.sendRequest<PromptResult | undefined>(methods.prompt, params, cancel.token);
        this.apply(
          result === undefined || result === null
            ? { type: "failed", message: "gemini-ls gave no answer." }
            : { type: "result", result },
        );
      } catch (err) {
        this.apply({ type: "failed", message: errorMessage(err), ...kindOfResponseError(err) });
      } finally {
        cancel.dispose();
      }
    })();
    const running: RunningPrompt = { done, cancel };
    this.running = running;
    // The chat view's progress bar runs while the agent works.
    void vscode.window.withProgress({ location: { viewId: chatViewId } }, () => done);
    await done;
    if (this.running === running) {
      this.running = undefined;
    }
  }

  async cancel(): Promise<void> {
    const running = this.running;
    if (running === undefined) {
      if (this.chat.busy && this.chat.sessionId !== undefined) {
        // The chat shows an agent at work: its turn stops as any session's does.
        this.apply({ type: "stopping" });
        await this.client?.sendNotification(methods.cancel, { sessionId: this.chat.sessionId });
      }
      return;
    }
    this.apply({ type: "stopping" });
    if (this.chat.sessionId !== undefined) {
      await this.client?.sendNotification(methods.cancel, { sessionId: this.chat.sessionId });
    } else {
      // The first prompt of a session: its id is not known yet, so cancel the request itself.
      running.cancel.cancel();
    }
  }

  /** Stops the running prompt, if any, and waits a little for its answer. */
  async stopPrompt(): Promise<void> {
    const running = this.running;
    if (running === undefined) {
      return;
    }
    await this.cancel();
    await Promise.race([running.done, new Promise((resolve) => setTimeout(resolve, stopWaitMs))]);
  }


  async shutdown(): Promise<void> {
    await stopClient(this);
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
