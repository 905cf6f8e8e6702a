// The Agents view beside the chat (issue 97), shown once there is an agent,
// as Claude Code's agents view and VS Code's Agents window show theirs: a
// row per agent with its task, state (an icon each), elapsed time (ticking
// while it works), tokens and lines changed, unfolding to its files. Its badge counts the agents that
// wait for the user. The list itself is agents.ts's; the actions on a row
// are agentCommands.ts's.

import * as path from "node:path";
import * as vscode from "vscode";
import { agentContext, agentDescription, agentKey, agentLabel, AgentList, agentTitle, agentTooltip, stateIcons, type Agent, type AgentChange, type AgentFile } from "./agents";

export const agentsViewId = "gemini.agents";

/** A row: an agent, or one of its files. */
export type AgentNode = { kind: "agent"; key: string } | { kind: "file"; key: string; file: AgentFile };

/** How often a working agent's elapsed time is redrawn. */
const tickMs = 1000;

export class AgentsView implements vscode.TreeDataProvider<AgentNode>, vscode.Disposable {
  readonly list = new AgentList();
  /** Whether the server answered gemini/agents: an older one would run a "worktree" prompt in the user's own tree. */
  supported = false;
  private readonly changed = new vscode.EventEmitter<AgentNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<AgentNode>;
  private ticker?: ReturnType<typeof setInterval>;
  /** Whether the view is shown (the gemini.hasAgents context key). */
  private shown = false;

  constructor() {
    this.view = vscode.window.createTreeView(agentsViewId, { treeDataProvider: this, showCollapseAll: false });
    this.view.onDidChangeVisibility(() => this.redraw());
  }

  /** The list as gemini/agents answered it. */
  replace(raw: unknown): void {
    this.supported = true;
    this.list.replace(raw);
    this.redraw();
  }

  /** Forgets the list: the server that ran the agents stopped. */
  clear(): void {
    this.supported = false;
    this.list.replace({ agents: [] });
    this.redraw();
  }

  /** One gemini/agent notification: the row redrawn, and what it calls for. */
  apply(raw: unknown): AgentChange | { removed: string } | undefined {
    const change = this.list.apply(raw);
    if (change !== undefined) {
      this.supported = true;
      this.redraw();
    }
    return change;
  }

  /** The agent of a row (or the row of one of its files). */
  agentOf(node: AgentNode | undefined): Agent | undefined {
    return node === undefined ? undefined : this.list.get(node.key);
  }

  /** Shows the view (its title bar's actions with it). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${agentsViewId}.focus`);
  }

  private redraw(): void {
    // The view shows once there is an agent: alone, the chat keeps its container's title bar for its own icons.
    const has = this.list.all().length > 0;
    if (has !== this.shown) {
      this.shown = has;
      void vscode.commands.executeCommand("setContext", "gemini.hasAgents", has);
    }
    const waiting = this.list.waiting();
    this.view.badge = waiting === 0 ? undefined : { value: waiting, tooltip: `${waiting} agent${waiting === 1 ? " waits" : "s wait"} for you` };
    this.changed.fire(undefined);
    // The elapsed times tick while an agent works and someone can see them.
    const tick = this.view.visible && this.list.anyWorking();
    if (tick && this.ticker === undefined) {
      this.ticker = setInterval(() => this.changed.fire(undefined), tickMs);
    } else if (!tick && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  getChildren(node?: AgentNode): AgentNode[] {
    if (node === undefined) {
      return this.list.all().map((a) => ({ kind: "agent", key: agentKey(a) }));
    }
    if (node.kind === "agent") {
      return (this.list.get(node.key)?.files ?? []).map((file) => ({ kind: "file", key: node.key, file }));
    }
    return [];
  }

  getTreeItem(node: AgentNode): vscode.TreeItem {
    const agent = this.list.get(node.key);
    if (agent === undefined) {
      return new vscode.TreeItem("");
    }
    return node.kind === "agent" ? agentItem(agent, node) : fileItem(agent, node.file);
  }

  dispose(): void {
    if (this.ticker !== undefined) {
      clearInterval(this.ticker);
    }
    this.view.dispose();
    this.changed.dispose();
  }
}

function agentItem(agent: Agent, node: AgentNode): vscode.TreeItem {
  const now = new Date();
  const item = new vscode.TreeItem(agentTitle(agent), agent.files.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `agent:${node.key}`;
  item.description = agentDescription(agent, now);
  item.tooltip = new vscode.MarkdownString(agentTooltip(agent, now));
  const { icon, color } = stateIcons[agent.state];
  // A background agent's icon says where it runs (its description says its state), in its state's colour.
  item.iconPath = new vscode.ThemeIcon(agent.background !== undefined ? "github" : icon, color === undefined ? undefined : new vscode.ThemeColor(color));
  // package.json's menus read the state (whether there is a session to open, a pull request, a worktree) from here.
  item.contextValue = agentContext(agent);
  if (agent.sessionId !== "") {
    item.command = { command: "gemini.agents.openChat", title: "Open Chat", arguments: [node] };
  }
  item.accessibilityInformation = { label: agentLabel(agent, now) };
  return item;
}

function fileItem(agent: Agent, file: AgentFile): vscode.TreeItem {
  const worktree = agent.worktree ?? { name: "", path: "" };
  const uri = vscode.Uri.file(path.join(worktree.path, file.path));
  const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
  item.id = `file:${agentKey(agent)}:${file.path}`;
  item.label = file.path;
  item.description = `${file.status === "modified" ? "" : `${file.status} `}+${file.added} −${file.removed}`;
  item.tooltip = `${file.path} in the worktree ${worktree.name}: ${file.status}, +${file.added} −${file.removed}`;
  item.contextValue = `agentFile.${file.status}`;
  if (file.status !== "deleted") {
    item.command = { command: "vscode.open", title: "Open File", arguments: [uri] };
  }
  return item;
}
