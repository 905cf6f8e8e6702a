// Turns the server's error messages into what the user should do about them,
// and the buttons in the chat that do it.

import type { ChatCommand } from "./chatCommands";

export interface ErrorHelp {
  /** What went wrong, in a few words. */
  title: string;
  /** What to do about it; empty when there is nothing better than the message itself. */
  action: string;
  /** The chat's buttons that do it, first the likeliest. */
  buttons?: ChatCommand[];
}

/** A key's buttons: Enter API key (kept in VS Code's secret storage), Sign in, get a key, Retry. */
const keyButtons: ChatCommand[] = ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio", "gemini.retry"];

const rules: ReadonlyArray<{ test: RegExp; help: ErrorHelp }> = [
  {
    test: /GEMINI_API_KEY environment variable not found/,
    help: {
      title: "Gemini needs an API key.",
      action: "Enter a key from Google AI Studio (VS Code keeps it in its secret storage), or sign in with your Google account.",
      buttons: keyButtons,
    },
  },
  {
    test: /No cached Google login found|The cached Google login .* cannot be used|refreshing the cached Google login/,
    help: {
      title: "Gemini needs you to sign in with Google.",
      action: "Sign in with Google; the next prompt uses the login. Or enter an API key from Google AI Studio.",
      buttons: ["gemini.signIn", "gemini.enterApiKey", "gemini.openAiStudio"],
    },
  },
  {
    test: /When using Vertex AI/,
    help: {
      title: "Vertex AI needs a project or an API key.",
      action:
        "Set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY for express mode) in the environment VS Code is started from, and restart VS Code.",
    },
  },
  {
    test: /API key not valid|API_KEY_INVALID|API key expired|PERMISSION_DENIED|UNAUTHENTICATED/,
    help: {
      title: "The API key was refused.",
      action: "It may be mistyped, expired or revoked. Enter a valid key (VS Code keeps it in its secret storage), or sign in with Google.",
      buttons: keyButtons,
    },
  },
  {
    test: /\b429\b|RESOURCE_EXHAUSTED|quota/i,
    help: {
      title: "The Gemini quota is used up.",
      action:
        "gemini-ls already retried. Wait a minute and try again, pick a model with more quota in the gemini.model setting, or use a key with a higher limit.",
    },
  },
  {
    test: /\b404\b.*(model|NOT_FOUND)|models\/\S+ is not found/i,
    help: {
      title: "The model was not found.",
      action: "Check the gemini.model setting; leave it empty to use the server's default model.",
    },
  },
  {
    test: /VS Code's Restricted Mode decides/,
    help: {
      title: "/permissions was not run: this folder is in Restricted Mode.",
      action: "",
      buttons: ["workbench.trust.manage"],
    },
  },
  {
    test: /is already running a prompt/,
    help: {
      title: "Gemini is still answering the previous prompt.",
      action: "Wait for it to finish, or press Stop.",
    },
  },
];

export function describeError(message: string): ErrorHelp {
  return rules.find((r) => r.test.test(message))?.help ?? { title: "Gemini failed.", action: "" };
}
