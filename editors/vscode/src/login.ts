// "Gemini: Sign in with Google" apart from VS Code, so it is tested as
// sent: gemini/login, and what the user is told of its answer. The server
// opens Google's page itself (window/showDocument, external), which the
// language client hands to the browser.

import { methods, type LoginResult } from "./protocol";
import { isMethodNotFound, type Request } from "./sessions";

/** JSON-RPC's RequestCancelled: the user stopped waiting. */
const requestCancelled = -32800;

/** What the user is told: a message, and whether it is a warning. */
export interface Outcome {
  text: string;
  warn: boolean;
  /** The user cancelled: nothing to show. */
  cancelled?: boolean;
}

/**
 * Signs in with gemini/login (`manual`: the pasted-code sign-in, for a
 * browser on another machine) and says how it went. Never rejects.
 */
export async function signIn(request: Request, manual = false): Promise<Outcome> {
  try {
    const result = await request<LoginResult>(methods.login, manual ? { manual: true } : {});
    return signedIn(result);
  } catch (err) {
    return failed(err);
  }
}

export function signedIn(r: LoginResult): Outcome {
  const who = r.email ? `Signed in with Google as ${r.email}` : "Signed in with Google";
  if (r.auth.type === "oauth-personal" && r.auth.usable) {
    return { text: `${who}.`, warn: false };
  }
  if (r.auth.type === "oauth-personal") {
    return { text: `${who}, but the login cannot be used: ${r.auth.problem ?? "unknown problem"}`, warn: true };
  }
  return {
    text: `${who}, but gemini-ls uses ${r.auth.type} (from ${r.auth.source}); set security.auth.selectedType to "oauth-personal" in ~/.gemini/settings.json to use the Google login.`,
    warn: true,
  };
}

function failed(err: unknown): Outcome {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code === requestCancelled) {
    return { text: "Sign in with Google cancelled.", warn: false, cancelled: true };
  }
  if (isMethodNotFound(err)) {
    return { text: "This gemini-ls is too old to sign in. Update gemini-ls, or run `gemini` and choose \"Sign in with Google\".", warn: true };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { text: message.startsWith("Sign in with Google") ? message : `Sign in with Google failed: ${message}`, warn: true };
}

/** The context key that is true while a key (not a Google login) reaches the model: Sign in with Google is then not offered. */
export const keyWorksContext = "gemini.keyWorks";

/**
 * Whether the server reaches the model with a Gemini API key
 * (gemini/authStatus): while one works, the chat's menu and the
 * walkthrough do not offer Sign in with Google, which would only switch
 * away from it.
 */
export function keyWorks(report: Pick<LoginResult["auth"], "type" | "usable"> | undefined): boolean {
  return report !== undefined && report.usable && report.type === "gemini-api-key";
}
