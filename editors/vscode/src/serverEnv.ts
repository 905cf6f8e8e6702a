// gemini-ls's environment: VS Code's, with the extension's own over it.

/**
 * base with own set over it, those undefined left out: unset, where Node
 * would pass them on as the string "undefined".
 */
export function serverEnv(base: NodeJS.ProcessEnv, own: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const [name, value] of Object.entries(own)) {
    if (value === undefined) {
      delete env[name];
    } else {
      env[name] = value;
    }
  }
  return env;
}

/**
 * The variable gemini-ls takes the key kept in VS Code's secret storage
 * from (internal/spawn's EditorKeyVar): read as GEMINI_API_KEY, taken out
 * of gemini-ls's environment at once, and passed to none of the commands,
 * hooks and servers it starts. The key is not the user's shell's, so it
 * never goes as GEMINI_API_KEY, which commands inherit as in Gemini CLI
 * 0.61; a GEMINI_API_KEY of VS Code's own environment still reaches
 * gemini-ls, and its commands, as it is.
 */
export const editorKeyVariable = "GEMINI_LS_EDITOR_API_KEY";

/** The environment that hands gemini-ls key, a kept one: {} without one. */
export function editorKeyEnv(key: string | undefined): Record<string, string> {
  return key === undefined || key === "" ? {} : { [editorKeyVariable]: key };
}
