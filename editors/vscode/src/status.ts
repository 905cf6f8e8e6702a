// The Gemini status bar item: idle, working (spinner) or reviewing (n).

import * as vscode from "vscode";
import { statusView, type StatusInput } from "./present";

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("gemini.status", vscode.StatusBarAlignment.Right, 100);
  private input: StatusInput = { server: "starting", working: false, reviews: 0 };

  constructor() {
    this.item.name = "Gemini";
    this.render();
    this.item.show();
  }

  update(change: Partial<StatusInput>): void {
    this.input = { ...this.input, ...change };
    this.render();
  }

  private render(): void {
    const view = statusView(this.input);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = view.command;
    this.item.backgroundColor = view.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
