// What the chat's prompt box completes: the "/" commands gemini-ls lists
// (gemini/commands) and the workspace's files for "@", each kept for a
// while so completion does not ask on every keystroke.

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { excludeGlob } from "./atFiles";
import type { ChatView } from "./chat";
import { methods } from "./protocol";
import { isMethodNotFound } from "./sessions";
import { errorMessage } from "./settings";
import { CommandCache, parseCommandList, type CommandList, type SlashCommand } from "./slashCommands";

/**
 * How old the "/" command list may be before a new "/" asks the server
 * again: MCP servers start after the chat opens and command files change,
 * but one request per keystroke would be waste.
 */
const commandsMaxAgeMs = 10_000;

/** How old the "@" file list may be before a new "@" lists the files again. */
const filesMaxAgeMs = 10_000;

/** How many files "@" completes from at most: a big checkout must not stall the chat. */
const maxListedFiles = 5000;

export class ChatCompletion {
  private readonly slashCommands = new CommandCache(() => this.fetchCommands(), Date.now, commandsMaxAgeMs);
  /** The last thing said in the log about the command list, so it is said once. */
  private commandsNote = "";
  /** The workspace's files as last listed for "@" completion, and when. */
  private listedFiles?: { files: string[]; at: number };

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly view: () => ChatView,
    private readonly log: (line: string) => void,
  ) {}

  /** The "/" commands as last listed. */
  get commands(): SlashCommand[] {
    return this.slashCommands.current.commands;
  }

  /** Brings the chat's "/" completion up to date, asking the server only if the list has aged. */
  refreshCommands(): void {
    this.slashCommands.refresh().then(
      (list) => {
        this.view().postCommands(list.commands);
        this.noteCommands(list.errors.map((e) => `gemini/commands: ${e}`).join("\n"));
      },
      (err: unknown) => {
        // Before the server runs there is nothing to list; it is asked again once it does.
        if (this.client()?.isRunning()) {
          this.noteCommands(
            isMethodNotFound(err)
              ? "This gemini-ls is too old to list its commands, so the chat cannot complete \"/\" commands. Update gemini-ls."
              : `Listing the "/" commands failed: ${errorMessage(err)}`,
          );
        }
      },
    );
  }

  /** The server read its commands again (/commands reload): the list is asked for anew, not when it ages. */
  reloadCommands(): void {
    this.slashCommands.invalidate();
    this.refreshCommands();
  }

  /** Forgets the commands of a server that stopped, in the chat as well. */
  forgetCommands(): void {
    this.slashCommands.invalidate();
    this.view().postCommands([]);
  }

  private async fetchCommands(): Promise<CommandList> {
    const client = this.client();
    if (client === undefined || !client.isRunning()) {
      throw new Error("gemini-ls is not running");
    }
    return parseCommandList(await client.sendRequest(methods.commands, {}));
  }

  private noteCommands(note: string): void {
    if (note !== "" && note !== this.commandsNote) {
      this.log(note);
    }
    this.commandsNote = note;
  }

  /**
   * Sends the chat the workspace's files for "@" completion, as the Explorer
   * and search list them (files.exclude and search.exclude left out), at
   * most maxListedFiles; listed again only once the list has aged.
   */
  async sendFiles(): Promise<void> {
    this.view().postFiles(await this.files());
  }

  /** The workspace's files as the Explorer lists them, listed again once the last list has aged. */
  async files(): Promise<string[]> {
    if (this.listedFiles === undefined || Date.now() - this.listedFiles.at > filesMaxAgeMs) {
      const exclude = excludeGlob(
        vscode.workspace.getConfiguration("files").get<Record<string, unknown>>("exclude"),
        vscode.workspace.getConfiguration("search").get<Record<string, unknown>>("exclude"),
      );
      const uris = await vscode.workspace.findFiles("**/*", exclude, maxListedFiles);
      this.listedFiles = { files: uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort(), at: Date.now() };
    }
    return this.listedFiles.files;
  }
}
