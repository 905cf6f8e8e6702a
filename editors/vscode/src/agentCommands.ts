// What the Agents view does (issue 97): start an agent in a worktree of its
// own, open its chat, stop it, land its work (reviewed hunk by hunk, or
// merged with git), discard it; and what the server's gemini/agent
// notifications call for: the row, a notification with Open, and the end of
// the chat's turn when the chat shows the agent.

import * as vscode from "vscode";
import { agentKey, agentTitle, conflictsDocument, noticeText, parseLandResult, startAgentParams, turnEndOf, worktreeNameProblem, type Agent } from "./agents";
import type { AgentNode } from "./agentsView";
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
    candidates.map((a) => ({ label: agentTitle(a), description: a.worktree.name, agent: a })),
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
    void vscode.window.showInformationMessage(`The worktree “${agent.worktree.name}” has no saved session to open. Land or discard it.`);
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
  const agent = await agentFor(g, node, (a) => a.state !== "working");
  const send = agent && request(g);
  if (agent === undefined || send === undefined) {
    return;
  }
  // A worktree found on disk with no session is named by its worktree.
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
  const params = agent.sessionId === "" ? { worktree: agent.worktree.name } : { sessionId: agent.sessionId };
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
