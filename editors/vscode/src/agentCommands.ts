// What the Agents view does (issue 97): start an agent in a worktree of its
// own, open its chat, stop it, land its work (reviewed hunk by hunk, or
// merged with git), discard it; and what the server's gemini/agent
// notifications call for: the row, a notification with Open, and the end of
// the chat's turn when the chat shows the agent. Background agents (issue
// 98): run a task on GitHub Actions (gemini/delegate), open its run and pull
// request, send it a follow-up; once its branch is fetched it lands as a
// local agent's work does.

import * as vscode from "vscode";
import {
  agentKey,
  agentTitle,
  conflictsDocument,
  delegateParams,
  followUpParams,
  followUpProblem,
  noticeText,
  parseLandResult,
  startAgentParams,
  turnEndOf,
  worktreeNameProblem,
  type Agent,
} from "./agents";
import { agentsViewId, type AgentNode } from "./agentsView";
import type { Gemini } from "./gemini";
import { methods, type PromptResult } from "./protocol";
import { isMethodNotFound, resumeSession, type Request } from "./sessions";
import { errorMessage } from "./settings";

/** The scheme of the read-only documents that show a land's conflicts, both sides. */
export const conflictsScheme = "gemini-agent-conflicts";

function request(g: Gemini): Request | undefined {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("gemini-ls is not running, so it runs no agents. Run “Gemini: Restart Server”.");
    return undefined;
  }
  return (method, params) => client.sendRequest(method, params);
}

/** Asks the server for its agents (gemini/agents); a server too old to run them shows none. */
export async function refreshAgents(g: Gemini): Promise<void> {
  const client = g.client;
  if (client === undefined || !client.isRunning()) {
    return;
  }
  try {
    g.agents.replace(await client.sendRequest(methods.agents, {}));
  } catch (err) {
    g.agents.clear();
    if (!isMethodNotFound(err)) {
      g.output.appendLine(`asking gemini-ls for its agents: ${errorMessage(err)}`);
    }
  }
}

/**
 * New Agent…: asks for the task and, optionally, the worktree's name, then
 * sends the prompt that starts it. The request runs the whole turn; the
 * agent's row comes at once from its gemini/agent notification, so nothing
 * waits on it here but the error of a prompt the server refused.
 */
export async function newAgent(g: Gemini): Promise<void> {
  const send = request(g);
  if (send === undefined) {
    return;
  }
  if (!g.agents.supported) {
    await refreshAgents(g);
  }
  if (!g.agents.supported) {
    // An older server would run the prompt in the user's own tree, not a worktree.
    void vscode.window.showErrorMessage("This gemini-ls is too old to run agents in worktrees. Update gemini-ls.");
    return;
  }
  const task = await vscode.window.showInputBox({
    title: "New Agent (1/2)",
    prompt: "What should the agent do? It works in a git worktree of its own; nothing reaches your files until you land it.",
    placeHolder: "Fix the failing login test",
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === "" ? "Say what the agent should do." : undefined),
  });
  if (task === undefined) {
    return;
  }
  const name = await vscode.window.showInputBox({
    title: "New Agent (2/2)",
    prompt: "The worktree's name (.gemini/worktrees/NAME, on branch worktree-NAME). Leave it empty for a generated one.",
    placeHolder: "fix-login",
    ignoreFocusOut: true,
    validateInput: (v) => worktreeNameProblem(v.trim()),
  });
  if (name === undefined) {
    return;
  }
  await g.agents.reveal();
  void send<PromptResult>(methods.prompt, startAgentParams(task.trim(), name)).then(
    (result) => g.output.appendLine(`agent ${result?.sessionId ?? "?"}: its turn ended (${result?.stopReason ?? "no answer"})`),
    (err: unknown) => void vscode.window.showErrorMessage(`The agent did not start: ${errorMessage(err)}`),
  );
}

