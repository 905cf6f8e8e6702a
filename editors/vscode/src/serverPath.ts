// Finding the gemini-ls binary: the gemini.serverPath setting, else PATH.

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
      "gemini-ls was not found on PATH. Install it (go install ./cmd/gemini-ls in the gemini-ls repository) or set gemini.serverPath to the binary.",
  };
}
