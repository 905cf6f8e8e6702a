// A shell call's output in a terminal the user opens from its row in the
// chat, as Copilot Chat's "Show terminal" and Claude Code's do: a
// read-only Pseudoterminal showing the command and its output as the
// call's result reported it (gemini-ls ran the command; nothing runs
// again), with what the server cut said.

import * as vscode from "vscode";
import type { Item } from "./chatModel";
import { shellTranscript, terminalText } from "./shellOutput";

type ToolItem = Extract<Item, { kind: "tool" }>;

/** The terminals open now, by call: a second click shows the same one. */
export class ShellTerminals implements vscode.Disposable {
  private readonly open = new Map<string, vscode.Terminal>();
  private readonly closed: vscode.Disposable;

  constructor() {
    this.closed = vscode.window.onDidCloseTerminal((t) => {
      for (const [id, open] of this.open) {
        if (open === t) {
          this.open.delete(id);
        }
      }
    });
  }

  /** Shows call's output in a terminal; says so when the call has none to show. */
  show(call: ToolItem | undefined): void {
    const transcript = call?.command === undefined ? undefined : shellTranscript(call.display);
    if (call?.command === undefined || transcript === undefined) {
      void vscode.window.showInformationMessage("This command has no output to show: it did not run, or has not ended yet.");
      return;
    }
    let terminal = this.open.get(call.callId);
    if (terminal === undefined) {
      terminal = vscode.window.createTerminal({
        name: `Gemini: ${terminalName(call.command)}`,
        iconPath: new vscode.ThemeIcon("terminal"),
        pty: replay(terminalText(call.command, call.dir, transcript)),
        isTransient: true,
      });
      this.open.set(call.callId, terminal);
    }
    terminal.show();
  }

  dispose(): void {
    this.closed.dispose();
  }
}

/** A terminal that shows text and takes no input: the command ran already. */
function replay(text: string): vscode.Pseudoterminal {
  const write = new vscode.EventEmitter<string>();
  return {
    onDidWrite: write.event,
    open: () => write.fire(text),
    close: () => write.dispose(),
  };
}

/** The command as a terminal's tab names it: its first line, cut to 40 characters. */
function terminalName(command: string): string {
  const line = command.split("\n")[0].trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
