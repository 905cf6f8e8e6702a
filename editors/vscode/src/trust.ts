// One trust: VS Code's. gemini-ls is started with the workspace trust VS
// Code has for the window, in the variable Gemini CLI itself reads first
// (GEMINI_CLI_TRUST_WORKSPACE, which no workspace .env can set): trusted
// there, trusted for gemini-ls, with no question of its own; in Restricted
// Mode, untrusted, so the folder's .gemini/ (settings, commands, hooks,
// MCP servers) and GEMINI.md are never read. Only VS Code's Manage
// Workspace Trust changes it; the chat's /permissions is answered with
// that, not run.

/** The variable gemini-ls, as Gemini CLI, decides a workspace's trust by before anything else. */
export const trustVariable = "GEMINI_CLI_TRUST_WORKSPACE";

/** The environment gemini-ls starts with for VS Code's trust of the window. */
export function trustEnv(trusted: boolean): Record<string, string> {
  return { [trustVariable]: trusted ? "true" : "false" };
}

/** Whether a prompt is /permissions, Gemini CLI's own way to trust a folder. */
export function isPermissionsCommand(prompt: string): boolean {
  return /^\s*\/permissions(\s|$)/.test(prompt);
}

/** What the chat says of /permissions in Restricted Mode. */
export const restrictedPermissions =
  "VS Code's Restricted Mode decides this folder's trust: gemini-ls does not read its .gemini/ (settings, commands, hooks, MCP servers) nor its GEMINI.md. " +
  "To trust the folder, use Manage Workspace Trust; trusting it in VS Code trusts it for gemini-ls too.";
