// Reviewing the changes gemini-ls proposes. An annotated workspace/applyEdit
// opens VS Code's diff editor: the text before on the left (read-only), the
// real file with the proposal applied as unsaved edits on the right, where
// the user may change it. The request is answered only once the user has
// accepted or rejected the change, as a whole or hunk by hunk.

import * as path from "node:path";
import type { FileStat } from "./chatModel";
import * as vscode from "vscode";
import { planEdit, proposedText, minimalReplacement, type FileChange, type WorkspaceEdit } from "./edits";
import { acceptHunk, hunkAtLine, outcomeByHunks, pendingHunks, rejectHunk, startHunks, type HunkState } from "./hunks";

/** The scheme of the review's left side, the text before the change. */
const originalScheme = "gemini-original";

export interface ApplyEditParams {
  label?: string;
  edit: WorkspaceEdit;
}

export interface ApplyEditResult {
  applied: boolean;
  failureReason?: string;
}

/** A hunk as CodeLens arguments name it. */
export interface HunkRef {
  uri: string | vscode.Uri;
  index: number;
}

interface ReviewedFile {
  uri: vscode.Uri;
  /** The diff's tab title. */
  title: string;
  /** The left side of the diff, served by this manager. */
  originalUri: vscode.Uri;
  /** The file did not exist: the review created it, and a reject deletes it. */
  created: boolean;
  /** The document had unsaved changes before the review, so a reject must not save it. */
  wasDirty: boolean;
  hunks: HunkState;
}

interface Review {
  files: ReviewedFile[];
  finished: boolean;
  resolve: (result: ApplyEditResult) => void;
}

type Outcome = "accept" | "reject" | "cancel";

export interface ReviewOptions {
  /** gemini.autoSave: save what was accepted, so commands run next see it on disk. */
  autoSave: () => boolean;
  /** Applies an edit that needs no review, the way the language client does. */
  applyPlain: (edit: WorkspaceEdit) => Promise<boolean>;
  onDidChangeReviews: (count: number) => void;
}

