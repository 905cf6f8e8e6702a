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
