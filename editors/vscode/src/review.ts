// Reviewing the changes gemini-ls proposes. An annotated workspace/applyEdit
// opens VS Code's diff editor: the text before on the left (read-only), the
// proposal on the right, a document of our own in memory (proposals.ts) that
// the user may change. The real file, its document and the disk are not
// touched until the user accepts; a new file does not exist until then. The
// request is answered only once the user has accepted or rejected the
// change, as a whole or hunk by hunk.

import * as path from "node:path";
import type { FileStat } from "./chatModel";
import * as vscode from "vscode";
import { planEdit, proposedText, minimalReplacement, type FileChange, type WorkspaceEdit } from "./edits";
import { acceptHunk, hunkAtLine, outcomeByHunks, pendingHunks, pendingStat, rejectHunk, startHunks, type HunkState } from "./hunks";
import { ProposalFileSystem, proposalScheme } from "./proposals";
import { acceptChangesAnything, fileToFocus } from "./reviewEnd";

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
  /** The real file, untouched until Accept. */
  uri: vscode.Uri;
  /** The diff's tab title. */
  title: string;
  /** The left side of the diff, served by this manager. */
  originalUri: vscode.Uri;
  /** The right side of the diff: the proposal, in memory (proposals.ts). */
  proposalUri: vscode.Uri;
  /** The file does not exist: Accept creates it. */
  created: boolean;
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
  /** The reviews, or the lines their undecided hunks add and remove, changed. */
  onDidChangeReviews: (count: number) => void;
}

