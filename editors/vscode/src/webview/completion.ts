// The prompt box's completion of "/name" commands, "@path" files and
// "#name" context: a list under the caret's word while a leading "/word",
// an "@word" or a "#word" is typed,
// driven from the keyboard as VS Code's suggest widget is (Up/Down, Tab or
// Enter, Escape), and the chosen command's hint shown faintly after
// "/name " until arguments are typed. What matches and what accepting does
// is in ../slashCommands, ../atFiles and ../contextItems.

import { acceptFile, atQuery, matchFiles, type FileMatch } from "../atFiles";
import { acceptContext, hashQuery, matchContext, type ContextItem } from "../contextItems";
import {
  acceptCommand,
  enterAccepts,
  ghostHint,
  matchCommands,
  moveSelection,
  slashQuery,
  type Match,
  type SlashCommand,
} from "../slashCommands";

export interface CompletionElements {
  list: HTMLUListElement;
  /** Overlays the prompt: the typed text, invisible, then the hint. */
  ghost: HTMLElement;
  ghostTyped: HTMLElement;
  ghostHint: HTMLElement;
  /** Read out to screen readers: how many commands match, or the hint. */
  status: HTMLElement;
  /** Asks the extension to refresh the list, which it does if the list has aged. */
  refresh: () => void;
  /** Asks the extension for the workspace's files, on each new "@". */
  refreshFiles: () => void;
  /** Asks the extension what the editor shows, on each new "#". */
  refreshContext: () => void;
}

/** What the open list offers: commands for a leading "/word", files for an "@word", context for a "#word". */
type Offer =
  | { kind: "command"; query: string; matches: Match[] }
  | { kind: "file"; query: string; start: number; matches: FileMatch[] }
  | { kind: "context"; query: string; start: number; matches: ContextItem[] };

