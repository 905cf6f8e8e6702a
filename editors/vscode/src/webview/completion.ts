// The prompt box's completion of "/name" commands: a list under the caret's
// word while a leading "/word" is typed, driven from the keyboard as VS
// Code's suggest widget is (Up/Down, Tab or Enter, Escape), and the chosen
// command's hint shown faintly after "/name " until arguments are typed.
// What matches and what accepting does is in ../slashCommands.

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
}

export class CommandCompletion {
  private commands: SlashCommand[] = [];
  private matches: Match[] = [];
  private selected = 0;
  /** The query the open list shows; undefined while it is closed. */
  private query?: string;
  /** The prompt as it was when Escape closed the list: it stays closed until the prompt changes. */
  private dismissed?: string;
  private startedWithSlash = false;

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

  /** Opens, filters or closes the list and the hint for the prompt as it is now. */
  update(): void {
    const text = this.input.value;
    const slash = text.startsWith("/");
    if (slash && !this.startedWithSlash) {
      this.el.refresh();
    }
    this.startedWithSlash = slash;
    if (text !== this.dismissed) {
      this.dismissed = undefined;
    }
    const focused = document.activeElement === this.input;
    const query = focused && this.dismissed === undefined ? slashQuery(text, this.input.selectionStart) : undefined;
    const matches = query === undefined ? [] : matchCommands(this.commands, query);
    // The same command stays selected while the list only refreshes.
    const keep = query === this.query ? this.matches[this.selected]?.command.name : undefined;
    this.selected = Math.max(0, matches.findIndex((m) => m.command.name === keep));
    this.matches = matches;
    this.query = matches.length > 0 ? query : undefined;
    this.renderList();
    this.renderGhost(text);
  }

  /**
   * Handles a key while the list is open; true when it did, so the prompt
   * must not (Enter does not send, Escape does not stop the running prompt).
   */
  onKeyDown(e: KeyboardEvent): boolean {
    if (this.query === undefined || e.isComposing || e.altKey || e.ctrlKey || e.metaKey) {
      return false;
    }
    switch (e.key) {
      case "ArrowDown":
      case "ArrowUp":
        this.select(moveSelection(this.selected, e.key === "ArrowDown" ? 1 : -1, this.matches.length));
        return true;
      case "Tab":
        if (e.shiftKey) {
          return false;
        }
        this.accept(this.selected);
        return true;
      case "Enter":
        if (e.shiftKey || !enterAccepts(this.query, this.matches[this.selected].command)) {
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
    const match = this.matches[index];
    if (match === undefined) {
      return;
    }
    const { text, caret } = acceptCommand(this.input.value, match.command.name);
    this.input.value = text;
    this.input.setSelectionRange(caret, caret);
    this.input.focus();
    this.update();
  }

  private close(): void {
    this.query = undefined;
    this.matches = [];
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
    const open = this.query !== undefined;
    list.replaceChildren(...this.matches.map((m, i) => option(m, i)));
    list.hidden = !open;
    this.input.setAttribute("aria-expanded", String(open));
    if (open) {
      this.select(this.selected);
      const n = this.matches.length;
      this.el.status.textContent = `${n} ${n === 1 ? "command" : "commands"}: Up and Down to choose, Tab to accept, Escape to close.`;
    } else {
      this.input.removeAttribute("aria-activedescendant");
      this.el.status.textContent = "";
    }
  }

  private renderGhost(text: string): void {
    const hint = this.query === undefined ? ghostHint(this.commands, text) : undefined;
    this.el.ghost.hidden = hint === undefined;
    this.el.ghostTyped.textContent = text;
    this.el.ghostHint.textContent = hint ?? "";
    if (hint !== undefined) {
      this.el.status.textContent = `Type ${hint}`;
    }
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

function span(className: string, text: string): HTMLSpanElement {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}
