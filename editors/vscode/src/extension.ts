// Gemini for VS Code: starts gemini-ls for every file, and wires the chat,
// the context-carrying commands, the edit review and the confirmations.

import * as os from "node:os";
import * as vscode from "vscode";
import { ResponseError, State, type LanguageClient, type WorkspaceEdit as LspWorkspaceEdit } from "vscode-languageclient/node";
import {
  answerSummary,
  buildAnswer,
  declined,
  describeFiles,
  parseAskParams,
  parseRewindPrompts,
  promptForTurn,
  rewindModes,
  rewindSummary,
  type AskAnswer,
  type AskParams,
  type RewindMode,
  type RewindPrompt,
  type RewindResult,
} from "./ask";
import { excludeGlob, referencePath } from "./atFiles";
import { ChatView, chatViewId, welcomeViewId } from "./chat";
import { applyEvent, canAsk, emptyChat, runningTool, type ChatEvent, type ChatState } from "./chatModel";
import { contextItems, type EditorState } from "./contextItems";
import { approvalModes } from "./modes";
import type { ChatRequest } from "./chatProtocol";
import { createClient } from "./client";
import { acceptCompletion, InlineCompletions, NextEdits } from "./completion";
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
import { answerDiagnostics } from "./diagnostics";
import { editSelectionNotice, editSelectionParams } from "./editSelection";
import { editorLanguageFeatures } from "./editorLanguageFeatures";
import {
  confirmButtons,
  confirmOutcome,
  isSettingsEcho,
  modelAfterUpdate,
  modelForNewSession,
  modelFromResult,
  modelName,
  modelPicks,
  sessionPicks,
  type ModelState,
  type SessionPick,
} from "./present";
import {
  methods,
  type ApprovalMode,
  type AuthReport,
  type ConfirmOutcome,
  type ConfirmParams,
  type EditSelectionResult,
  type ModelsResult,
  type PromptContext,
  type PromptParams,
  type PromptResult,
  type ResumeSessionResult,
  type SessionInfo,
  type Update,
} from "./protocol";
import { answerLanguageFeature, LanguageFeatureError } from "./languageFeatures";
import { signIn } from "./login";
import { deleteSession, isMethodNotFound, listSessions, resumeSession, type Request } from "./sessions";
import { ReviewManager, type ApplyEditParams, type HunkRef } from "./review";
import { resolveServer } from "./serverPath";
import { CommandCache, parseCommandList, type CommandList } from "./slashCommands";
import { StatusBar } from "./status";

/** How long New Session waits for a stopped prompt to answer before moving on. */
const stopWaitMs = 5000;

/**
 * How old the "/" command list may be before a new "/" asks the server
 * again: MCP servers start after the chat opens and command files change,
 * but one request per keystroke would be waste.
 */
const commandsMaxAgeMs = 10_000;

/** How old the "@" file list may be before a new "@" lists the files again. */
const filesMaxAgeMs = 10_000;

/** How many files "@" completes from at most: a big checkout must not stall the chat. */
const maxListedFiles = 5000;

/** The running extension; VS Code's activate/deactivate pair has nowhere else to keep it. */
let gemini: Gemini | undefined;

export function activate(context: vscode.ExtensionContext): void {
  gemini = new Gemini(context);
  void gemini.start();
}

/** Puts files under review back and stops the server before VS Code goes. */
export async function deactivate(): Promise<void> {
  await gemini?.shutdown();
  gemini = undefined;
}

/**
 * What keeps the chat from working, as the gemini.setup context key names
 * it for the welcome view (package.json's viewsWelcome): gemini-ls cannot
 * be started, or it has no way to reach the model; "" when nothing does.
 */
type SetupNeed = "" | "serverMissing" | "signedOut";

interface RunningPrompt {
  done: Promise<void>;
  cancel: vscode.CancellationTokenSource;
}