export class CommandCompletion {
  private commands: SlashCommand[] = [];
  private files: string[] = [];
  private context: ContextItem[] = [];
  private selected = 0;
  /** What the open list shows; undefined while it is closed. */
  private offer?: Offer;
  /** The prompt as it was when Escape closed the list: it stays closed until the prompt changes. */
  private dismissed?: string;
  private startedWithSlash = false;
  /** Where the "@" being typed is, to ask for the files once per reference. */
  private atStart?: number;
  /** Where the "#" being typed is, to ask for the context once per name. */
  private hashStart?: number;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly el: CompletionElements,
  ) {
    input.addEventListener("input", () => this.update());
    input.addEventListener("focus", () => this.update());
    input.addEventListener("blur", () => this.close());
    // The caret may leave the name without the text changing.
    input.addEventListener("click", () => this.update());
    input.addEventListener("keyup", (e) => {
      if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) {
        this.update();
      }
    });
    // A click on a row must not take the focus from the prompt.
    el.list.addEventListener("mousedown", (e) => e.preventDefault());
    el.list.addEventListener("click", (e) => {
      const row = (e.target as Element).closest<HTMLElement>("[data-index]");
      if (row !== null) {
        this.accept(Number(row.dataset.index));
      }
    });
  }

  setCommands(commands: SlashCommand[]): void {
    this.commands = commands;
    this.update();
  }

  setFiles(files: string[]): void {
    this.files = files;
    this.update();
  }

  setContext(items: ContextItem[]): void {
    this.context = items;
    this.update();
  }

  /** Opens, filters or closes the list and the hint for the prompt as it is now. */
  update(): void {
    const text = this.input.value;
    const startsWithSlash = text.startsWith("/");
    if (startsWithSlash && !this.startedWithSlash) {
      this.el.refresh();
    }
    this.startedWithSlash = startsWithSlash;
    if (text !== this.dismissed) {
      this.dismissed = undefined;
    }
    const focused = document.activeElement === this.input;
    const open = focused && this.dismissed === undefined;
    const caret = this.input.selectionStart;
    const slash = open ? slashQuery(text, caret) : undefined;
    const at = open && slash === undefined ? atQuery(text, caret) : undefined;
    const hash = open && slash === undefined && at === undefined ? hashQuery(text, caret) : undefined;
    if (at !== undefined && at.start !== this.atStart) {
      this.el.refreshFiles();
    }
    this.atStart = at?.start;
    if (hash !== undefined && hash.start !== this.hashStart) {
      this.el.refreshContext();
    }
    this.hashStart = hash?.start;
    let offer: Offer | undefined;
    if (slash !== undefined) {
      offer = { kind: "command", query: slash, matches: matchCommands(this.commands, slash) };
    } else if (at !== undefined) {
      offer = { kind: "file", query: at.query, start: at.start, matches: matchFiles(this.files, at.query) };
    } else if (hash !== undefined) {
      offer = { kind: "context", query: hash.query, start: hash.start, matches: matchContext(this.context, hash.query) };
    }
    // The same row stays selected while the list only refreshes.
    const keep = offer?.kind === this.offer?.kind && offer?.query === this.offer?.query ? this.rowKey(this.offer, this.selected) : undefined;
    this.selected = offer === undefined ? 0 : Math.max(0, offer.matches.findIndex((_, i) => this.rowKey(offer, i) === keep));
    this.offer = offer !== undefined && offer.matches.length > 0 ? offer : undefined;
    this.renderList();
    this.renderGhost(text);
  }

  /** What identifies row i of offer across refreshes: the command's or the item's name, or the file's path. */
  private rowKey(offer: Offer | undefined, i: number): string | undefined {
    switch (offer?.kind) {
      case "command":
        return offer.matches[i]?.command.name;
      case "file":
        return offer.matches[i]?.path;
      case "context":
        return offer.matches[i]?.name;
      default:
        return undefined;
    }
  }

  /**
   * Handles a key while the list is open; true when it did, so the prompt
   * must not (Enter does not send, Escape does not stop the running prompt).
   */
  onKeyDown(e: KeyboardEvent): boolean {
    const offer = this.offer;
    if (offer === undefined || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) {
      return false;
    }
    switch (e.key) {
      case "ArrowDown":
      case "ArrowUp":
        this.select(moveSelection(this.selected, e.key === "ArrowDown" ? 1 : -1, offer.matches.length));
        return true;
      case "Tab":
        if (e.shiftKey) {
          return false;
        }
        this.accept(this.selected);
        return true;
      case "Enter":
        if (e.shiftKey || (offer.kind === "command" && !enterAccepts(offer.query, offer.matches[this.selected].command))) {
          this.close();
          return false;
        }
        this.accept(this.selected);
        return true;
      case "Escape":
        this.dismissed = this.input.value;
        this.close();
        return true;
      default:
        return false;
    }
  }

  private accept(index: number): void {
    const offer = this.offer;
    if (offer === undefined || offer.matches[index] === undefined) {
      return;
    }
    const { text, caret } = this.accepted(offer, index);
    this.input.value = text;
    this.input.setSelectionRange(caret, caret);
    this.input.focus();
    this.update();
  }

  /** The prompt and caret after accepting row index of offer. */
  private accepted(offer: Offer, index: number): { text: string; caret: number } {
    const prompt = this.input.value;
    switch (offer.kind) {
      case "command":
        return acceptCommand(prompt, offer.matches[index].command.name);
      case "file":
        return acceptFile(prompt, offer.start, this.input.selectionStart, offer.matches[index].path);
      case "context":
        return acceptContext(prompt, offer.start, this.input.selectionStart, offer.matches[index]);
    }
  }

  private close(): void {
    this.offer = undefined;
    this.renderList();
  }

  private select(index: number): void {
    this.selected = index;
    for (const row of this.el.list.children) {
      row.setAttribute("aria-selected", String(row.id === optionId(index)));
    }
    this.input.setAttribute("aria-activedescendant", optionId(index));
    this.el.list.children[index]?.scrollIntoView({ block: "nearest" });
  }

  private renderList(): void {
    const list = this.el.list;
    const offer = this.offer;
    list.replaceChildren(...rowsOf(offer));
    list.hidden = offer === undefined;
    list.setAttribute("aria-label", offer === undefined ? "Commands" : listLabels[offer.kind]);
    this.input.setAttribute("aria-expanded", String(offer !== undefined));
    if (offer !== undefined) {
      this.select(this.selected);
      const n = offer.matches.length;
      const what = listLabels[offer.kind].toLowerCase();
      this.el.status.textContent = `${n} ${n === 1 ? what.replace(/s$/, "") : what}: Up and Down to choose, Tab to accept, Escape to close.`;
    } else {
      this.input.removeAttribute("aria-activedescendant");
      this.el.status.textContent = "";
    }
  }

  private renderGhost(text: string): void {
    const hint = this.offer === undefined ? ghostHint(this.commands, text) : undefined;
    this.el.ghost.hidden = hint === undefined;
    this.el.ghostTyped.textContent = text;
    this.el.ghostHint.textContent = hint ?? "";
    if (hint !== undefined) {
      this.el.status.textContent = `Type ${hint}`;
    }
  }
}

