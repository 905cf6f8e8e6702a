// The commands the chat's buttons run, shared by the extension and the webview.

/**
 * The commands the chat's own buttons run (Manage Workspace Trust, a
 * review's Accept and Reject, the sign-in's): these only, whatever a
 * webview showing the model's words asks.
 */
export const chatCommands = [
  "workbench.trust.manage",
  "gemini.review.accept",
  "gemini.review.reject",
  "gemini.review.show",
  "gemini.enterApiKey",
  "gemini.signIn",
  "gemini.openAiStudio",
  "gemini.retry",
  "gemini.chooseModel",
  "gemini.openQuota",
] as const;
export type ChatCommand = (typeof chatCommands)[number];

/** What each of the chat's command buttons says. */
export const chatCommandLabels: Record<ChatCommand, string> = {
  "workbench.trust.manage": "Manage Workspace Trust",
  "gemini.review.accept": "Accept",
  "gemini.review.reject": "Reject",
  "gemini.review.show": "Show Review",
  "gemini.enterApiKey": "Enter API Key",
  "gemini.signIn": "Sign in with Google",
  "gemini.openAiStudio": "Get a Key in AI Studio",
  "gemini.retry": "Retry",
  "gemini.chooseModel": "Switch Model",
  "gemini.openQuota": "Open Quota Page",
};
