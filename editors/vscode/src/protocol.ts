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

export type StopReason = "end_turn" | "cancelled" | "max_turns" | "max_tokens" | "loop_detected" | "error";

export interface PromptResult {
  sessionId: string;
  stopReason: StopReason;
  text: string;
  error?: string;
}

export type ToolStatus = "ok" | "error" | "rejected" | "cancelled";

/**
 * Set on a subagent's update: the invoke_agent call that runs it, and the
 * agent's name; absent on the main agent's.
 */
export interface SubagentMark {
  parentCallId?: string;
  agentName?: string;
}

export type Update = SubagentMark &
  (
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
      /** Sums over the prompt's model requests, and over the session's prompts. */
      promptUsage?: TokenUsage;
      sessionUsage?: TokenUsage;
      /** The concrete model that answered (where auto routed the prompt); absent from older servers. */
      model?: string;
    }
  | { sessionId: string; kind: "error"; message: string }
  /** The model call failed and is tried again after delayMs. */
  | { sessionId: string; kind: "retry"; attempt: number; delayMs: number; reason: string }
  /** The history was summarised to fit the model's window. */
  | { sessionId: string; kind: "compressed"; tokensBefore: number; tokensAfter: number }
  /** Something the user must be told that is not the model's text, such as a fallback to another model. */
  | { sessionId: string; kind: "notice"; message: string }
  /** A call switched the session's approval mode (enter_plan_mode, an approved exit_plan_mode, /plan). */
  | { sessionId: string; kind: "mode"; mode: ApprovalMode }
  /** /model set chose the model every session's requests go to: as named, and as shown. */
  | { sessionId: string; kind: "model"; model: string; name?: string }
  /**
   * The model called update_topic: the session's topic `title`, and
   * `intent`, what it means to do now; with `newTopic`, the title starts a
   * new topic, of which `text` is the summary.
   */
  | { sessionId: string; kind: "topic"; title: string; intent?: string; newTopic?: boolean; text?: string }
  /** The server read the "/" commands again (/commands reload): a cached gemini/commands list is out of date. */
  | { sessionId: string; kind: "commands" }
  );

/** The session's approval mode; a newer server may send one not listed here. */
export type ApprovalMode = "default" | "auto_edit" | "yolo" | "plan" | (string & {});

export interface TokenUsage {
  promptTokens?: number;
  candidatesTokens?: number;
  thoughtsTokens?: number;
  totalTokens?: number;
}

export interface ConfirmParams {
  sessionId: string;
  callId: string;
  kind: string;
  title: string;
  details?: string;
  /** proceed_always would hold for later calls; offer "Always Allow" only then. */
  canAllowAlways?: boolean;
}

export type ConfirmOutcome = "proceed_once" | "proceed_always" | "cancel";

export interface SessionInfo {
  sessionId: string;
  title: string;
  createdAt: string;
  /** Absent from servers older than gemini/listSessions. */
  updatedAt?: string;
  root?: string;
  prompts: number;
  /** false: saved on disk, not in the server's memory (resumed on demand). */
  live?: boolean;
}

export interface SessionsResult {
  sessions: SessionInfo[];
}

/** One prompt of a resumed session, as the user saw it. */
export interface Exchange {
  prompt: string;
  answer: string;
  stopReason?: StopReason;
}

export interface ResumeSessionResult {
  session: SessionInfo;
  exchanges: Exchange[];
  /** The session's approval mode, as gemini/update kind "mode" names it; absent from older servers. */
  mode?: ApprovalMode;
}

export const methods = {
  prompt: "gemini/prompt",
  update: "gemini/update",
  cancel: "gemini/cancel",
  confirm: "gemini/confirm",
  listSessions: "gemini/listSessions",
  /** gemini/listSessions' older name, for older servers. */
  sessions: "gemini/sessions",
  resumeSession: "gemini/resumeSession",
  /** Delete a session, live or saved (docs/protocol.md §5a). */
  deleteSession: "gemini/deleteSession",
  /** The user's "/name" commands (docs/protocol.md §5c). */
  commands: "gemini/commands",
  applyEdit: "workspace/applyEdit",
  /** The model's question to the user (docs/protocol.md §9b). */
  ask: "gemini/ask",
  /** List a session's prompts, or go back to before one (§5d). */
  rewind: "gemini/rewind",
  /** Sign in with Google, as Gemini CLI does (§5e). */
  login: "gemini/login",
  /** How the server reaches the model, and whether it can (§5b). */
  authStatus: "gemini/authStatus",
  didChangeConfiguration: "workspace/didChangeConfiguration",
  /** The model chosen and the models to choose from (§5f). */
  models: "gemini/models",
  /** The server asks for the diagnostics the editor shows (§9c). */
  diagnostics: "gemini/diagnostics",
  /** The server asks the editor's language servers for navigate_code and rename_symbol (§9d). */
  languageFeature: "gemini/languageFeature",
  /** Rewrite a selection as an instruction says, without the chat (§5g). */
  editSelection: "gemini/editSelection",
} as const;

/** gemini/editSelection's params (docs/protocol.md §5g). */
export interface EditSelectionParams {
  textDocument: { uri: string };
  range: Range;
  instruction: string;
}

/** gemini/editSelection's result: what became of the edit, and the message saying so. */
export interface EditSelectionResult {
  outcome: "applied" | "modified" | "declined" | "unchanged" | "refused" | "stale" | (string & {});
  message: string;
  model?: string;
}

/** gemini/authStatus's result (docs/protocol.md §5b), as much as the extension reads. */
export interface AuthReport {
  type: string;
  source: string;
  usable: boolean;
  problem?: string;
}

/** gemini/login's result (docs/protocol.md §5e). */
export interface LoginResult {
  email: string;
  credentialsFile: string;
  auth: AuthReport;
}

/** One model of gemini/models' list. */
export interface ModelInfo {
  /** What /model set takes. */
  id: string;
  name: string;
  description?: string;
}

/** gemini/models' result (docs/protocol.md §5f). */
export interface ModelsResult {
  /** The model every session's next request goes to, as named (auto, gemini-2.5-pro, ...). */
  current: string;
  /** How current is shown: "Auto", "gemini-3.1-pro-preview". */
  currentName: string;
  models: ModelInfo[];
}
