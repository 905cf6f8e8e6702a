// Wire types of gemini-ls's own messages (docs/protocol.md). Pure data: this
// module is shared by the extension host and the chat webview.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** LSP's Diagnostic, as much of it as gemini/prompt's context carries. */
export interface PromptDiagnostic {
  range: Range;
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity: number;
  message: string;
  source?: string;
  code?: string | number;
}

export interface PromptContext {
  uri?: string;
  range?: Range;
  diagnostics?: PromptDiagnostic[];
}

export interface PromptParams {
  prompt: string;
  sessionId?: string;
  context?: PromptContext;
}

export type StopReason = "end_turn" | "cancelled" | "max_turns" | "max_tokens" | "error";

export interface PromptResult {
  sessionId: string;
  stopReason: StopReason;
  text: string;
  error?: string;
}

export type ToolStatus = "ok" | "error" | "rejected" | "cancelled";

export type Update =
  | { sessionId: string; kind: "text"; text: string }
  | { sessionId: string; kind: "thought"; subject?: string; description?: string }
  | {
      sessionId: string;
      kind: "toolCall";
      callId: string;
      name: string;
      title?: string;
      args?: unknown;
    }
  | {
      sessionId: string;
      kind: "toolResult";
      callId: string;
      name: string;
      status: ToolStatus;
      display?: string;
    }
  | {
      sessionId: string;
      kind: "usage";
      promptTokens?: number;
      candidatesTokens?: number;
      thoughtsTokens?: number;
      totalTokens?: number;
    }
  | { sessionId: string; kind: "error"; message: string };

export interface ConfirmParams {
  sessionId: string;
  callId: string;
  kind: string;
  title: string;
  details?: string;
}

export type ConfirmOutcome = "proceed_once" | "proceed_always" | "cancel";

export interface SessionInfo {
  sessionId: string;
  title: string;
  createdAt: string;
  prompts: number;
}

export interface SessionsResult {
  sessions: SessionInfo[];
}

export const methods = {
  prompt: "gemini/prompt",
  update: "gemini/update",
  cancel: "gemini/cancel",
  confirm: "gemini/confirm",
  sessions: "gemini/sessions",
  applyEdit: "workspace/applyEdit",
} as const;
