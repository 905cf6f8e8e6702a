// What the user should do about a failure, and the buttons in the chat and
// the status bar item that do it, chosen from the failure's kind: the word
// the server sends beside its sentence (errorKind), never the sentence's
// words.

import type { ChatCommand } from "./chatCommands";
import type { PromptResult } from "./protocol";

/** A failure's kind as the server sends it (docs/protocol.md, 14). */
export type ServerErrorKind = NonNullable<PromptResult["errorKind"]>;

/** A failure's kind: the server's, or one the extension finds itself (/permissions in Restricted Mode). */
export type ErrorKind = ServerErrorKind | "restricted";

export interface ErrorHelp {
  /** What went wrong, in a few words. */
  title: string;
  /** What to do about it; empty when the message itself says it. */
  action: string;
  /** The chat's buttons that do it, first the likeliest. */
  buttons: ChatCommand[];
  /** The status bar item while this failure is the last: its words and what a click runs; absent where the item need not change. */
  status?: { text: string; command: StatusCommand };
}

/** What a click on the status bar item runs while a failure is the last. */
export type StatusCommand = "gemini.signInMenu" | "gemini.chooseModel" | "gemini.retry";

const signInStatus = { text: "sign in", command: "gemini.signInMenu" } as const;

const helps: Record<ErrorKind, ErrorHelp> = {
  no_api_key: {
    title: "Gemini needs an API key.",
    action: "Enter a key from Google AI Studio (VS Code keeps it in its secret storage), or sign in with your Google account.",
    buttons: ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"],
    status: signInStatus,
  },
  invalid_api_key: {
    title: "The API key is not valid.",
    action: "Enter another key from Google AI Studio (VS Code keeps it in its secret storage), or sign in with Google.",
    buttons: ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"],
    status: signInStatus,
  },
  expired_api_key: {
    title: "The API key has expired.",
    action: "Enter a new key from Google AI Studio, or sign in with Google.",
    buttons: ["gemini.enterApiKey", "gemini.signIn", "gemini.openAiStudio"],
    status: signInStatus,
  },
  unauthenticated: {
    title: "Google refused the sign-in.",
    action: "Sign in with Google again, or enter an API key.",
    buttons: ["gemini.signIn", "gemini.enterApiKey", "gemini.retry"],
    status: signInStatus,
  },
  sign_in_required: {
    title: "Gemini needs you to sign in with Google.",
    action: "Sign in with Google; the next prompt uses the login. Or enter an API key from Google AI Studio.",
    buttons: ["gemini.signIn", "gemini.enterApiKey", "gemini.openAiStudio"],
    status: signInStatus,
  },
  permission_denied: {
    title: "Google refused access to the model.",
    action: "",
    buttons: ["gemini.enterApiKey", "gemini.signIn", "gemini.retry"],
    status: signInStatus,
  },
  quota: {
    title: "The Gemini quota is used up.",
    action: "Switch to a model with quota left, see the quota in AI Studio, or retry once it resets.",
    buttons: ["gemini.chooseModel", "gemini.openQuota", "gemini.retry"],
    status: { text: "quota used up", command: "gemini.chooseModel" },
  },
  rate_limited: {
    title: "Gemini is rate-limited.",
    action: "Wait a moment and retry, or switch to another model.",
    buttons: ["gemini.retry", "gemini.chooseModel"],
    status: { text: "rate-limited", command: "gemini.retry" },
  },
  network: {
    title: "Gemini could not be reached.",
    action: "Check the network connection (and the proxy, if one is set), then retry.",
    buttons: ["gemini.retry"],
    status: { text: "offline", command: "gemini.retry" },
  },
  server_error: {
    title: "The Gemini API failed on Google's side.",
    action: "Retry in a few minutes, or switch to another model.",
    buttons: ["gemini.retry", "gemini.chooseModel"],
    status: { text: "API error", command: "gemini.retry" },
  },
  unknown_model: {
    title: "The model was not found.",
    action: "Switch to another model.",
    buttons: ["gemini.chooseModel"],
    status: { text: "unknown model", command: "gemini.chooseModel" },
  },
  unsupported_location: { title: "The Gemini API is not offered where you are.", action: "", buttons: [] },
  blocked: { title: "Gemini's safety filters stopped it.", action: "Rephrase the prompt.", buttons: [] },
  vertex_setup: {
    title: "Vertex AI needs a project or an API key.",
    action:
      "Set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (or GOOGLE_API_KEY for express mode) in the environment VS Code is started from, and restart VS Code.",
    buttons: [],
  },
  busy: { title: "Gemini is still answering the previous prompt.", action: "Wait for it to finish, or press Stop.", buttons: [] },
  restricted: { title: "/permissions was not run: this folder is in Restricted Mode.", action: "", buttons: ["workbench.trust.manage"] },
};

/** What to do about a failure of kind (none: no kind the server knows, and the message says it all). */
export function describeError(kind: ErrorKind | undefined): ErrorHelp {
  return (kind !== undefined && helps[kind]) || { title: "Gemini failed.", action: "", buttons: [] };
}

/** Every kind the extension offers a fix for, for the tests to hold to the server's set. */
export const errorKinds = Object.keys(helps) as ErrorKind[];

/** The kind in a JSON-RPC error's data ({errorKind}), as `{ errorKind }` to spread into an event; {} where it has none. */
export function kindOfResponseError(err: unknown): { errorKind?: ServerErrorKind } {
  const data = (err as { data?: unknown } | undefined)?.data;
  const kind = typeof data === "object" && data !== null ? (data as { errorKind?: unknown }).errorKind : undefined;
  return typeof kind === "string" && kind !== "restricted" && kind in helps ? { errorKind: kind as ServerErrorKind } : {};
}
