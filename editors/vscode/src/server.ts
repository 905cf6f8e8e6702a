// gemini-ls itself: finding and starting it (or the welcome view saying
// what is missing), the handlers of what it sends, signing in, restarting
// and stopping it.

import * as os from "node:os";
import * as vscode from "vscode";
import { ResponseError, State, type LanguageClient } from "vscode-languageclient/node";
import { receiveAgent, refreshAgents } from "./agentCommands";
import { belongsToChat } from "./agents";
import { createClient } from "./client";
import { InlineCompletions } from "./completion";
import { answerDiagnostics } from "./diagnostics";
import { editorDiagnostic } from "./editorCommands";
import type { Gemini, SetupNeed } from "./gemini";
import { answerLanguageFeature, LanguageFeatureError } from "./languageFeatures";
import { keyWorks, keyWorksContext, signIn as signInWithGoogle } from "./login";
import { refreshModel, sendSettings, setModel } from "./modelCommands";
import { isSettingsEcho } from "./present";
import { methods, type AuthReport, type ConfirmParams, type Update } from "./protocol";
import type { ApplyEditParams } from "./review";
import { resolveServer } from "./serverPath";
import { isMethodNotFound } from "./sessions";
import { rewindDiffTitle } from "./sessionCommands";
import { configuredMode, config, errorMessage, inlineCompletionEnabled } from "./settings";
import { editorLanguageFeatures } from "./editorLanguageFeatures";
import { receiveUpdate, serverToClient } from "./updates";
import { keyEnv } from "./apiKey";
import { trustEnv } from "./trust";