export class ReviewManager implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly reviews: Review[] = [];
  private nextId = 1;
  /** Review operations run one at a time, so two clicks cannot interleave edits. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChange = this.contentChanged.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly options: ReviewOptions) {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(originalScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: "file" }, this),
      this.contentChanged,
      this.lensesChanged,
    ];
  }

  /**
   * Answers workspace/applyEdit: at once for a plain edit, after the user's
   * decision for an annotated one. `title` names a diff by its file's name
   * where the change is not the agent's edit (a rewind's revert).
   */
  async applyEdit(params: ApplyEditParams, token: vscode.CancellationToken, title: (file: string) => string = editTitle): Promise<ApplyEditResult> {
    let files: FileChange[];
    try {
      const plan = planEdit(params.edit);
      if (!plan.needsReview) {
        return await this.applyWithoutReview(params.edit, plan.files);
      }
      files = plan.files;
    } catch (err) {
      return { applied: false, failureReason: `gemini-ls for VS Code cannot apply this change: ${message(err)}` };
    }
    // Only opening the review holds the queue; the user's decisions on it are queued operations themselves.
    const opened = await this.enqueue(() => this.openReview(files, token, title));
    return "answer" in opened ? opened.answer : opened;
  }

  private async applyWithoutReview(edit: WorkspaceEdit, files: readonly FileChange[]): Promise<ApplyEditResult> {
    for (const file of files) {
      const doc = findOpenDocument(vscode.Uri.parse(file.uri));
      if (doc !== undefined && file.version !== undefined && doc.version !== file.version) {
        return { applied: false, failureReason: staleReason(doc.version, file.version) };
      }
    }
    const applied = await this.options.applyPlain(edit);
    if (applied && this.options.autoSave()) {
      await Promise.all(files.map((f) => saveIfDirty(vscode.Uri.parse(f.uri))));
    }
    return { applied };
  }

  private async openReview(
    changes: readonly FileChange[],
    token: vscode.CancellationToken,
    title: (file: string) => string,
  ): Promise<ApplyEditResult | { answer: Promise<ApplyEditResult> }> {
    if (token.isCancellationRequested) {
      return { applied: false, failureReason: "the change was withdrawn before it was shown" };
    }
    const id = this.nextId++;
    // Work out every file's proposal before touching anything, so a change
    // that cannot be shown leaves all files as they were.
    const prepared: Array<{ file: ReviewedFile; proposed: string }> = [];
    for (const change of changes) {
      const uri = vscode.Uri.parse(change.uri);
      const doc = await openIfExists(uri);
      if (doc !== undefined && change.version !== undefined && doc.version !== change.version) {
        return { applied: false, failureReason: staleReason(doc.version, change.version) };
      }
      const original = doc?.getText() ?? "";
      let proposed: string;
      try {
        proposed = proposedText(original, change);
      } catch (err) {
        return { applied: false, failureReason: `the edit does not fit ${uri.fsPath}: ${message(err)}` };
      }
      prepared.push({
        file: {
          uri,
          title: title(path.basename(uri.fsPath)),
          originalUri: uri.with({ scheme: originalScheme, query: `review=${id}` }),
          created: doc === undefined,
          wasDirty: doc?.isDirty ?? false,
          hunks: startHunks(original),
        },
        proposed,
      });
    }

    const review: Review = {
      files: prepared.map((p) => p.file),
      finished: false,
      resolve: () => {},
    };
    const answer = new Promise<ApplyEditResult>((resolve) => (review.resolve = resolve));
    this.reviews.push(review);
    this.changed();
    try {
      for (const { file, proposed } of prepared) {
        if (file.created) {
          const create = new vscode.WorkspaceEdit();
          create.createFile(file.uri, { ignoreIfExists: true });
          if (!(await vscode.workspace.applyEdit(create))) {
            throw new Error(`could not create ${file.uri.fsPath}`);
          }
        }
        const doc = await vscode.workspace.openTextDocument(file.uri);
        if (!(await setText(doc, proposed))) {
          throw new Error(`could not show the proposal in ${file.uri.fsPath}`);
        }
      }
      for (const file of review.files) {
        await showDiff(file);
      }
      // The proposal is in the editors now: the chat counts its lines.
      this.changed();
    } catch (err) {
      await this.finish(review, "reject");
      return { applied: false, failureReason: message(err) };
    }
    // The server withdraws a change that nobody waits for any more ($/cancelRequest).
    const cancelled = token.onCancellationRequested(() => void this.enqueue(() => this.finish(review, "cancel")));
    void answer.finally(() => cancelled.dispose());
    return { answer };
  }

  /** Accepts the whole change: what the right side holds now, including the user's edits, is kept. */
  accept(target?: unknown): Promise<void> {
    return this.enqueue(async () => {
      const review = this.reviewFor(target);
      if (review !== undefined) {
        await this.finish(review, "accept");
      }
    });
  }

  /** Rejects the whole change: every file gets its text from before the review back. */
  reject(target?: unknown): Promise<void> {
    return this.enqueue(async () => {
      const review = this.reviewFor(target);
      if (review !== undefined) {
        await this.finish(review, "reject");
      }
    });
  }

  acceptHunk(ref?: HunkRef): Promise<void> {
    return this.decideHunk(ref, async (file, doc, index) => {
      file.hunks = acceptHunk(file.hunks, doc.getText(), index);
      this.contentChanged.fire(file.originalUri);
      this.lensesChanged.fire();
    });
  }

  rejectHunk(ref?: HunkRef): Promise<void> {
    return this.decideHunk(ref, async (file, doc, index) => {
      if (!(await setText(doc, rejectHunk(file.hunks, doc.getText(), index)))) {
        throw new Error(`could not revert the hunk in ${file.uri.fsPath}`);
      }
    });
  }

  /** Shows the diff of the oldest change waiting for review again, for a user who closed it. */
  show(): Promise<void> {
    return this.enqueue(async () => {
      const review = this.reviews[0];
      if (review === undefined) {
        void vscode.window.showInformationMessage("No Gemini change is waiting for review.");
        return;
      }
      for (const file of review.files) {
        await showDiff(file);
      }
    });
  }

  /** Withdraws every open review, putting the files back, as when the server stops. */
  cancelAll(): Promise<void> {
    return this.enqueue(async () => {
      for (const review of [...this.reviews]) {
        await this.finish(review, "cancel");
      }
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.fileFor(uri)?.file.hunks.base ?? "";
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const found = this.fileFor(doc.uri);
    if (found === undefined) {
      return [];
    }
    return pendingHunks(found.file.hunks, doc.getText()).flatMap((hunk, index) => {
      const line = Math.min(hunk.currentStart, Math.max(doc.lineCount - 1, 0));
      const range = new vscode.Range(line, 0, line, 0);
      const args: HunkRef = { uri: doc.uri.toString(), index };
      return [
        new vscode.CodeLens(range, { title: "Accept Hunk", command: "gemini.review.acceptHunk", arguments: [args] }),
        new vscode.CodeLens(range, { title: "Reject Hunk", command: "gemini.review.rejectHunk", arguments: [args] }),
      ];
    });
  }

  dispose(): void {
    for (const review of this.reviews) {
      review.resolve({ applied: false, failureReason: "the editor closed the review" });
    }
    this.reviews.length = 0;
    vscode.Disposable.from(...this.disposables).dispose();
  }

  private decideHunk(
    ref: HunkRef | undefined,
    decide: (file: ReviewedFile, doc: vscode.TextDocument, index: number) => Promise<void>,
  ): Promise<void> {
    return this.enqueue(async () => {
      const target = this.hunkTarget(ref);
      if (target === undefined) {
        void vscode.window.showInformationMessage("There is no Gemini hunk to review here.");
        return;
      }
      const { review, file, index } = target;
      const doc = await vscode.workspace.openTextDocument(file.uri);
      await decide(file, doc, index);
      const left = await Promise.all(
        review.files.map(async (f) => ({
          pending: pendingHunks(f.hunks, (await vscode.workspace.openTextDocument(f.uri)).getText()).length,
          acceptedAny: f.hunks.acceptedAny,
        })),
      );
      const outcome = outcomeByHunks(left);
      if (outcome !== undefined) {
        await this.finish(review, outcome);
      }
    });
  }

  /** The hunk a command means: the CodeLens's arguments, else the one at the cursor. */
  private hunkTarget(ref: HunkRef | undefined): { review: Review; file: ReviewedFile; index: number } | undefined {
    if (ref !== undefined && typeof ref === "object" && "index" in ref) {
      const found = this.fileFor(typeof ref.uri === "string" ? vscode.Uri.parse(ref.uri) : ref.uri);
      return found && { ...found, index: ref.index };
    }
    const editor = vscode.window.activeTextEditor;
    const found = editor && this.fileFor(editor.document.uri);
    if (editor === undefined || found === undefined) {
      return undefined;
    }
    const current = findOpenDocument(found.file.uri)?.getText() ?? "";
    let hunks = pendingHunks(found.file.hunks, current);
    if (editor.document.uri.scheme === originalScheme) {
      // On the left the cursor counts lines of the base text.
      hunks = hunks.map((h) => ({ ...h, currentStart: h.baseStart, currentEnd: h.baseEnd }));
    }
    const index = hunkAtLine(hunks, editor.selection.active.line);
    return index === undefined ? undefined : { ...found, index };
  }

  /** The review a whole-change command means: the given file's, the active editor's, else the oldest. */
  private reviewFor(target: unknown): Review | undefined {
    const uri =
      target instanceof vscode.Uri
        ? target
        : typeof target === "object" && target !== null && "uri" in target
          ? vscode.Uri.parse(String((target as HunkRef).uri))
          : vscode.window.activeTextEditor?.document.uri;
    const review = (uri && this.fileFor(uri)?.review) ?? this.reviews[0];
    if (review === undefined) {
      void vscode.window.showInformationMessage("No Gemini change is waiting for review.");
    }
    return review;
  }

  private fileFor(uri: vscode.Uri): { review: Review; file: ReviewedFile } | undefined {
    const key = uri.toString();
    for (const review of this.reviews) {
      for (const file of review.files) {
        if (file.uri.toString() === key || file.originalUri.toString() === key) {
          return { review, file };
        }
      }
    }
    return undefined;
  }

  private async finish(review: Review, outcome: Outcome): Promise<void> {
    if (review.finished) {
      return;
    }
    review.finished = true;
    let failureReason: string | undefined;
    try {
      if (outcome === "accept") {
        if (this.options.autoSave()) {
          for (const file of review.files) {
            await saveIfDirty(file.uri);
          }
        }
      } else {
        for (const file of review.files) {
          await restore(file);
        }
      }
      await closeDiffs(review.files);
      for (const file of review.files) {
        if (outcome !== "accept" && file.created) {
          const remove = new vscode.WorkspaceEdit();
          remove.deleteFile(file.uri, { ignoreIfNotExists: true });
          await vscode.workspace.applyEdit(remove);
        }
      }
    } catch (err) {
      failureReason = message(err);
    } finally {
      this.reviews.splice(this.reviews.indexOf(review), 1);
      this.changed();
    }
    if (outcome === "accept") {
      review.resolve(failureReason === undefined ? { applied: true } : { applied: true, failureReason });
    } else {
      review.resolve({ applied: false, ...(failureReason !== undefined && { failureReason }) });
    }
  }

  /** The files waiting for review, each with the lines its pending hunks add and remove, for the chat. */
  pendingFiles(): FileStat[] {
    return this.reviews.flatMap((review) =>
      review.files.map((file) => {
        const current = vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.uri.toString())?.getText() ?? file.hunks.base;
        const hunks = pendingHunks(file.hunks, current);
        return {
          path: vscode.workspace.asRelativePath(file.uri, false),
          added: hunks.reduce((n, h) => n + h.currentEnd - h.currentStart, 0),
          removed: hunks.reduce((n, h) => n + h.baseEnd - h.baseStart, 0),
        };
      }),
    );
  }

  private changed(): void {
    void vscode.commands.executeCommand("setContext", "gemini.reviewing", this.reviews.length > 0);
    this.lensesChanged.fire();
    this.options.onDidChangeReviews(this.reviews.length);
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch((err: unknown) => {
      void vscode.window.showErrorMessage(`Gemini review: ${message(err)}`);
    });
    return run;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function staleReason(now: number, proposed: number): string {
  return `the document is at version ${now} in the editor, but the change was made for version ${proposed}`;
}

function findOpenDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

async function openIfExists(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  const open = findOpenDocument(uri);
  if (open !== undefined) {
    return open;
  }
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
  return vscode.workspace.openTextDocument(uri);
}

/** Replaces the document's text with the smallest edit, so cursor and undo stay sensible. */
async function setText(doc: vscode.TextDocument, text: string): Promise<boolean> {
  const r = minimalReplacement(doc.getText(), text);
  if (r.start === r.end && r.text === "") {
    return true;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
  return vscode.workspace.applyEdit(edit);
}

async function saveIfDirty(uri: vscode.Uri): Promise<void> {
  const doc = findOpenDocument(uri);
  if (doc?.isDirty && !(await doc.save())) {
    throw new Error(`could not save ${uri.fsPath}`);
  }
}

/** Puts a file back as it was before the review. */
async function restore(file: ReviewedFile): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(file.uri);
  if (!(await setText(doc, file.hunks.original))) {
    throw new Error(`could not restore ${file.uri.fsPath}`);
  }
  // The text is what is on disk again; saving clears the dirty mark the restore left.
  if (!file.wasDirty && doc.isDirty) {
    await doc.save();
  }
}

async function showDiff(file: ReviewedFile): Promise<void> {
  await vscode.commands.executeCommand("vscode.diff", file.originalUri, file.uri, file.title, { preview: false });
}

/** The diff's title for the agent's edit of a file. */
function editTitle(file: string): string {
  return `Gemini: ${file} (original ↔ proposed)`;
}

/**
 * Closes the review's diff editors. A document left with unsaved changes is
 * first shown in an editor of its own, so closing the diff neither loses
 * them nor asks the user to save.
 */
async function closeDiffs(files: readonly ReviewedFile[]): Promise<void> {
  const keys = new Set(files.map((f) => f.originalUri.toString()));
  for (const file of files) {
    const doc = findOpenDocument(file.uri);
    if (doc?.isDirty) {
      await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    }
  }
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && keys.has(t.input.original.toString()));
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs, true);
  }
}