/** The agent of a row the user acted on; a command from the palette picks one. */
async function agentFor(g: Gemini, node: AgentNode | undefined, filter: (a: Agent) => boolean): Promise<Agent | undefined> {
  const agent = g.agents.agentOf(node);
  if (agent !== undefined) {
    return agent;
  }
  const candidates = g.agents.list.all().filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage("There is no agent to do that to.");
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    candidates.map((a) => ({ label: agentTitle(a), description: a.background !== undefined ? "on GitHub" : (a.worktree?.name ?? ""), agent: a })),
    { title: "Gemini: Agents", placeHolder: "Which agent?" },
  );
  return pick?.agent;
}

/**
 * Shows the agent's session in the chat: the server replays what was said
 * (gemini/resumeSession), the chat's prompts go to it from then on, and
 * while it works its updates stream into an open turn, with the questions
 * it asked meanwhile.
 */
export async function openAgentChat(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, (a) => a.sessionId !== "");
  if (agent === undefined) {
    return;
  }
  if (agent.sessionId === "") {
    void vscode.window.showInformationMessage(
      agent.background !== undefined
        ? `“${agentTitle(agent)}” runs on GitHub: it has no chat here. Open its run or its pull request.`
        : `The worktree “${agent.worktree?.name ?? ""}” has no saved session to open. Land or discard it.`,
    );
    return;
  }
  if (g.chat.sessionId === agent.sessionId) {
    await g.openChat();
    return;
  }
  if (g.running !== undefined) {
    // The chat's own prompt streams into the chat: switching would hide the rest of its answer.
    void vscode.window.showInformationMessage("Gemini is still answering in the chat. Wait for it, or stop it, then open the agent's chat.");
    return;
  }
  const send = request(g);
  if (send === undefined) {
    return;
  }
  let resumed;
  try {
    resumed = await resumeSession(send, agent.sessionId, { sessionId: agent.sessionId, title: agent.title, createdAt: "", updatedAt: "", prompts: 0, live: true }, g.approvalMode);
  } catch (err) {
    void vscode.window.showErrorMessage(`Could not open the chat of the agent “${agentTitle(agent)}”: ${errorMessage(err)}`);
    return;
  }
  g.apply({ type: "session", sessionId: agent.sessionId, title: agentTitle(agent), exchanges: resumed.exchanges, mode: resumed.mode, usage: resumed.usage });
  // The prompt running now is not among the replayed ones: its turn opens here, and its updates fill it.
  const now = g.agents.list.get(agent.sessionId) ?? agent;
  if (now.state === "working" || now.state === "waiting") {
    g.apply({ type: "prompt", text: now.title });
  }
  g.questions.showHeld();
  await g.openChat();
}

/** Stops the agent's turn (gemini/cancel); its worktree and session stay. */
export async function stopAgent(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, (a) => a.state === "working" || a.state === "waiting");
  if (agent === undefined || agent.sessionId === "") {
    return;
  }
  await g.client?.sendNotification(methods.cancel, { sessionId: agent.sessionId });
}

/**
 * Lands the agent's work in the user's tree: "review" as one edit the
 * review shows hunk by hunk (the conflicts left out and shown, both
 * sides), or "merge" with git. The server's message says what happened.
 */