class Gemini {
  private readonly output = vscode.window.createOutputChannel("Gemini");
  private readonly status = new StatusBar();
  /** The approval mode every session runs in: the setting's, until the mode picker chooses another. */
  private approvalMode: ApprovalMode = configuredMode();
  private readonly chat: ChatState = emptyChat(this.approvalMode);
  private readonly view: ChatView;
  private readonly reviews: ReviewManager;
  private client?: LanguageClient;
  /** The inline completion provider, registered while a server that offers it runs. */
  private inline?: vscode.Disposable;
  private readonly nextEdits: NextEdits;
  private running?: RunningPrompt;
  private readonly slashCommands = new CommandCache(() => this.fetchCommands(), Date.now, commandsMaxAgeMs);
  /** The last thing said in the log about the command list, so it is said once. */
  private commandsNote = "";
  private readonly disposables: vscode.Disposable[] = [];
  /** The chat's open questions (gemini/ask), by the id the chat knows them by. */
  private readonly questions = new Map<number, { params: AskParams; answer: (a: AskAnswer) => void }>();
  private lastQuestionId = 0;
  /** The model as gemini-ls reports it, for the status bar. */
  private model?: ModelState;
  /** Where a per-platform .vsix keeps its gemini-ls (server/). */
  private readonly extensionDir: string;
  /** The workspace's files as last listed for "@" completion, and when. */
  private listedFiles?: { files: string[]; at: number };
  /** What keeps the chat from working, shown as the welcome view in its place; "" when nothing does. */
  private setup: SetupNeed = "";
  /** The rewind under way, whose revert the review names as one. */
  private rewinding?: { prompt: number };

