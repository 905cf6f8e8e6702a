// The prompt's pickers (approval mode, model) open as a menu at the
// button, above the prompt, as Copilot Chat's model picker does, not as a
// QuickPick at the top of the window, far from the hands. Driven from the
// keyboard as a listbox: Up and Down, Enter or Space to choose, Escape to
// close; the focus goes back to the prompt.

import type { PickerItem as MenuItem } from "../chatProtocol";

export class PickerMenu {
  private anchor?: HTMLButtonElement;
  private items: MenuItem[] = [];
  private selected = 0;
  private onPick?: (id: string) => void;

  constructor(
    private readonly list: HTMLUListElement,
    /** Where the focus goes back when the menu closes. */
    private readonly home: HTMLElement,
  ) {
    list.addEventListener("mousedown", (e) => e.preventDefault());
    list.addEventListener("click", (e) => {
      const row = (e.target as Element).closest<HTMLElement>("[data-index]");
      if (row !== null) {
        this.choose(Number(row.dataset.index));
      }
    });
    list.addEventListener("keydown", (e) => {
      if (this.onKey(e.key)) {
        e.preventDefault();
        e.stopPropagation();
      }
    });
    list.addEventListener("focusout", (e) => {
      if (!list.contains(e.relatedTarget as Node | null) && e.relatedTarget !== this.anchor) {
        this.close(false);
      }
    });
  }

  get open(): boolean {
    return !this.list.hidden;
  }

  /** Whether the menu is open at anchor's button. */
  openAt(anchor: HTMLElement): boolean {
    return this.open && this.anchor === anchor;
  }

  /** Opens the menu at anchor with items, the checked one selected; a second click on the same button closes it. */
  show(anchor: HTMLButtonElement, label: string, items: MenuItem[], onPick: (id: string) => void): void {
    if (this.open && this.anchor === anchor) {
      this.close(true);
      return;
    }
    this.close(false);
    this.anchor = anchor;
    this.items = items;
    this.onPick = onPick;
    this.selected = Math.max(0, items.findIndex((i) => i.checked));
    this.list.setAttribute("aria-label", label);
    this.list.replaceChildren(...items.map((item, i) => this.row(item, i)));
    this.list.hidden = false;
    // Just above the button, its left edge at the button's as far as the composer's width allows.
    const box = this.list.offsetParent?.getBoundingClientRect();
    const at = anchor.getBoundingClientRect();
    if (box !== undefined) {
      this.list.style.bottom = `${box.bottom - at.top + 2}px`;
      this.list.style.left = `${Math.max(0, Math.min(at.left - box.left, box.width - this.list.offsetWidth))}px`;
    }
    anchor.setAttribute("aria-expanded", "true");
    this.select(this.selected);
    this.list.focus();
  }

  /** Closes the menu; the focus goes back to the prompt when refocus. */
  close(refocus: boolean): void {
    if (!this.open) {
      return;
    }
    this.list.hidden = true;
    this.anchor?.setAttribute("aria-expanded", "false");
    this.anchor = undefined;
    if (refocus) {
      this.home.focus();
    }
  }

  private row(item: MenuItem, index: number): HTMLLIElement {
    const li = document.createElement("li");
    li.id = `${this.list.id}-${index}`;
    li.className = "picker-option";
    li.setAttribute("role", "option");
    li.setAttribute("aria-checked", String(item.checked));
    li.dataset.index = String(index);
    li.dataset.id = item.id;
    const check = document.createElement("span");
    check.className = `codicon codicon-${item.checked ? "check" : "blank"}`;
    check.setAttribute("aria-hidden", "true");
    const text = document.createElement("span");
    text.className = "picker-option-text";
    const label = document.createElement("span");
    label.className = "picker-option-label";
    label.textContent = item.label;
    text.append(label);
    if (item.detail) {
      const detail = document.createElement("span");
      detail.className = "picker-option-detail";
      detail.textContent = item.detail;
      text.append(detail);
    }
    li.append(check, text);
    return li;
  }

  private select(index: number): void {
    this.selected = index;
    for (const row of this.list.children) {
      row.setAttribute("aria-selected", String(row.id === `${this.list.id}-${index}`));
    }
    this.list.setAttribute("aria-activedescendant", `${this.list.id}-${index}`);
    this.list.children[index]?.scrollIntoView({ block: "nearest" });
  }

  private choose(index: number): void {
    const item = this.items[index];
    const onPick = this.onPick;
    this.close(true);
    if (item !== undefined && onPick !== undefined) {
      onPick(item.id);
    }
  }

  private onKey(key: string): boolean {
    const n = this.items.length;
    switch (key) {
      case "ArrowDown":
        this.select((this.selected + 1) % n);
        return true;
      case "ArrowUp":
        this.select((this.selected - 1 + n) % n);
        return true;
      case "Home":
        this.select(0);
        return true;
      case "End":
        this.select(n - 1);
        return true;
      case "Enter":
      case " ":
        this.choose(this.selected);
        return true;
      case "Escape":
      case "Tab":
        this.close(true);
        return true;
      default:
        return false;
    }
  }
}