const listLabels = { command: "Commands", file: "Files", context: "Context items" } as const;

function rowsOf(offer: Offer | undefined): HTMLLIElement[] {
  switch (offer?.kind) {
    case "command":
      return offer.matches.map((m, i) => option(m, i));
    case "file":
      return offer.matches.map((m, i) => fileOption(m, i));
    case "context":
      return offer.matches.map((m, i) => contextOption(m, offer.query.length, i));
    default:
      return [];
  }
}

function optionId(index: number): string {
  return `command-option-${index}`;
}

/** One row: "/name" with the typed part marked, the hint, where it comes from, and the description below. */
function option(match: Match, index: number): HTMLLIElement {
  const { command, start, end } = match;
  const row = document.createElement("li");
  row.id = optionId(index);
  row.className = "command-option";
  row.setAttribute("role", "option");
  row.dataset.index = String(index);
  const name = span("command-name", "/" + command.name.slice(0, start));
  const typed = document.createElement("mark");
  typed.textContent = command.name.slice(start, end);
  name.append(typed, command.name.slice(end));
  const head = document.createElement("div");
  head.className = "command-head";
  head.append(name);
  if (command.hint !== "") {
    head.append(span("command-arg-hint", command.hint));
  }
  if (command.source !== "") {
    head.append(span("command-source", command.source));
  }
  row.append(head);
  if (command.description !== "") {
    row.append(span("command-description", command.description));
  }
  return row;
}

/** One row of files: "@path" with the typed part marked. */
function fileOption(match: FileMatch, index: number): HTMLLIElement {
  const { path, start, end } = match;
  const row = document.createElement("li");
  row.id = optionId(index);
  row.className = "command-option file-option";
  row.setAttribute("role", "option");
  row.dataset.index = String(index);
  const name = span("command-name", "@" + path.slice(0, start));
  const typed = document.createElement("mark");
  typed.textContent = path.slice(start, end);
  name.append(typed, path.slice(end));
  const head = document.createElement("div");
  head.className = "command-head";
  head.append(name);
  row.append(head);
  return row;
}

/** One row of context: "#name" with the typed part marked, and what it is now below. */
function contextOption(item: ContextItem, typed: number, index: number): HTMLLIElement {
  const row = document.createElement("li");
  row.id = optionId(index);
  row.className = "command-option context-option";
  row.setAttribute("role", "option");
  row.dataset.index = String(index);
  const name = span("command-name", "#");
  const mark = document.createElement("mark");
  mark.textContent = item.name.slice(0, typed);
  name.append(mark, item.name.slice(typed));
  const head = document.createElement("div");
  head.className = "command-head";
  head.append(name);
  row.append(head, span("command-description", item.description));
  return row;
}

function span(className: string, text: string): HTMLSpanElement {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}
