// The session list and resume as gemini-ls speaks them, apart from VS Code
// so they are tested against the real server: gemini/listSessions (with
// gemini/sessions for older servers), gemini/resumeSession and
// gemini/deleteSession.

import { methods, type ApprovalMode, type Exchange, type ResumeSessionResult, type SessionInfo, type SessionsResult, type UsageUpdate } from "./protocol";

/** JSON-RPC's MethodNotFound: a server older than the method asked. */
export const methodNotFound = -32601;

/** Sends a request to gemini-ls; rejects with an error carrying the JSON-RPC `code`. */
export type Request = <R>(method: string, params: unknown) => Promise<R>;

export function isMethodNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === methodNotFound;
}

/**
 * The sessions of the workspace `root` (a file URI), live and saved, as the
 * server lists them; from a server without gemini/listSessions, its live
 * sessions (gemini/sessions). Rejects with MethodNotFound when it has neither.
 */
export async function listSessions(request: Request, root: string | undefined): Promise<SessionInfo[]> {
  let result: SessionsResult;
  try {
    result = await request<SessionsResult>(methods.listSessions, root === undefined ? {} : { root });
  } catch (err) {
    if (!isMethodNotFound(err)) {
      throw err;
    }
    result = await request<SessionsResult>(methods.sessions, {});
  }
  return result?.sessions ?? [];
}

/** A session the server made live again, as the chat shows it. */
export interface ResumedSession {
  session: SessionInfo;
  exchanges: Exchange[];
  mode: ApprovalMode;
  /** What the session has cost so far, as a live usage update tells it; absent from a server too old to say, or for a session that never answered. */
  usage?: UsageUpdate;
}

/**
 * Makes session `id` live in the server (a session saved by an earlier
 * server too) and returns what was said in it, what it has cost, and its
 * approval mode: the server's, else `mode`. A server without
 * gemini/resumeSession continues its live sessions by id alone: then the
 * session is `fallback` and there is nothing to show.
 */
export async function resumeSession(request: Request, id: string, fallback: SessionInfo, mode: ApprovalMode): Promise<ResumedSession> {
  try {
    const result = await request<ResumeSessionResult>(methods.resumeSession, { sessionId: id });
    const usage = usageUpdateOf(result.usage);
    return {
      session: result.session ?? fallback,
      exchanges: result.exchanges ?? [],
      mode: typeof result.mode === "string" && result.mode !== "" ? result.mode : mode,
      ...(usage && { usage }),
    };
  } catch (err) {
    if (isMethodNotFound(err)) {
      return { session: fallback, exchanges: [], mode };
    }
    throw err;
  }
}

/** The result's usage as the usage update it is; undefined where there is none, or it is not one. */
function usageUpdateOf(u: ResumeSessionResult["usage"]): UsageUpdate | undefined {
  return u?.kind === "usage" && typeof u.sessionUsage === "object" && u.sessionUsage !== null ? (u as UsageUpdate) : undefined;
}

/**
 * Deletes session `id`, live or saved: no list shows it again. Rejects
 * with the server's error (MethodNotFound from a server without
 * gemini/deleteSession).
 */
export async function deleteSession(request: Request, id: string): Promise<void> {
  await request<unknown>(methods.deleteSession, { sessionId: id });
}
