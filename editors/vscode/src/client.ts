// Starting gemini-ls as a language client for every file.

import type * as vscode from "vscode";
import {
  LanguageClient,
  RevealOutputChannelOn,
  type ClientCapabilities,
  type ServerCapabilities,
  type FeatureState,
  type StaticFeature,
} from "vscode-languageclient/node";
import { serverEnv } from "./serverEnv";
import { trustOptions } from "./trust";

export interface ServerSettings {
  command: string;
  model: string;
  approvalMode: string;
  /** gemini.inlineCompletion.enabled: false tells the server to offer no completion. */
  inlineCompletion: boolean;
  /** Set in the server's environment over VS Code's (undefined: unset): the workspace's trust, the key the user entered. */
  env: Record<string, string | undefined>;
  /** Whether VS Code trusts the workspace, handed over in initializationOptions (trust.ts). */
  workspaceTrust: boolean;
}

/**
 * Declares experimental.gemini: this client previews annotated edits and
 * answers only after the user decides (editPreview), answers
 * gemini/confirm (confirm), gemini/ask (ask), gemini/diagnostics
 * (diagnostics) and gemini/languageFeature (languageFeatures).
 */
class GeminiCapabilities implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ??= {}) as Record<string, unknown>;
    experimental.gemini = { editPreview: true, confirm: true, ask: true, diagnostics: true, languageFeatures: true };
  }
  /**
   * The server's gemini.prompt and gemini.cancel LSP commands are for
   * editors that cannot send gemini/prompt. Hidden here, because the client
   * would register them as VS Code commands, and gemini.cancel is ours.
   */
  preInitialize(capabilities: ServerCapabilities): void {
    delete capabilities.executeCommandProvider;
    // The server's code actions run gemini.prompt through
    // workspace/executeCommand, for clients without a plugin; here the
    // extension's own Explain / Fix Diagnostics commands do that job.
    delete capabilities.codeActionProvider;
    // Inline completion goes through the extension's own provider
    // (completion.ts), which adds what the library's would not; hidden so a
    // client version that maps it does not register a second one.
    delete (capabilities as ServerCapabilities & { inlineCompletionProvider?: unknown }).inlineCompletionProvider;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: "static" };
  }
  clear(): void {}
}

/** The client, and whether its server offers inline completion (known once it started). */
export interface GeminiClient {
  client: LanguageClient;
  offersInlineCompletion(): boolean;
}

export function createClient(settings: ServerSettings, output: vscode.OutputChannel): GeminiClient {
  const initializationOptions: Record<string, unknown> = { approvalMode: settings.approvalMode, ...trustOptions(settings.workspaceTrust) };
  if (settings.model.trim() !== "") {
    initializationOptions.model = settings.model.trim();
  }
  if (!settings.inlineCompletion) {
    initializationOptions.inlineCompletion = { enabled: false };
  }
  // The id "gemini" makes the client read the gemini.trace.server setting.
  const client = new LanguageClient(
    "gemini",
    "Gemini",
    // The environment is inherited, so GEMINI_API_KEY and friends reach the
    // server; the extension's own (trust, a key entered, which goes as
    // GEMINI_LS_EDITOR_API_KEY so that gemini-ls's commands never get it)
    // are set over it, in the process's environment only: never in a file,
    // nor in a message the trace logs.
    { command: settings.command, args: ["serve", "--log-level", "debug"], options: { env: serverEnv(process.env, settings.env) } },
    {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      initializationOptions,
      outputChannel: output,
      // The chat shows errors once, with what to do; the log stays in the output channel.
      revealOutputChannelOn: RevealOutputChannelOn.Never,
    },
  );
  client.registerFeature(new GeminiCapabilities());
  // The initialize result as the server sent it: the client's state is
  // Running before the features' preInitialize runs.
  const offersInlineCompletion = () => {
    const offered = (client.initializeResult?.capabilities as { inlineCompletionProvider?: unknown } | undefined)?.inlineCompletionProvider;
    return offered !== undefined && offered !== null && offered !== false;
  };
  return { client, offersInlineCompletion };
}