  constructor(context: vscode.ExtensionContext) {
    this.extensionDir = context.extensionPath;
    this.view = new ChatView(
      context.extensionUri,
      () => this.chat,
      () => this.slashCommands.current.commands,
      () => modelName(this.model),
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
      onDidChangeReviews: (reviews) => this.status.update({ reviews }),
    });
    this.nextEdits = new NextEdits(
      () => this.client,
      () => inlineCompletionEnabled() && config().get<boolean>("nextEdit.enabled", true),
      (line) => this.output.appendLine(line),
    );
    this.disposables.push(
      this.output,
      this.status,
      this.reviews,
      this.nextEdits,
      vscode.window.registerWebviewViewProvider(chatViewId, this.view),
      // The welcome view is a tree view with nothing in it: VS Code shows viewsWelcome there.
      vscode.window.registerTreeDataProvider(welcomeViewId, { getChildren: () => [], getTreeItem: (item: vscode.TreeItem) => item }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (["gemini.serverPath", "gemini.inlineCompletion.enabled"].some((s) => e.affectsConfiguration(s))) {
          void this.restart();
        } else if (e.affectsConfiguration("gemini.approvalMode")) {
          void this.setApprovalMode(configuredMode());
        } else if (e.affectsConfiguration("gemini.model")) {
          void this.sendSettings().then(() => this.refreshModel());
        }
      }),
      ...this.commands(),
    );
  }

  private commands(): vscode.Disposable[] {
    const register = (id: string, run: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, run);
    return [
      register("gemini.openChat", () => this.openChat()),
      register("gemini.ask", (text?: unknown) => this.ask(text)),
      register("gemini.explain", () => this.explain()),
      register("gemini.fixDiagnostics", () => this.fixDiagnostics()),
      register("gemini.askSelection", (text?: unknown) => this.askSelection(text)),
      register("gemini.editSelection", (instruction?: unknown) => this.editSelection(instruction)),
      register("gemini.cancel", () => this.cancel()),
      register("gemini.newSession", () => this.newSession()),
      register("gemini.sessions", () => this.pickSession()),
      register("gemini.rewind", () => this.rewind()),
      register("gemini.restartServer", () => this.restart()),
      register("gemini.signIn", (manual?: unknown) => this.signIn(manual === true)),
      register("gemini.chooseModel", () => this.chooseModel()),
      register("gemini.chooseMode", () => this.chooseMode()),
      register("gemini.addContext", (uri?: unknown) => this.addContext(uri)),
      register("gemini.openSettings", () => vscode.commands.executeCommand("workbench.action.openSettings", "@ext:gemini-ls.gemini-ls")),
      register("gemini.showLog", () => this.output.show()),
      register("gemini.review.accept", (target?: unknown) => this.reviews.accept(target)),
      register("gemini.review.reject", (target?: unknown) => this.reviews.reject(target)),
      register("gemini.review.acceptHunk", (ref?: HunkRef) => this.reviews.acceptHunk(ref)),
      register("gemini.review.rejectHunk", (ref?: HunkRef) => this.reviews.rejectHunk(ref)),
      register("gemini.review.show", () => this.reviews.show()),
      register("gemini.suggestNextEdit", () => this.nextEdits.suggestNow()),
      register("gemini.acceptNextEdit", () => this.nextEdits.accept()),
      register("gemini.dismissNextEdit", () => this.nextEdits.dismiss()),
      // The command an accepted suggestion carries: the server counts it.
      register("gemini.acceptCompletion", (...args: unknown[]) => acceptCompletion(this.client, args)),
    ];
  }

  async start(): Promise<void> {
    const settings = config();
    const resolved = resolveServer({
      setting: settings.get<string>("serverPath", ""),
      env: process.env,
      platform: process.platform,
      home: os.homedir(),
      base: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      extensionDir: this.extensionDir,
    });
    if ("error" in resolved) {
      this.status.update({ server: "stopped" });
      // The welcome view says what to do; the log keeps the details.
      this.output.appendLine(resolved.error);
      this.setSetup("serverMissing");
      return;
    }
    const { client, offersInlineCompletion } = createClient(
      {
        command: resolved.command,
        model: settings.get<string>("model", ""),
        approvalMode: configuredMode(),
        inlineCompletion: inlineCompletionEnabled(),
      },
      this.output,
    );
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client === client) {
        this.status.update({ server: e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped" });
        if (e.newState === State.Running) {
          this.refreshCommands();
          void this.refreshModel();
          void this.checkSignIn();
          if (this.approvalMode !== configuredMode()) {
            // A server the client started again: the mode picked is sent anew.
            void this.sendSettings();
          }
          if (this.inline === undefined && inlineCompletionEnabled()) {
            if (offersInlineCompletion()) {
              this.inline = new InlineCompletions(client, (line) => this.output.appendLine(line)).register();
            } else {
              this.output.appendLine("gemini-ls offers no inline completion (inlineCompletion.enabled is false in its settings, or it is too old).");
            }
          }
        }
      }
    });
    client.onNotification(methods.update, (update: Update) => {
      const model = modelAfterUpdate(this.model, update);
      if (model !== this.model) {
        this.setModel(model);
      }
      this.apply({ type: "update", update });
    });
    client.onRequest(methods.confirm, (params: ConfirmParams) => confirm(params));
    // Replaces the client's own handler: the same toasts, less the echo of the pickers' settings.
    client.onNotification("window/showMessage", (params: { type: number; message: string }) => showServerMessage(params));
    client.onRequest(methods.ask, (params: unknown, token: vscode.CancellationToken) => this.answerAsk(params, token));
    client.onRequest(methods.diagnostics, (params: unknown) =>
      answerDiagnostics(
        params,
        (uri) => vscode.languages.getDiagnostics(vscode.Uri.parse(uri)).map(editorDiagnostic),
        () => vscode.languages.getDiagnostics().map(([uri, ds]) => [uri.toString(), ds.map(editorDiagnostic)] as const),
      ),
    );
    client.onRequest(methods.languageFeature, (params: unknown) =>
      answerLanguageFeature(params, editorLanguageFeatures).catch((err: unknown) => {
        if (err instanceof LanguageFeatureError) {
          // As it is: a handler's own error would reach the server prefixed "Request … failed with message:".
          return new ResponseError(err.code, err.message);
        }
        throw err;
      }),
    );
    // Replaces the client's own handler, which would apply the edit at once.
    client.onRequest(methods.applyEdit, (params: ApplyEditParams, token: vscode.CancellationToken) =>
      this.reviews.applyEdit(params, token, this.rewinding && rewindDiffTitle(this.rewinding.prompt)),
    );
    this.status.update({ server: "starting" });
    try {
      await client.start();
    } catch (err) {
      // The language client has already told the user, with a link to the log.
      this.status.update({ server: "stopped" });
      this.output.appendLine(`gemini-ls (${resolved.command}) did not start: ${errorMessage(err)}`);
      this.setSetup("serverMissing");
    }
  }

  /** Shows the welcome view in the chat's place while `need` keeps the chat from working; "" shows the chat. */
  private setSetup(need: SetupNeed): void {
    this.setup = need;
    void vscode.commands.executeCommand("setContext", "gemini.setup", need);
  }

  /**
   * Asks the server whether it can reach the model (gemini/authStatus): a
   * user without a key or a Google login gets the welcome view, with Sign
   * in with Google, instead of a chat whose every prompt would fail.
   */
  private async checkSignIn(): Promise<void> {
    const client = this.client;
    if (client === undefined) {
      return;
    }
    try {
      const report = await client.sendRequest<AuthReport>(methods.authStatus);
      if (this.client === client) {
        this.setSetup(report.usable ? "" : "signedOut");
      }
    } catch (err) {
      // An older server without gemini/authStatus: the first prompt's error says what is missing.
      if (!isMethodNotFound(err)) {
        this.output.appendLine(`asking gemini-ls how it signs in: ${errorMessage(err)}`);
      }
      this.setSetup("");
    }
  }

  private async restart(): Promise<void> {
    await this.stopPrompt();
    await this.stopClient();
    this.approvalMode = configuredMode();
    this.apply({ type: "session", mode: this.approvalMode });
    await this.start();
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.inline?.dispose();
    this.inline = undefined;
    this.nextEdits.dismiss();
    this.slashCommands.invalidate();
    this.view.postCommands([]);
    await this.reviews.cancelAll();
    if (client !== undefined) {
      try {
        await client.stop();
      } catch (err) {
        this.output.appendLine(`stopping gemini-ls: ${errorMessage(err)}`);
      }
    }
  }

  /** Applies a chat event to the state and passes it on to the view. */
  private apply(event: ChatEvent): void {
    const wasBusy = this.chat.busy;
    applyEvent(this.chat, event);
    if (this.chat.busy !== wasBusy) {
      // Gemini: Cancel's key works while a prompt runs.
      void vscode.commands.executeCommand("setContext", "gemini.busy", this.chat.busy);
    }
    if (event.type === "session" && modelForNewSession(this.model) !== this.model) {
      this.setModel(modelForNewSession(this.model));
    }
    this.view.post(event);
    this.status.update({ working: this.chat.busy, activity: runningTool(this.chat), model: this.model });
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
        this.refreshCommands();
        return;
      case "files":
        void this.sendFiles();
        return;
      case "answer":
        this.answerQuestion(request.id, request.answer);
        return;
      case "rewind":
        void this.rewind(request.turn);
        return;
      case "context":
        this.view.postContext(contextItems(editorState()));
        return;
      case "pickMode":
        void this.chooseMode();
        return;
      case "pickModel":
        void this.chooseModel();
        return;
      case "addContext":
        void this.addContext(undefined);
        return;
      case "copy":
        void vscode.env.clipboard.writeText(request.text);
        return;
      case "insertCode":
        void insertAtCursor(request.text);
        return;
    }
  }

  /**
   * gemini/ask: in the chat when it is on screen with the prompt that asks
   * running in it, otherwise with a QuickPick / InputBox. A cancelled
   * request takes the question away.
   */
  private async answerAsk(raw: unknown, token: vscode.CancellationToken): Promise<AskAnswer> {
    const params = parseAskParams(raw);
    if (params === undefined) {
      throw new Error("gemini/ask: the params are not an object");
    }
    if (!this.view.isShowing() || !canAsk(this.chat)) {
      const answer = await askWithQuickPick(params, token);
      if (!token.isCancellationRequested && canAsk(this.chat)) {
        // Answered outside the chat, it is recorded in it all the same: the question, then the answer.
        const id = ++this.lastQuestionId;
        this.apply({ type: "ask", id, params });
        this.apply({ type: "asked", id, answer: answerSummary(params, answer) });
      }
      return answer;
    }
    const id = ++this.lastQuestionId;
    return new Promise<AskAnswer>((resolve) => {
      const cancelled = token.onCancellationRequested(() => {
        if (this.questions.delete(id)) {
          this.apply({ type: "asked", id });
          resolve(declined);
        }
      });
      this.questions.set(id, {
        params,
        answer: (a) => {
          cancelled.dispose();
          resolve(a);
        },
      });
      this.apply({ type: "ask", id, params });
    });
  }

  /** The chat's answer to question `id`, checked as the server will check it. */
  private answerQuestion(id: number, answer: AskAnswer): void {
    const question = this.questions.get(id);
    if (question === undefined) {
      return;
    }
    let checked = answer;
    if (!answer.declined) {
      const built = buildAnswer(question.params, answer.chosen, answer.text);
      if ("error" in built) {
        // The form checks the same before sending; reaching here is a bug in it.
        this.output.appendLine(`gemini/ask: the chat sent an answer the question does not allow: ${built.error}`);
        return;
      }
      checked = built.answer;
    }
    this.questions.delete(id);
    this.apply({ type: "asked", id, answer: answerSummary(question.params, checked) });
    question.answer(checked);
  }

  /**
   * Goes back to before a prompt of the current session: the chat's turn
   * `turn`, or one the user picks from gemini/rewind's list. The user picks
   * the conversation, the code or both; a revert comes back as one
   * workspace/applyEdit in review. The chat then shows the session as the
   * server kept it.
   */
  private async rewind(turn?: number): Promise<void> {
    const client = this.client;
    const sessionId = this.chat.sessionId;
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showErrorMessage("gemini-ls is not running, so there is nothing to rewind.");
      return;
    }
    if (sessionId === undefined) {
      void vscode.window.showInformationMessage("This session has no prompts to rewind yet.");
      return;
    }
    if (this.running !== undefined) {
      void vscode.window.showInformationMessage("Gemini is still answering. Wait for it, or stop it first, then rewind.");
      return;
    }
    const request: Request = (method, params) => client.sendRequest(method, params);
    try {
      const prompts = parseRewindPrompts(await request(methods.rewind, { sessionId }));
      const chosen = turn === undefined ? undefined : promptForTurn(prompts, turn, this.chat.turns[turn]?.prompt ?? "");
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
      this.rewinding = { prompt: prompt.prompt };
      try {
        result = await request<RewindResult>(methods.rewind, { sessionId, prompt: prompt.prompt, mode: mode.mode satisfies RewindMode });
      } finally {
        this.rewinding = undefined;
      }
      const resumed = await resumeSession(request, sessionId, { sessionId, title: "", createdAt: "", prompts: 0 }, this.chat.mode);
      this.apply({ type: "session", sessionId, title: this.chat.sessionTitle, exchanges: resumed.exchanges, mode: resumed.mode });
      const summary = rewindSummary(result, (f) => vscode.workspace.asRelativePath(f));
      void (summary.warn ? vscode.window.showWarningMessage(summary.text) : vscode.window.showInformationMessage(summary.text));
    } catch (err) {
      void vscode.window.showErrorMessage(
        isMethodNotFound(err) ? "This gemini-ls is too old to rewind. Update gemini-ls." : `Rewinding failed: ${errorMessage(err)}`,
      );
    }
  }

  /**
   * Signs in with Google (gemini/login): the server has VS Code open
   * Google's page in the browser and waits for it; a cancellable
   * notification shows meanwhile.
   */
  private async signIn(manual: boolean): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showErrorMessage("gemini-ls is not running, so it cannot sign in.");
      return;
    }
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "Gemini: signing in with Google in your browser…", cancellable: true },
      (_progress, token) => signIn((method, params) => client.sendRequest(method, params, token), manual),
    );
    if (outcome.cancelled) {
      return;
    }
    // Signed in: the chat takes the welcome view's place.
    void this.checkSignIn();
    void (outcome.warn ? vscode.window.showWarningMessage(outcome.text) : vscode.window.showInformationMessage(outcome.text));
  }

  /**
   * Sends the chat the workspace's files for "@" completion, as the Explorer
   * and search list them (files.exclude and search.exclude left out), at
   * most maxListedFiles; listed again only once the list has aged.
   */
  private async sendFiles(): Promise<void> {
    await this.listFiles();
    this.view.postFiles(this.listedFiles?.files ?? []);
  }

  /** The workspace's files as the Explorer lists them, listed again once the last list has aged. */
  private async listFiles(): Promise<void> {
    if (this.listedFiles === undefined || Date.now() - this.listedFiles.at > filesMaxAgeMs) {
      const exclude = excludeGlob(
        vscode.workspace.getConfiguration("files").get<Record<string, unknown>>("exclude"),
        vscode.workspace.getConfiguration("search").get<Record<string, unknown>>("exclude"),
      );
      const uris = await vscode.workspace.findFiles("**/*", exclude, maxListedFiles);
      this.listedFiles = { files: uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort(), at: Date.now() };
    }
  }

  /** Brings the chat's "/" completion up to date, asking the server only if the list has aged. */
  private refreshCommands(): void {
    this.slashCommands.refresh().then(
      (list) => {
        this.view.postCommands(list.commands);
        this.noteCommands(list.errors.map((e) => `gemini/commands: ${e}`).join("\n"));
      },
      (err: unknown) => {
        // Before the server runs there is nothing to list; it is asked again once it does.
        if (this.client?.isRunning()) {
          this.noteCommands(
            isMethodNotFound(err)
              ? "This gemini-ls is too old to list its commands, so the chat cannot complete \"/\" commands. Update gemini-ls."
              : `Listing the "/" commands failed: ${errorMessage(err)}`,
          );
        }
      },
    );
  }

  private async fetchCommands(): Promise<CommandList> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      throw new Error("gemini-ls is not running");
    }
    return parseCommandList(await client.sendRequest(methods.commands, {}));
  }

  private noteCommands(note: string): void {
    if (note !== "" && note !== this.commandsNote) {
      this.output.appendLine(note);
    }
    this.commandsNote = note;
  }

  /** The model as the server reports it, for the status bar and the chat's model picker. */
  private setModel(model: ModelState | undefined): void {
    this.model = model;
    this.status.update({ model });
    this.view.postModel(modelName(model));
  }

  /** The models gemini-ls offers and the one chosen (gemini/models). */
  private async fetchModels(): Promise<ModelsResult> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      throw new Error("gemini-ls is not running");
    }
    return client.sendRequest<ModelsResult>(methods.models, {});
  }

  /** Shows the model gemini-ls starts with; an older gemini-ls, without gemini/models, shows none. */
  private async refreshModel(): Promise<void> {
    try {
      this.setModel(modelFromResult(await this.fetchModels()));
    } catch (err) {
      if (!isMethodNotFound(err)) {
        this.output.appendLine(`asking gemini-ls for its model: ${errorMessage(err)}`);
      }
    }
  }

  /**
   * The model picker: gemini-ls's list (Gemini CLI 0.61's models), the one
   * in use ticked. The choice is remembered in gemini.model, as Copilot
   * Chat remembers the model picked last, and reaches the server at once
   * (workspace/didChangeConfiguration) for every session's next request.
   */
  private async chooseModel(): Promise<void> {
    let result: ModelsResult;
    try {
      result = await this.fetchModels();
    } catch (err) {
      void vscode.window.showErrorMessage(
        isMethodNotFound(err) ? "This gemini-ls is too old to list its models. Update gemini-ls to choose the model here." : `Listing the models failed: ${errorMessage(err)}`,
      );
      return;
    }
    this.setModel(modelFromResult(result));
    const choice = await vscode.window.showQuickPick(modelPicks(result.models, result.current), {
      title: "Gemini: Choose Model",
      placeHolder: `Current: ${result.currentName}`,
      matchOnDescription: true,
    });
    if (choice === undefined || choice.id === result.current) {
      return;
    }
    if (config().get<string>("model", "").trim() === choice.id) {
      // The setting names it already (a /model set chose another since): no change event would send it.
      await this.sendSettings();
      await this.refreshModel();
      return;
    }
    // Where the model is set now (a workspace's settings win over the user's), so the choice takes.
    const inspected = config().inspect<string>("model");
    const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    // The settings change sends it to the server (onDidChangeConfiguration).
    await config().update("model", choice.id, target);
  }

  /**
   * The mode picker: the approval modes in 0.61's words. The choice holds
   * for every session until VS Code restarts gemini-ls (then the
   * gemini.approvalMode setting's mode), as 0.61's Shift+Tab holds until
   * it exits; it is not saved, so YOLO is never left on by accident.
   */
  private async chooseMode(): Promise<void> {
    // The session's mode, which may be its own (plan mode the model entered).
    const current = this.chat.mode;
    const picks = approvalModes.map((m) => ({ label: (m.mode === current ? "$(check) " : "") + m.label, detail: m.detail, mode: m.mode }));
    const choice = await vscode.window.showQuickPick(picks, { title: "Gemini: Choose Approval Mode", placeHolder: "What may Gemini do without asking?" });
    if (choice !== undefined && choice.mode !== current) {
      await this.setApprovalMode(choice.mode);
    }
  }

  private async setApprovalMode(mode: ApprovalMode): Promise<void> {
    this.approvalMode = mode;
    this.apply({ type: "mode", mode });
    await this.sendSettings();
  }

  /**
   * Sends the server the model and approval mode chosen now. Both every
   * time: the server reads a change over its settings files, and a mode
   * or model left out would go back to the one it started with.
   */
  private async sendSettings(): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      return;
    }
    const gemini: Record<string, string> = { approvalMode: this.approvalMode };
    const model = config().get<string>("model", "").trim();
    if (model !== "") {
      gemini.model = model;
    }
    await client.sendNotification(methods.didChangeConfiguration, { settings: { gemini } });
  }

  /**
   * Add Context: the active file, its selection, the open editors, or any
   * file of the workspace, put into the prompt as the "@" reference the
   * server reads. From the Explorer or an editor's title, the file clicked.
   */
  private async addContext(target: unknown): Promise<void> {
    if (target instanceof vscode.Uri) {
      await this.openChat();
      this.view.insertIntoPrompt(`@${referencePath(vscode.workspace.asRelativePath(target, false))}`);
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
      await this.listFiles();
      const file = await vscode.window.showQuickPick(this.listedFiles?.files ?? [], { title: "Gemini: Add Context", placeHolder: "A file of the workspace" });
      reference = file === undefined ? undefined : `@${referencePath(file)}`;
    }
    if (reference !== undefined) {
      await this.openChat();
      this.view.insertIntoPrompt(reference);
    }
  }

  /** Shows the chat, or the welcome view in its place while the chat cannot work. */
  private async openChat(): Promise<void> {
    await vscode.commands.executeCommand(`${this.setup === "" ? chatViewId : welcomeViewId}.focus`);
  }

  /** Sends a prompt in the current session and shows it in the chat. */
  private async prompt(text: string, context: PromptContext | undefined): Promise<void> {
    await this.openChat();
    if (this.setup !== "") {
      // The welcome view is on screen and says what to do first.
      return;
    }
    if (this.running !== undefined) {
      void vscode.window.showInformationMessage("Gemini is still answering. Wait for it, or stop it first.");
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
        this.apply({ type: "failed", message: errorMessage(err) });
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

  private async cancel(): Promise<void> {
    const running = this.running;
    if (running === undefined) {
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
  private async stopPrompt(): Promise<void> {
    const running = this.running;
    if (running === undefined) {
      return;
    }
    await this.cancel();
    await Promise.race([running.done, new Promise((resolve) => setTimeout(resolve, stopWaitMs))]);
  }

  private async newSession(): Promise<void> {
    await this.stopPrompt();
    this.apply({ type: "session", mode: this.approvalMode });
    await this.openChat();
  }

  /**
   * Lists the workspace's sessions, live and saved by an earlier gemini-ls,
   * and continues the one the user picks: the server resumes it and the chat
   * shows what was said in it before the next prompt goes on. Each row's
   * trash button deletes its session.
   */
  private async pickSession(): Promise<void> {
    const client = this.client;
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
    const picks = sessionPicks(sessions, this.chat.sessionId, new Date());
    if (picks.length === 0) {
      void vscode.window.showInformationMessage("There are no earlier Gemini sessions yet.");
      return;
    }
    const choice = await this.chooseSession(picks, request);
    if (choice === undefined || choice.sessionId === this.chat.sessionId) {
      return;
    }
    await this.stopPrompt();
    let resumed: Required<ResumeSessionResult>;
    try {
      resumed = await resumeSession(request, choice.sessionId, choice.session, this.approvalMode);
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not continue the session “${choice.title}”: ${errorMessage(err)}`);
      return;
    }
    this.apply({ type: "session", sessionId: resumed.session.sessionId, title: choice.title, exchanges: resumed.exchanges, mode: resumed.mode });
    await this.openChat();
  }

  /**
   * Asks which of `picks` to continue. A row's trash button deletes its
   * session once the user confirms, and the list goes on without it.
   */
  private chooseSession(picks: SessionPick[], request: Request): Promise<SessionPick | undefined> {
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
        const deleted = await this.deletePickedSession(request, item);
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
  private async deletePickedSession(request: Request, pick: SessionPick): Promise<boolean> {
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
    if (pick.sessionId === this.chat.sessionId) {
      this.apply({ type: "session", mode: this.approvalMode });
    }
    return true;
  }

  private async ask(arg: unknown): Promise<void> {
    const text =
      typeof arg === "string" && arg.trim() !== ""
        ? arg
        : await vscode.window.showInputBox({ title: "Gemini: Ask", prompt: "Ask Gemini (the current file, selection and diagnostics go with it)" });
    if (text !== undefined && text.trim() !== "") {
      await this.prompt(text, editorContext());
    }
  }

  private async explain(): Promise<void> {
    const snapshot = editorSnapshot();
    if (snapshot === undefined) {
      void vscode.window.showInformationMessage("Open a file and select the code to explain.");
      return;
    }
    await this.prompt(explainPrompt(snapshot.selection), promptContext(snapshot));
  }

  private async fixDiagnostics(): Promise<void> {
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
    await this.prompt(fixPrompt(diagnostics), promptContext({ ...snapshot, diagnostics }));
  }

  private async askSelection(arg: unknown): Promise<void> {
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
      await this.prompt(question, promptContext(snapshot));
    }
  }

  /**
   * Rewrites the selection (the cursor's line when nothing is selected) as
   * the user instructs, without the chat (gemini/editSelection): one model
   * call, whose rewrite opens in the review like any edit, and a message
   * says what became of it.
   */
  private async editSelection(arg: unknown): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      void vscode.window.showInformationMessage("Open a file and select the code for Gemini to edit.");
      return;
    }
    const client = this.client;
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

  async shutdown(): Promise<void> {
    await this.stopClient();
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("gemini");
}

/** gemini.inlineCompletion.enabled: ghost text as you type and next edit suggestions. */
function inlineCompletionEnabled(): boolean {
  return config().get<boolean>("inlineCompletion.enabled", true);
}

/** The approval mode a session starts in: the one sent to the server in initializationOptions. */
function configuredMode(): string {
  return config().get<string>("approvalMode", "default");
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The active editor as plain data, or undefined when no text editor is active. */
function editorSnapshot(): EditorSnapshot | undefined {
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
function editorDiagnostic(d: vscode.Diagnostic): EditorDiagnostic {
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
function editorState(): EditorState {
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
async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (editor === undefined) {
    void vscode.window.showInformationMessage("Open a file to insert the code into.");
    return;
  }
  await editor.edit((b) => b.replace(editor.selection, text));
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}

/** The review's name for a rewind's revert, so it does not read as one more of the agent's edits. */
function rewindDiffTitle(prompt: number): (file: string) => string {
  return (file) => `Rewind: ${file} (now ↔ before prompt ${prompt})`;
}

/** window/showMessage as the language client shows it, less the echo of the pickers' settings (isSettingsEcho). */
function showServerMessage({ type, message }: { type: number; message: string }): void {
  if (isSettingsEcho(message)) {
    return;
  }
  switch (type) {
    case 1:
      void vscode.window.showErrorMessage(message);
      return;
    case 2:
      void vscode.window.showWarningMessage(message);
      return;
    default:
      void vscode.window.showInformationMessage(message);
  }
}

function editorContext(): PromptContext | undefined {
  const snapshot = editorSnapshot();
  return snapshot && promptContext(snapshot);
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

/** gemini/confirm as VS Code's own modal: its buttons (Allow Once, and Always Allow where it would hold), or dismiss to reject. */
async function confirm(params: ConfirmParams): Promise<{ outcome: ConfirmOutcome }> {
  const buttons = confirmButtons(params);
  const choice = await vscode.window.showWarningMessage(params.title, { modal: true, detail: params.details }, ...buttons.map((b) => b.label));
  return { outcome: confirmOutcome(params, choice) };
}
