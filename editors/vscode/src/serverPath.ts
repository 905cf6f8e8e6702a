// Finding the gemini-ls binary: the gemini.serverPath setting, else the
// one a per-platform .vsix carries (server/gemini-ls, as rust-analyzer's
// extension bundles its server), else PATH (a .vsix built without one).

import * as fs from "node:fs";
import * as path from "node:path";

export interface Lookup {
  /** gemini.serverPath, possibly empty. */
  setting: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  /** Where a relative setting is resolved: the first workspace folder. */
  base?: string;
  /** The extension's own directory, where a per-platform .vsix puts server/. */
  extensionDir?: string;
  isExecutable?: (file: string) => boolean;
}

export type Resolved = { command: string } | { error: string };

export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function resolveServer(l: Lookup): Resolved {
  const isExecutable = l.isExecutable ?? isExecutableFile;
  const setting = l.setting.trim();
  if (setting !== "") {
    let file = setting.startsWith("~/") ? path.join(l.home, setting.slice(2)) : setting;
    if (!path.isAbsolute(file) && l.base !== undefined) {
      file = path.join(l.base, file);
    }
    return isExecutable(file)
      ? { command: file }
      : { error: `gemini.serverPath is "${setting}", but ${file} is not an executable file. Fix the setting, or clear it to use gemini-ls from PATH.` };
  }
  if (l.extensionDir !== undefined) {
    const bundled = bundledServer(l.extensionDir, l.platform);
    if (isExecutable(bundled)) {
      return { command: bundled };
    }
  }
  const names = l.platform === "win32" ? ["gemini-ls.exe", "gemini-ls.cmd", "gemini-ls"] : ["gemini-ls"];
  const dirs = (l.env.PATH ?? l.env.Path ?? "").split(path.delimiter).filter((d) => d !== "");
  for (const dir of dirs) {
    for (const name of names) {
      const file = path.join(dir, name);
      if (isExecutable(file)) {
        return { command: file };
      }
    }
  }
  return {
    error:
      "This Gemini extension carries no gemini-ls for this platform, and gemini-ls was not found on PATH. Install the extension's .vsix for your platform (gemini-ls-linux-x64.vsix, …), put gemini-ls on PATH, or set gemini.serverPath to the binary.",
  };
}

/** Where a per-platform .vsix carries gemini-ls: server/ in the extension. */
export function bundledServer(extensionDir: string, platform: NodeJS.Platform): string {
  return path.join(extensionDir, "server", platform === "win32" ? "gemini-ls.exe" : "gemini-ls");
}