/** Starts gemini-ls with the handlers of what it sends; the welcome view says so when it cannot be found or started. */
export async function start(g: Gemini): Promise<void> {
  const settings = config();
  const resolved = resolveServer({
    setting: settings.get<string>("serverPath", ""),
    env: process.env,
    platform: process.platform,
    home: os.homedir(),
    base: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    extensionDir: g.extensionDir,
  });
  if ("error" in resolved) {
    g.status.update({ server: "stopped" });
    // The welcome view says what to do; the log keeps the details.
    g.output.appendLine(resolved.error);
    setSetup(g, "serverMissing");
    return;
  }
  const { client, offersInlineCompletion } = createClient(
    {
      command: resolved.command,
      model: settings.get<string>("model", ""),
      approvalMode: configuredMode(),
      inlineCompletion: inlineCompletionEnabled(),
      env: { ...trustEnv(vscode.workspace.isTrusted), ...(await keyEnv(g.secrets)) },
      workspaceTrust: vscode.workspace.isTrusted,
    },
    g.output,
  );
  g.client = client;
  client.onDidChangeState((e) => {
    if (g.client === client) {
      g.status.update({ server: e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped" });
      if (e.newState === State.Running) {
        g.completion.refreshCommands();
        void refreshModel(g);
        g.languageModels.refresh();
        void checkSignIn(g);
        void refreshAgents(g);
        if (g.approvalMode !== configuredMode()) {
          // A server the client started again: the mode picked is sent anew.
          void sendSettings(g);
        }
        if (g.inline === undefined && inlineCompletionEnabled()) {
          if (offersInlineCompletion()) {
            g.inline = new InlineCompletions(client, (line) => g.output.appendLine(line)).register();
          } else {
            g.output.appendLine("gemini-ls offers no inline completion (inlineCompletion.enabled is false in its settings, or it is too old).");
          }
        }
      }
    }
  });
  registerHandlers(g, client);
  g.status.update({ server: "starting" });
  try {
    await client.start();
  } catch (err) {
    // The language client has already told the user, with a link to the log.
    g.status.update({ server: "stopped" });
    g.output.appendLine(`gemini-ls (${resolved.command}) did not start: ${errorMessage(err)}`);
    setSetup(g, "serverMissing");
  }
}

type Notification = (typeof serverToClient.notifications)[number];
type Request = (typeof serverToClient.requests)[number];

/**
 * Registers a handler for each method of serverToClient: what gemini-ls
 * sends besides what the language client handles itself. Some replace the
 * client's own (window/showMessage, workspace/applyEdit).
 */
function registerHandlers(g: Gemini, client: LanguageClient): void {
  const notifications: Record<Notification, (params: any) => void> = {
    [methods.update]: (update: Update) => {
      // An agent's updates are its own chat's: shown when the chat shows it.
      if (!belongsToChat(update.sessionId, g.chat.sessionId, (id) => g.agents.list.has(id))) {
        return;
      }
      receiveUpdate(update, {
        model: () => g.model,
        setModel: (model) => setModel(g, model),
        apply: (event) => g.apply(event),
        reloadCommands: () => g.completion.reloadCommands(),
      });
    },
    [methods.agent]: (params: unknown) => receiveAgent(g, params),
    // The same toasts as the client's own handler, less the echo of the pickers' settings.
    "window/showMessage": (params: { type: number; message: string }) => showServerMessage(params),
  };
  const requests: Record<Request, (params: any, token: vscode.CancellationToken) => unknown> = {
    [methods.confirm]: (params: ConfirmParams, token) => g.questions.answerConfirm(params, token),
    [methods.ask]: (params: unknown, token) => g.questions.answerAsk(params, token),
    [methods.diagnostics]: (params: unknown) =>
      answerDiagnostics(
        params,
        (uri) => vscode.languages.getDiagnostics(vscode.Uri.parse(uri)).map(editorDiagnostic),
        () => vscode.languages.getDiagnostics().map(([uri, ds]) => [uri.toString(), ds.map(editorDiagnostic)] as const),
      ),
    [methods.languageFeature]: (params: unknown) =>
      answerLanguageFeature(params, editorLanguageFeatures).catch((err: unknown) => {
        if (err instanceof LanguageFeatureError) {
          // As it is: a handler's own error would reach the server prefixed "Request … failed with message:".
          return new ResponseError(err.code, err.message);
        }
        throw err;
      }),
    // The edit goes to the review, where the client's own handler would apply it at once.
    [methods.applyEdit]: (params: ApplyEditParams, token) => g.reviews.applyEdit(params, token, g.rewinding && rewindDiffTitle(g.rewinding.prompt)),
  };
  for (const method of serverToClient.notifications) {
    client.onNotification(method, notifications[method]);
  }
  for (const method of serverToClient.requests) {
    client.onRequest(method, requests[method]);
  }
}

/** Shows the welcome view in the chat's place while `need` keeps the chat from working; "" shows the chat. */
export function setSetup(g: Gemini, need: SetupNeed): void {
  g.setup = need;
  void vscode.commands.executeCommand("setContext", "gemini.setup", need);
}

/**
 * Asks the server whether it can reach the model (gemini/authStatus): a
 * user without a key or a Google login gets the welcome view, with Sign
 * in with Google, instead of a chat whose every prompt would fail.
 */
export async function checkSignIn(g: Gemini): Promise<void> {
  const client = g.client;
  if (client === undefined) {
    return;
  }
  try {
    const report = await client.sendRequest<AuthReport>(methods.authStatus);
    if (g.client === client) {
      setSetup(g, report.usable ? "" : "signedOut");
      void vscode.commands.executeCommand("setContext", keyWorksContext, keyWorks(report));
      g.status.update({ authProblem: report.usable ? undefined : report.problem || "Gemini has no API key and no Google login." });
    }
  } catch (err) {
    // An older server without gemini/authStatus: the first prompt's error says what is missing.
    if (!isMethodNotFound(err)) {
      g.output.appendLine(`asking gemini-ls how it signs in: ${errorMessage(err)}`);
    }
    setSetup(g, "");
    void vscode.commands.executeCommand("setContext", keyWorksContext, false);
  }
}

/** Starts gemini-ls again (a setting it starts with changed), in a new session. */
export async function restart(g: Gemini): Promise<void> {
  await g.stopPrompt();
  await stopClient(g);
  g.approvalMode = configuredMode();
  g.apply({ type: "session", mode: g.approvalMode });
  await start(g);
}

/**
 * Starts gemini-ls again with the chat as it is: VS Code trusted the folder
 * mid-conversation (trust.ts). The conversation stays in view, and its next
 * prompt continues the same session, which the new gemini-ls resumes from
 * the file the old one saved (a saved session resumes when the client
 * prompts it). The mode picked holds (start sends it anew); a prompt
 * running then is stopped, and a review open is put back, as on any
 * restart, since the gemini-ls that waited for them is gone.
 */
export async function restartInSession(g: Gemini): Promise<void> {
  await g.stopPrompt();
  await stopClient(g);
  await start(g);
}

/** Stops gemini-ls: what it offered (inline completion, next edits, the "/" commands, the reviews) goes with it. */
export async function stopClient(g: Gemini): Promise<void> {
  const client = g.client;
  g.client = undefined;
  g.inline?.dispose();
  g.inline = undefined;
  g.nextEdits.dismiss();
  g.completion.forgetCommands();
  g.agents.clear();
  await g.reviews.cancelAll();
  if (client !== undefined) {
    try {
      await client.stop();
    } catch (err) {
      g.output.appendLine(`stopping gemini-ls: ${errorMessage(err)}`);
    }
  }
}

/**
 * Signs in with Google (gemini/login): the server has VS Code open
 * Google's page in the browser and waits for it; a cancellable
 * notification shows meanwhile.
 */
export async function signIn(g: Gemini, manual: boolean): Promise<void> {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("gemini-ls is not running, so it cannot sign in.");
    return;
  }
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Gemini: signing in with Google in your browser…", cancellable: true },
    (_progress, token) => signInWithGoogle((method, params) => client.sendRequest(method, params, token), manual),
  );
  if (outcome.cancelled) {
    return;
  }
  // Signed in: the chat takes the welcome view's place.
  void checkSignIn(g);
  void (outcome.warn ? vscode.window.showWarningMessage(outcome.text) : vscode.window.showInformationMessage(outcome.text));
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
