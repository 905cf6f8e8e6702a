// One trust: VS Code's. gemini-ls is told the workspace trust VS Code has
// for the window in its initializationOptions (workspaceTrust), which it
// takes as a standing decision about the folders, as a rule of Gemini
// CLI's trustedFolders.json is: trusted there, trusted for gemini-ls with
// no question of its own, until a sandboxed command could have changed
// the folder's .gemini/ or .env, when gemini-ls asks again in the chat
// what GEMINI_CLI_TRUST_WORKSPACE=true (the user's yes for one run, which
// gemini-ls does not check) would have let through unasked. So that
// variable is not inherited into a trusted window. In Restricted Mode it
// is set false as well, which decides before anything else in gemini-ls:
// the folder's .gemini/ (settings, commands, hooks, MCP servers) and
// GEMINI.md are never read, and nothing in the chat changes that. Only
// VS Code's Manage Workspace Trust does; the chat's /permissions is
// answered with that, not run.

/** The variable gemini-ls, as Gemini CLI, decides a workspace's trust by before anything else. */
export const trustVariable = "GEMINI_CLI_TRUST_WORKSPACE";

/**
 * gemini-ls's environment for VS Code's trust of the window: the variable
 * false in Restricted Mode, unset (undefined) when trusted.
 */
export function trustEnv(trusted: boolean): Record<string, string | undefined> {
  return { [trustVariable]: trusted ? undefined : "false" };
}

/** The initializationOptions that hand VS Code's trust to gemini-ls as a standing decision. */
export function trustOptions(trusted: boolean): { workspaceTrust: boolean } {
  return { workspaceTrust: trusted };
}

/** Whether a prompt is /permissions, Gemini CLI's own way to trust a folder. */
export function isPermissionsCommand(prompt: string): boolean {
  return /^\s*\/permissions(\s|$)/.test(prompt);
}

/** What the chat says of /permissions in Restricted Mode. */
export const restrictedPermissions =
  "VS Code's Restricted Mode decides this folder's trust: gemini-ls does not read its .gemini/ (settings, commands, hooks, MCP servers) nor its GEMINI.md. " +
  "To trust the folder, use Manage Workspace Trust; trusting it in VS Code trusts it for gemini-ls too.";
