// The chat view in the side bar: a webview that renders the chat state and
// sends the user's prompts, answers and picks back. New Session, History and
// the rest are icons in the view's title bar (package.json), as Copilot
// Chat's are, so the session's title has the view's whole width.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import type { ChatEvent, ChatState } from "./chatModel";
import { parseChatRequest, type ChatMessage, type ChatRequest, type PickerItem } from "./chatProtocol";
import type { ContextItem } from "./contextItems";
import type { SlashCommand } from "./slashCommands";

export const chatViewId = "gemini.chat";
/** The view in the chat's place while it cannot work: package.json's viewsWelcome says what to do. */
export const welcomeViewId = "gemini.welcome";

/** A place the chat is drawn: the side bar's view, or an editor tab. */
interface Surface {
  webview: vscode.Webview;
  visible(): boolean;
  /** The webview has loaded its script and been sent the whole state. */
  ready: boolean;
}

export class ChatView implements vscode.WebviewViewProvider {
  /** Where the chat is drawn now; each follows the same state, event by event. */
  private readonly surfaces: Surface[] = [];
  /** The chat in an editor tab, when one is open. */
  private panel?: vscode.WebviewPanel;
  /** References for the prompt box that came while the webview was loading. */
  private pendingInserts: string[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly state: () => ChatState,
    private readonly commands: () => SlashCommand[],
    /** The model as the picker shows it. */
    private readonly model: () => string,
    /** Whether VS Code trusts the workspace: not, the chat says Restricted Mode. */
    private readonly trusted: () => boolean,
    private readonly onRequest: (request: Exclude<ChatRequest, { type: "ready" }>) => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.attach(view.webview, () => view.visible, view.onDidDispose);
  }

  /** Opens the chat in an editor tab beside the active editor, as Copilot Chat's and Claude Code's can be; the same session as the side bar's. */
  openInEditor(): void {
    if (this.panel !== undefined) {
      this.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel("gemini.chatEditor", "Gemini Chat", vscode.ViewColumn.Beside, { retainContextWhenHidden: true });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "gemini.svg");
    this.panel = panel;
    panel.onDidDispose(() => (this.panel = undefined));
    this.attach(panel.webview, () => panel.visible, panel.onDidDispose);
  }

  private attach(webview: vscode.Webview, visible: () => boolean, onDidDispose: vscode.Event<void>): void {
    const surface: Surface = { webview, visible, ready: false };
    this.surfaces.push(surface);
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    webview.options = { enableScripts: true, localResourceRoots: [media, dist] };
    webview.html = this.html(webview, media, dist);
    webview.onDidReceiveMessage((msg: unknown) => {
      const request = parseChatRequest(msg);
      if (request?.type === "ready") {
        // From here on the surface follows event by event.
        surface.ready = true;
        const send = (m: ChatMessage) => void webview.postMessage(m);
        send({ type: "state", state: this.state() });
        send({ type: "commands", commands: this.commands() });
        send({ type: "model", label: this.model() });
        send({ type: "trust", trusted: this.trusted() });
        for (const text of this.pendingInserts.splice(0)) {
          send({ type: "insertPrompt", text });
        }
        // The chat has opened: a good moment to bring the command list up to date.
        this.onRequest({ type: "commands" });
      } else if (request !== undefined) {
        this.onRequest(request);
      }
    });
    onDidDispose(() => this.surfaces.splice(this.surfaces.indexOf(surface), 1));
  }

  /** Whether the chat is on screen to show a question in. */
  isShowing(): boolean {
    return this.surfaces.some((s) => s.ready && s.visible());
  }

  /** Forwards an event the extension already applied to its state. */
  post(event: ChatEvent): void {
    this.postMessage({ type: "event", event });
  }

  /** Sends the files the prompt box completes after "@". */
  postFiles(files: string[]): void {
    this.postMessage({ type: "files", files });
  }

  /** Sends the "#" items for the editor as it is. */
  postContext(items: ContextItem[]): void {
    this.postMessage({ type: "context", items });
  }

  /** Sends the model as the model picker shows it. */
  postModel(label: string): void {
    this.postMessage({ type: "model", label });
  }

  /** Sends the server's models to the model picker's menu at the prompt. */
  postModels(models: PickerItem[]): void {
    this.postMessage({ type: "models", models });
  }

  /** Says whether VS Code trusts the workspace now. */
  postTrust(trusted: boolean): void {
    this.postMessage({ type: "trust", trusted });
  }

  /** Empties the prompt box of `text`, which went elsewhere (a background agent); a box the user changed since is left alone. */
  clearPrompt(text: string): void {
    this.postMessage({ type: "clearPrompt", text });
  }

  /** Puts a reference into the prompt box at its caret, once the webview has loaded. */
  insertIntoPrompt(text: string): void {
    if (this.surfaces.some((s) => s.ready)) {
      this.postMessage({ type: "insertPrompt", text });
    } else {
      this.pendingInserts.push(text);
    }
  }

  private postMessage(message: ChatMessage): void {
    for (const surface of this.surfaces) {
      if (surface.ready) {
        void surface.webview.postMessage(message);
      }
    }
  }

