// The proposals under review, kept in memory as a file system of their own
// (gemini-proposal:). The right side of the review's diff is a document of
// it: the user can edit it, and whatever saves it — VS Code's files.autoSave,
// format on save, another extension, Ctrl+S — saves into this memory. Nothing
// of a proposal reaches the real document or the disk before Accept, which
// copies its text into the real file (review.ts).

import * as vscode from "vscode";

export const proposalScheme = "gemini-proposal";

interface Entry {
  data: Uint8Array;
  ctime: number;
  mtime: number;
}

export class ProposalFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerFileSystemProvider(proposalScheme, this, { isCaseSensitive: true });
  }

  /** Holds a proposal's first text; its document reads it from here. */
  put(uri: vscode.Uri, text: string): void {
    const now = Date.now();
    this.entries.set(uri.toString(), { data: new TextEncoder().encode(text), ctime: now, mtime: now });
  }

  /** The proposal's text as last saved into memory; undefined once it is gone. */
  text(uri: vscode.Uri): string | undefined {
    const entry = this.entries.get(uri.toString());
    return entry && new TextDecoder().decode(entry.data);
  }

  /** Forgets a proposal whose review is over. */
  remove(uri: vscode.Uri): void {
    if (this.entries.delete(uri.toString())) {
      this.emitter.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
    }
  }

  watch(): vscode.Disposable {
    // Only this provider changes its files, and it tells of every change.
    return new vscode.Disposable(() => {});
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const entry = this.entry(uri);
    return { type: vscode.FileType.File, ctime: entry.ctime, mtime: entry.mtime, size: entry.data.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.entry(uri).data;
  }

  /** A save of the proposal's document: kept here, for Accept to copy. */
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const entry = this.entry(uri);
    entry.data = content;
    // Strictly later, or VS Code could take two saves in one millisecond for a conflict.
    entry.mtime = Math.max(Date.now(), entry.mtime + 1);
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  // A proposal is one file made by its review: "Save As" into this scheme,
  // a new folder, a delete or a rename have nothing to do here.
  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(oldUri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(oldUri);
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
    this.entries.clear();
  }

  private entry(uri: vscode.Uri): Entry {
    const entry = this.entries.get(uri.toString());
    if (entry === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return entry;
  }
}