export async function landAgent(g: Gemini, node: AgentNode | undefined, how: "review" | "merge"): Promise<void> {
  const agent = await agentFor(g, node, (a) => a.worktree !== undefined && a.state !== "working" && a.state !== "queued");
  const send = agent && request(g);
  if (agent === undefined || send === undefined) {
    return;
  }
  if (agent.worktree === undefined) {
    void vscode.window.showInformationMessage(`“${agentTitle(agent)}” has no local worktree yet: its work comes here when its run on GitHub is done.`);
    return;
  }
  // A worktree found on disk with no session, and a background agent's, are named by their worktree.
  const params = agent.sessionId === "" ? { worktree: agent.worktree.name, how } : { sessionId: agent.sessionId, how };
  let raw: unknown;
  try {
    raw = await vscode.window.withProgress({ location: { viewId: "gemini.agents" } }, () => send(methods.landAgent, params));
  } catch (err) {
    void vscode.window.showErrorMessage(`Landing “${agentTitle(agent)}” failed: ${errorMessage(err)}`);
    return;
  }
  const result = parseLandResult(raw);
  const message = result.message || (result.applied ? `Landed the work of “${agentTitle(agent)}”.` : `Nothing of “${agentTitle(agent)}” was landed.`);
  if (result.conflicts.length > 0) {
    await showConflicts(agentTitle(agent), result);
    void vscode.window.showWarningMessage(message);
  } else {
    void (result.applied ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
  }
}

/** The land's conflicts, both sides, in a read-only Markdown document beside the editor. */
async function showConflicts(title: string, result: ReturnType<typeof parseLandResult>): Promise<void> {
  const text = conflictsDocument(title, result, (p) => vscode.workspace.asRelativePath(p));
  const uri = vscode.Uri.from({ scheme: conflictsScheme, path: `/Conflicts of ${title.replace(/[/\\]/g, " ")}.md`, query: String(Date.now()) });
  conflictDocs.set(uri.toString(), text);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, "markdown");
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

/** The conflicts documents shown in this window, by URI; they go when VS Code closes. */
const conflictDocs = new Map<string, string>();

/** Serves the conflicts documents (registered for conflictsScheme). */
export const conflictsProvider: vscode.TextDocumentContentProvider = {
  provideTextDocumentContent: (uri) => conflictDocs.get(uri.toString()) ?? "These conflicts are no longer kept: land the agent again to see them.",
};

/** Discards the agent: the server asks the user first, then removes its worktree and branch. */
export async function discardAgent(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, () => true);
  const send = agent && request(g);
  if (agent === undefined || send === undefined) {
    return;
  }
  const params =
    agent.background !== undefined ? { id: agent.background.id } : agent.sessionId === "" ? { worktree: agent.worktree?.name ?? "" } : { sessionId: agent.sessionId };
  try {
    const result = await send<{ discarded?: boolean }>(methods.discardAgent, params);
    if (result?.discarded === true) {
      // The server says so too (state "discarded"); the row goes at once either way.
      g.agents.apply({ ...agent, state: "discarded" });
    }
  } catch (err) {
    void vscode.window.showErrorMessage(`Discarding “${agentTitle(agent)}” failed: ${errorMessage(err)}`);
  }
}

/**
 * A gemini/agent notification: the row changes; an agent that newly
 * waits, is done or failed is told with Open (unless its chat is on
 * screen); the chat showing the agent ends its turn when the agent's did.
 */
export function receiveAgent(g: Gemini, raw: unknown): void {
  const change = g.agents.apply(raw);
  if (change === undefined || "removed" in change) {
    if (change !== undefined && g.chat.sessionId === change.removed && g.running === undefined) {
      // The agent is gone: its chat cannot go on.
      g.apply({ type: "session", mode: g.approvalMode });
    }
    return;
  }
  const { agent, notify } = change;
  const shown = g.chat.sessionId === agent.sessionId;
  const end = turnEndOf(agent);
  if (shown && end !== undefined && g.chat.busy && g.running === undefined) {
    g.apply({ type: "result", result: end });
  }
  if (notify === undefined || (shown && g.view.isShowing())) {
    return;
  }
  const text = noticeText(agent, notify);
  const shownMessage = notify === "failed" ? vscode.window.showWarningMessage(text, "Open") : vscode.window.showInformationMessage(text, "Open");
  void shownMessage.then((choice) => {
    if (choice === "Open") {
      void openAgentChat(g, { kind: "agent", key: agentKey(agent) });
    }
  });
}

/**
 * The editor's own GitHub login, for the server to dispatch the workflow
 * with: VS Code asks the user the first time. Any failure (no GitHub
 * provider, as in code-server without one; the user said no) is no token:
 * the server then uses gh's, or GITHUB_TOKEN's, and says what to do when
 * it has none.
 */
async function githubToken(g: Gemini): Promise<string | undefined> {
  try {
    const session = await vscode.authentication.getSession("github", ["repo", "workflow"], { createIfNone: true });
    return session?.accessToken;
  } catch (err) {
    g.output.appendLine(`no GitHub login from VS Code (the server finds a token of its own): ${errorMessage(err)}`);
    return undefined;
  }
}

