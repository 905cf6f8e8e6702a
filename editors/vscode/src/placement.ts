// Where the chat opens: in the secondary side bar, beside the Explorer, as
// VS Code's own chat opens, so the files stay in sight while Gemini works.
// VS Code 1.100 lets an extension's view container only into the activity
// bar or the panel (viewsContainers.secondarySidebar came in 1.104), so the
// chat is contributed to the activity bar and moved once, the first time
// the extension runs, with vscode.moveViews: into the secondary side bar's
// own Chat container, where VS Code keeps AI chats. VS Code remembers the
// place; a user who drags the chat elsewhere keeps it there, since the
// move is never made again.

import * as vscode from "vscode";

/** The view container VS Code 1.100 keeps in the secondary side bar for chats. */
export const secondarySideBarChat = "workbench.panel.chat";

/** The globalState key that says the chat was moved once. */
const movedKey = "gemini.chatMovedToSecondarySideBar";

/** Moves views into the secondary side bar once per VS Code profile. */
export async function placeChat(state: vscode.Memento, viewIds: string[]): Promise<void> {
  if (state.get<boolean>(movedKey) === true) {
    return;
  }
  await vscode.commands.executeCommand("vscode.moveViews", { viewIds, destinationId: secondarySideBarChat });
  await state.update(movedKey, true);
}

/** The globalState key that says the Agents view was moved once. */
const agentsMovedKey = "gemini.agentsMovedToSecondarySideBar";

/**
 * Moves the Agents view beside the chat once per VS Code profile: with
 * its own key, since a profile that moved the chat before the view existed
 * never moves the chat again.
 */
export async function placeAgents(state: vscode.Memento, viewId: string): Promise<void> {
  if (state.get<boolean>(agentsMovedKey) === true) {
    return;
  }
  await vscode.commands.executeCommand("vscode.moveViews", { viewIds: [viewId], destinationId: secondarySideBarChat });
  await state.update(agentsMovedKey, true);
}