  /** Sends the commands the prompt box completes after "/". */
  postCommands(commands: SlashCommand[]): void {
    this.postMessage({ type: "commands", commands });
  }

  private html(webview: vscode.Webview, media: vscode.Uri, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString("base64");
    const css = webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css"));
    // VS Code's icons (codicons), which the extension carries: a webview cannot use the workbench's font.
    const codicons = webview.asWebviewUri(vscode.Uri.joinPath(dist, "codicons", "codicon.css"));
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js"));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons}">
<link rel="stylesheet" href="${css}">
<title>Gemini</title>
</head>
<body>
<header class="session-header">
  <span id="session-title" class="session-title">New session</span>
</header>
<div id="restricted" class="banner" role="status" hidden>
  <span><strong>Restricted Mode.</strong> Gemini does not read this folder's .gemini/ (settings, commands, hooks, MCP servers) nor its GEMINI.md.</span>
  <button type="button" class="secondary" data-command="workbench.trust.manage">Manage Workspace Trust</button>
</div>
<div id="messages" role="log" aria-live="polite">
  <div id="empty" class="empty">Ask Gemini about your code. The current file, selection and diagnostics go with each prompt. Every change is shown as a diff for you to accept or reject.
    <div class="suggestions" aria-label="Suggested prompts">
      <button type="button" class="chip" data-suggest="Explain what the current file does.">Explain the current file</button>
      <button type="button" class="chip" data-suggest="Find bugs in the selected code and explain each one.">Find bugs in the selection</button>
      <button type="button" class="chip" data-suggest="Write unit tests for the current file.">Write tests for this file</button>
    </div>
  </div>
</div>
<section id="plan" class="plan" aria-label="Plan" hidden>
  <div class="plan-title">Plan <span id="plan-count" class="plan-count"></span></div>
  <ol id="plan-items" class="plan-items"></ol>
</section>
<div id="pending-review" class="pending-review" role="status" hidden>
  <div class="pending-review-title">Waiting for your review</div>
  <ul id="pending-review-files" class="file-list"></ul>
  <div class="command-buttons">
    <button type="button" data-command="gemini.review.accept">Accept</button>
    <button type="button" class="secondary" data-command="gemini.review.reject">Reject</button>
    <button type="button" class="secondary" data-command="gemini.review.show">Show Diff</button>
  </div>
</div>
<div id="working" class="working" hidden><span class="spinner" aria-hidden="true"></span><span id="working-text">Working…</span></div>
<form id="composer" class="composer">
  <div class="prompt-box">
    <ul id="command-list" class="command-list" role="listbox" aria-label="Commands" hidden></ul>
    <ul id="picker-menu" class="picker-menu" role="listbox" tabindex="-1" hidden></ul>
    <div class="context-row">
      <button id="add-context" type="button" class="chip" title="Add a file, the selection or the open editors to the prompt"><span class="codicon codicon-attach" aria-hidden="true"></span><span>Add Context…</span></button>
    </div>
    <div class="input-wrap">
      <div id="ghost" class="ghost" aria-hidden="true" hidden><span id="ghost-typed" class="ghost-typed"></span><span id="ghost-hint" class="ghost-hint"></span></div>
      <textarea id="prompt" rows="2" placeholder="Ask Gemini… (@ a file, # the editor, / a command)" aria-label="Prompt" aria-autocomplete="list" aria-controls="command-list" aria-expanded="false" aria-describedby="command-hint mode-hint"></textarea>
    </div>
    <span id="command-hint" class="visually-hidden" role="status" aria-live="polite"></span>
    <span id="mode-hint" class="visually-hidden">Shift+Tab switches the approval mode.</span>
    <div class="actions">
      <button id="mode-picker" type="button" class="picker" aria-haspopup="listbox" aria-expanded="false" aria-controls="picker-menu" title="Approval mode: what Gemini may do without asking (Shift+Tab in the prompt switches it)"><span class="visually-hidden">Approval mode: </span><span id="mode-text">Manual</span><span class="codicon codicon-chevron-down" aria-hidden="true"></span></button>
      <button id="model-picker" type="button" class="picker" aria-haspopup="listbox" aria-expanded="false" aria-controls="picker-menu" title="Model"><span class="visually-hidden">Model: </span><span id="model-text">Model</span><span class="codicon codicon-chevron-down" aria-hidden="true"></span></button>
      <span class="spacer"></span>
      <button id="stop" type="button" class="icon-button" title="Stop (Escape)" aria-label="Stop" hidden><span class="codicon codicon-debug-stop" aria-hidden="true"></span></button>
      <button id="background" type="button" class="icon-button" title="Run in the Background: on GitHub Actions, as a pull request" aria-label="Run in the Background"><span class="codicon codicon-cloud-upload" aria-hidden="true"></span></button>
      <button id="send" type="submit" class="icon-button send" title="Send (Enter)" aria-label="Send"><span class="codicon codicon-send" aria-hidden="true"></span></button>
    </div>
  </div>
  <span id="usage" class="usage" hidden></span>
</form>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}