export class ReviewManager implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly reviews: Review[] = [];
  private nextId = 1;
  /** Review operations run one at a time, so two clicks cannot interleave edits. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly proposals = new ProposalFileSystem();
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChange = this.contentChanged.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  /** The counts last told (pendingFiles), so typing in a proposal tells only what changes them. */
  private toldCounts = "";
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly options: ReviewOptions) {
    this.disposables = [
      this.proposals,
      vscode.workspace.registerTextDocumentContentProvider(originalScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: proposalScheme }, this),
      // An edit of a proposal (typed, the diff editor's revert arrow, a
      // formatter) changes what is left to decide.
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === proposalScheme && this.fileFor(e.document.uri) !== undefined) {
          this.countsChanged();
        }
      }),
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
    // Work out every file's proposal before showing anything, so a change
    // that cannot be shown leaves no trace.
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
      const query = `review=${id}`;
      prepared.push({
        file: {
          uri,
          title: title(path.basename(uri.fsPath)),
          originalUri: uri.with({ scheme: originalScheme, query }),
          proposalUri: uri.with({ scheme: proposalScheme, query }),
          created: doc === undefined,
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
    for (const { file, proposed } of prepared) {
      this.proposals.put(file.proposalUri, proposed);
    }
    this.reviews.push(review);
    this.changed();
    try {
      for (const file of review.files) {
        await showDiff(file);
      }
    } catch (err) {
      await this.finish(review, "reject");
      return { applied: false, failureReason: `could not show the change: ${message(err)}` };
    }
    // The server withdraws a change that nobody waits for any more ($/cancelRequest).
    const cancelled = token.onCancellationRequested(() => void this.enqueue(() => this.finish(review, "cancel")));
    void answer.finally(() => cancelled.dispose());
    return { answer };
  }

  /** Accepts the whole change: what the right side holds now, including the user's edits, is written to the file. */
  accept(target?: unknown): Promise<void> {
    return this.enqueue(async () => {
      const review = this.reviewFor(target);
      if (review !== undefined) {
        await this.finish(review, "accept");
      }
    });
  }

  /** Rejects the whole change: the files were never touched, so nothing changes. */
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
      this.countsChanged();
    });
  }

  rejectHunk(ref?: HunkRef): Promise<void> {
    return this.decideHunk(ref, async (file, doc, index) => {
      if (!(await setText(doc, rejectHunk(file.hunks, doc.getText(), index)))) {
        throw new Error(`could not revert the hunk in the proposal for ${file.uri.fsPath}`);
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

  /** Withdraws every open review, as when the server stops. */
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
      const doc = await vscode.workspace.openTextDocument(file.proposalUri);
      await decide(file, doc, index);
      const left = review.files.map((f) => ({
        pending: pendingHunks(f.hunks, this.proposalText(f)).length,
        acceptedAny: f.hunks.acceptedAny,
      }));
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
    let hunks = pendingHunks(found.file.hunks, this.proposalText(found.file));
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

  /** The review of a file, by the real file's URI or either side of its diff. */
  private fileFor(uri: vscode.Uri): { review: Review; file: ReviewedFile } | undefined {
    const key = uri.toString();
    for (const review of this.reviews) {
      for (const file of review.files) {
        if ([file.uri, file.originalUri, file.proposalUri].some((u) => u.toString() === key)) {
          return { review, file };
        }
      }
    }
    return undefined;
  }

  /** What the proposal holds now: its document's text, unsaved edits included. */
  private proposalText(file: ReviewedFile): string {
    return findOpenDocument(file.proposalUri)?.getText() ?? this.proposals.text(file.proposalUri) ?? file.hunks.base;
  }

  private async finish(review: Review, outcome: Outcome): Promise<void> {
    if (review.finished) {
      return;
    }
    review.finished = true;
    let applied = false;
    let failureReason: string | undefined;
    try {
      if (outcome === "accept") {
        const finals = review.files.map((file) => ({ file, text: this.proposalText(file) }));
        if (acceptChangesAnything(finals.map(({ file, text }) => ({ created: file.created, original: file.hunks.original, final: text })))) {
          await writeProposals(finals);
          applied = true;
          if (this.options.autoSave()) {
            for (const file of review.files) {
              await saveIfDirty(file.uri);
            }
          }
        } else {
          // Every hunk was put back: nothing to write, and the model is told so.
          outcome = "reject";
        }
      }
    } catch (err) {
      failureReason = message(err);
    }
    try {
      await this.closeDiffs(review, outcome, applied);
    } catch (err) {
      failureReason ??= message(err);
    } finally {
      for (const file of review.files) {
        this.proposals.remove(file.proposalUri);
      }
      this.reviews.splice(this.reviews.indexOf(review), 1);
      this.changed();
    }
    review.resolve({ applied, ...(failureReason !== undefined && { failureReason }) });
    if (outcome === "accept" && !applied && failureReason !== undefined) {
      void vscode.window.showErrorMessage(`Gemini: the change was not applied: ${failureReason}.`);
    }
  }

  /**
   * Closes the review's diffs. Once the user decided, the file they were
   * looking at takes the diff's place and the focus, rather than whatever
   * tab is next to it.
   */
  private async closeDiffs(review: Review, outcome: Outcome, applied: boolean): Promise<void> {
    const tabOf = diffTabs();
    // A proposal edited since its last save is saved into memory, so closing its diff asks nothing.
    for (const file of review.files) {
      const doc = findOpenDocument(file.proposalUri);
      if (doc?.isDirty) {
        await doc.save();
      }
    }
    if (outcome !== "cancel") {
      const focus = fileToFocus(
        review.files.map((f) => {
          const tab = tabOf.get(f.originalUri.toString());
          return { exists: !f.created || applied, diffActive: tab !== undefined && tab.isActive && tab.group.isActive };
        }),
      );
      if (focus !== undefined) {
        const file = review.files[focus];
        const column = tabOf.get(file.originalUri.toString())?.group.viewColumn;
        await vscode.window.showTextDocument(file.uri, { viewColumn: column, preview: false, preserveFocus: false });
      }
    }
    // Looked up again: showing the file changed the groups' tabs, and a tab
    // object from before is no longer one VS Code can close.
    const now = diffTabs();
    const tabs = review.files.flatMap((f) => now.get(f.originalUri.toString()) ?? []);
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  /** The files waiting for review, each with the lines its undecided hunks add and remove, for the chat. */
  pendingFiles(): FileStat[] {
    return this.reviews.flatMap((review) =>
      review.files.map((file) => ({ path: vscode.workspace.asRelativePath(file.uri, false), ...pendingStat(file.hunks, this.proposalText(file)) })),
    );
  }

  /** Reviews opened or ended. */
  private changed(): void {
    void vscode.commands.executeCommand("setContext", "gemini.reviewing", this.reviews.length > 0);
    this.lensesChanged.fire();
    this.toldCounts = JSON.stringify(this.pendingFiles());
    this.options.onDidChangeReviews(this.reviews.length);
  }

  /** A hunk was decided or a proposal edited: the lenses move, and the counts are told if they changed. */
  private countsChanged(): void {
    this.lensesChanged.fire();
    const counts = JSON.stringify(this.pendingFiles());
    if (counts !== this.toldCounts) {
      this.toldCounts = counts;
      this.options.onDidChangeReviews(this.reviews.length);
    }
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

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function openIfExists(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  const open = findOpenDocument(uri);
  if (open !== undefined) {
    return open;
  }
  return (await exists(uri)) ? vscode.workspace.openTextDocument(uri) : undefined;
}

/**
 * Writes the accepted proposals into the real files, as one edit: a file
 * changed in the meantime (the review never locked it) or a new file that
 * appeared refuses the whole Accept rather than overwrite what is there.
 */
async function writeProposals(finals: ReadonlyArray<{ file: ReviewedFile; text: string }>): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  for (const { file, text } of finals) {
    if (file.created) {
      if (await exists(file.uri)) {
        throw new Error(`${file.uri.fsPath} was created while its change was in review, so nothing was written`);
      }
      edit.createFile(file.uri, { overwrite: false });
      edit.insert(file.uri, new vscode.Position(0, 0), text);
      continue;
    }
    const doc = await vscode.workspace.openTextDocument(file.uri);
    if (doc.getText() !== file.hunks.original) {
      throw new Error(`${file.uri.fsPath} changed while its change was in review, so nothing was written`);
    }
    const r = minimalReplacement(doc.getText(), text);
    if (r.start !== r.end || r.text !== "") {
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
    }
  }
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new Error(`VS Code did not apply the accepted change to ${finals.map((f) => f.file.uri.fsPath).join(", ")}`);
  }
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

async function showDiff(file: ReviewedFile): Promise<void> {
  await vscode.commands.executeCommand("vscode.diff", file.originalUri, file.proposalUri, file.title, { preview: false });
}

/** The diff editors' tabs, by the URI of their left side. */
function diffTabs(): Map<string, vscode.Tab> {
  return new Map(
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).flatMap((t) => (t.input instanceof vscode.TabInputTextDiff ? [[t.input.original.toString(), t] as const] : [])),
  );
}

/** The diff's title for the agent's edit of a file. */
function editTitle(file: string): string {
  return `Gemini: ${file} (original ↔ proposed)`;
}