/**
 * Run in the Background: asks for the task (the chat's prompt box's text
 * first, when it came from there) and dispatches it to the repository's
 * gemini-ls workflow on GitHub Actions (gemini/delegate). The row comes at
 * once, queued; the server follows the run and sends its changes.
 */
export async function runInBackground(g: Gemini, text?: string): Promise<boolean> {
  if (request(g) === undefined) {
    return false;
  }
  const task = await vscode.window.showInputBox({
    title: "Run in the Background",
    prompt: "What should the agent do? It runs on GitHub Actions (your repository's gemini-ls workflow) and opens a pull request; its work comes back here for review.",
    placeHolder: "Add a --verbose flag",
    value: typeof text === "string" ? text.trim() : "",
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === "" ? "Say what the agent should do." : undefined),
  });
  if (task === undefined) {
    return false;
  }
  const token = await githubToken(g);
  // Asked again: the server may have stopped while VS Code asked for the login.
  const send = request(g);
  if (send === undefined) {
    return false;
  }
  let raw: unknown;
  try {
    raw = await vscode.window.withProgress({ location: { viewId: agentsViewId }, title: "Dispatching to GitHub…" }, () => send(methods.delegate, delegateParams(task, token)));
  } catch (err) {
    void vscode.window.showErrorMessage(`The background agent did not start: ${errorMessage(err)}`);
    return false;
  }
  // The row at once, queued; the server's gemini/agent notifications change it from then on.
  g.agents.apply(raw);
  await g.agents.reveal();
  return true;
}

/** Opens the background agent's run on GitHub in the browser. */
export async function openRun(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, (a) => a.background !== undefined && a.background.runUrl !== "");
  const url = agent?.background?.runUrl;
  if (agent === undefined) {
    return;
  }
  if (url === undefined || url === "") {
    void vscode.window.showInformationMessage(`“${agentTitle(agent)}” has no run on GitHub to open.`);
    return;
  }
  await vscode.env.openExternal(vscode.Uri.parse(url));
}

/** Opens the background agent's pull request on GitHub in the browser. */
export async function openPullRequest(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, (a) => a.background?.pullRequest !== undefined);
  if (agent === undefined) {
    return;
  }
  const pr = agent.background?.pullRequest;
  if (pr === undefined) {
    void vscode.window.showInformationMessage(`“${agentTitle(agent)}” has no pull request yet.`);
    return;
  }
  await vscode.env.openExternal(vscode.Uri.parse(pr.url));
}

/**
 * Send Follow-up…: what the background agent should do next goes to it as
 * a comment on its pull request (gemini/followUpAgent); the workflow runs
 * again on the same branch, and the row goes back to queued.
 */
export async function followUpAgent(g: Gemini, node?: AgentNode): Promise<void> {
  const agent = await agentFor(g, node, (a) => followUpProblem(a) === undefined);
  if (agent === undefined) {
    return;
  }
  const problem = followUpProblem(agent);
  if (problem !== undefined || agent.background === undefined) {
    void vscode.window.showInformationMessage(problem ?? "");
    return;
  }
  const prompt = await vscode.window.showInputBox({
    title: `Follow-up to “${agentTitle(agent)}”`,
    prompt: `What should it do next? It goes to pull request #${agent.background.pullRequest?.number ?? "?"} as a comment, and the agent runs again on its branch.`,
    placeHolder: "Also document the flag in README.md",
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === "" ? "Say what the agent should do next." : undefined),
  });
  if (prompt === undefined) {
    return;
  }
  // The comment is posted with the user's login too, when VS Code has one.
  const token = await githubToken(g);
  const send = request(g);
  if (send === undefined) {
    return;
  }
  try {
    g.agents.apply(await send(methods.followUpAgent, followUpParams(agent.background.id, prompt, token)));
  } catch (err) {
    void vscode.window.showErrorMessage(`The follow-up did not reach “${agentTitle(agent)}”: ${errorMessage(err)}`);
  }
}
