// gemini/diagnostics (docs/protocol.md §9c): the diagnostics VS Code shows,
// which the server asks for the model's get_diagnostics and to tell the
// model the errors its edit brought. Pure, so the tests need no VS Code.

import { toPromptDiagnostic, type EditorDiagnostic } from "./context";
import type { PromptDiagnostic } from "./protocol";

export interface DiagnosticsResult {
  items: { uri: string; diagnostics: PromptDiagnostic[] }[];
}

/** One file's diagnostics as VS Code lists them: its URI as text, then them. */
export type FileDiagnostics = readonly [uri: string, diagnostics: readonly EditorDiagnostic[]];

/**
 * gemini/diagnostics' answer to `params`: the diagnostics of each file it
 * names (`of`, by the URI as the server sent it), or, when it names none,
 * of every file VS Code has diagnostics for (`all`), those with none left
 * out.
 */
export function answerDiagnostics(
  params: unknown,
  of: (uri: string) => readonly EditorDiagnostic[],
  all: () => readonly FileDiagnostics[],
): DiagnosticsResult {
  const uris = requestedUris(params);
  const files: readonly FileDiagnostics[] = uris.length > 0 ? uris.map((uri) => [uri, of(uri)] as const) : all().filter(([, ds]) => ds.length > 0);
  return { items: files.map(([uri, ds]) => ({ uri, diagnostics: ds.map(toPromptDiagnostic) })) };
}

/** The URIs gemini/diagnostics' params name; none when they name none. */
function requestedUris(params: unknown): string[] {
  const uris = typeof params === "object" && params !== null ? (params as { uris?: unknown }).uris : undefined;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === "string") : [];
}
