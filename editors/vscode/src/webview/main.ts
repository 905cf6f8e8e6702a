// The chat webview: keeps a copy of the chat state by running the same
// reducer as the extension, and redraws only the items whose rev changed.

import { confirmKind } from "../approval";
import { buildAnswer, questionHeading, type AskAnswer, type AskParams } from "../ask";
import { activity, applyEvent, emptyChat, hiddenByQuestion, type ChatState, type FileStat, type FoundPlace, type Item, type Turn } from "../chatModel";
import { chatCommandLabels, type ChatCommand } from "../chatCommands";
import type { ChatMessage, ChatRequest } from "../chatProtocol";
import { insertReference } from "../contextItems";
import { approvalModes, cycledMode, modeLabel } from "../modes";
import { usageView } from "../present";
import { structuredReport } from "../report";
import { shellTranscript } from "../shellOutput";
import { diffLineKinds, diffStat, foundRows, isEdit, kindIcon, outcomeIcons, statText, todoIcon, toolOutcome, turnChanges } from "../toolView";
import { CommandCompletion } from "./completion";
import { PickerMenu } from "./pickerMenu";
import { highlightCode } from "./highlight";
import { askedHTML, renderMarkdown } from "./markdown";

declare function acquireVsCodeApi(): { postMessage(msg: ChatRequest): void };

const vscode = acquireVsCodeApi();
const messages = byId<HTMLDivElement>("messages");
const empty = byId<HTMLDivElement>("empty");
const prompt = byId<HTMLTextAreaElement>("prompt");
const send = byId<HTMLButtonElement>("send");
const stop = byId<HTMLButtonElement>("stop");
const working = byId<HTMLDivElement>("working");
const workingText = byId<HTMLSpanElement>("working-text");
const sessionTitle = byId<HTMLSpanElement>("session-title");
const modePicker = byId<HTMLButtonElement>("mode-picker");
const modelPicker = byId<HTMLButtonElement>("model-picker");
const modeText = byId<HTMLSpanElement>("mode-text");
const modelText = byId<HTMLSpanElement>("model-text");
const restricted = byId<HTMLDivElement>("restricted");
const pendingReview = byId<HTMLDivElement>("pending-review");
const plan = byId<HTMLElement>("plan");
const planItems = byId<HTMLOListElement>("plan-items");
const planCount = byId<HTMLSpanElement>("plan-count");
const usage = byId<HTMLSpanElement>("usage");
const pendingReviewFiles = byId<HTMLUListElement>("pending-review-files");

let state: ChatState = emptyChat();
const completion = new CommandCompletion(prompt, {
  list: byId<HTMLUListElement>("command-list"),
  ghost: byId<HTMLDivElement>("ghost"),
  ghostTyped: byId<HTMLSpanElement>("ghost-typed"),
  ghostHint: byId<HTMLSpanElement>("ghost-hint"),
  status: byId<HTMLSpanElement>("command-hint"),
  refresh: () => vscode.postMessage({ type: "commands" }),
  refreshFiles: () => vscode.postMessage({ type: "files" }),
  refreshContext: () => vscode.postMessage({ type: "context" }),
});
const pickerMenu = new PickerMenu(byId<HTMLUListElement>("picker-menu"), prompt);
/** The rev each item element was last drawn at. */
const drawn = new WeakMap<Element, number>();
let frame = 0;

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) {
    throw new Error(`chat view: #${id} is missing`);
  }
  return el as T;
}

window.addEventListener("message", (e: MessageEvent<ChatMessage>) => {
  const msg = e.data;
  if (msg.type === "state") {
    state = msg.state;
    clearTurns();
  } else if (msg.type === "event") {
    applyEvent(state, msg.event);
    if (msg.event.type === "session") {
      clearTurns();
    }
  } else if (msg.type === "commands") {
    completion.setCommands(msg.commands);
    return;
  } else if (msg.type === "files") {
    completion.setFiles(msg.files);
    return;
  } else if (msg.type === "context") {
    completion.setContext(msg.items);
    return;
  } else if (msg.type === "model") {
    modelText.textContent = msg.label || "Model";
    return;
  } else if (msg.type === "models") {
    pickerMenu.show(modelPicker, "Model", msg.models, (id) => vscode.postMessage({ type: "setModel", id }));
    return;
  } else if (msg.type === "clearPrompt") {
    if (prompt.value === msg.text) {
      prompt.value = "";
      fitPrompt();
    }
    return;
  } else if (msg.type === "insertPrompt") {
    insertIntoPrompt(msg.text);
    return;
  } else if (msg.type === "trust") {
    restricted.hidden = msg.trusted;
    return;
  }
  scheduleRender();
});

/** Puts an Add Context reference at the prompt's caret and gives the prompt the keyboard. */
function insertIntoPrompt(text: string): void {
  const { text: value, caret } = insertReference(prompt.value, prompt.selectionStart, text);
  prompt.value = value;
  prompt.focus();
  prompt.setSelectionRange(caret, caret);
  completion.update();
  fitPrompt();
}

/** The prompt grows with its text, as Copilot Chat's, up to its max-height (chat.css): no resize grip to drag. */
function fitPrompt(): void {
  prompt.style.height = "auto";
  prompt.style.height = `${prompt.scrollHeight + 2}px`;
}
prompt.addEventListener("input", fitPrompt);

document.getElementById("composer")?.addEventListener("submit", (e) => {
  e.preventDefault();
  submit();
});
prompt.addEventListener("keydown", (e) => {
  if (completion.onKeyDown(e)) {
    e.preventDefault();
    e.stopPropagation();
  } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  } else if (e.key === "Tab" && e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
    // Shift+Tab switches the approval mode, as in Gemini CLI and Claude Code (modes.ts).
    e.preventDefault();
    vscode.postMessage({ type: "setMode", mode: cycledMode(state.mode, state.busy) });
  } else if (e.key === "Escape" && state.busy) {
    vscode.postMessage({ type: "cancel" });
  }
});
stop.addEventListener("click", () => vscode.postMessage({ type: "cancel" }));
byId<HTMLButtonElement>("background").addEventListener("click", () => vscode.postMessage({ type: "background", text: prompt.value }));
modePicker.addEventListener("click", () =>
  pickerMenu.show(
    modePicker,
    "Approval mode",
    approvalModes.map((m) => ({ id: m.mode, label: m.label, detail: m.detail, checked: m.mode === state.mode })),
    (mode) => vscode.postMessage({ type: "setMode", mode }),
  ),
);
// The models are the server's: the extension asks it and sends them back ("models").
modelPicker.addEventListener("click", () => (pickerMenu.openAt(modelPicker) ? pickerMenu.close(true) : vscode.postMessage({ type: "pickModel" })));
byId("add-context").addEventListener("click", () => vscode.postMessage({ type: "addContext" }));
// The chat's command buttons (an error's Enter API Key, Restricted Mode's
// Manage Workspace Trust, a review's Accept), wherever they are drawn.
document.body.addEventListener("click", (e) => {
  const button = (e.target as Element).closest<HTMLButtonElement>("button[data-command]");
  if (button !== null) {
    vscode.postMessage({ type: "run", command: button.dataset.command as ChatCommand });
  }
});
// A suggested prompt of the empty chat (Copilot Chat's suggestions): sent as if typed.
empty.addEventListener("click", (e) => {
  const text = (e.target as Element).closest<HTMLButtonElement>("button[data-suggest]")?.dataset.suggest;
  if (text !== undefined && !state.busy) {
    vscode.postMessage({ type: "prompt", text });
  }
});
// A code block's Copy and Insert at Cursor, for every answer drawn now or later.
messages.addEventListener("click", (e) => {
  const button = (e.target as Element).closest<HTMLButtonElement>("button[data-code-action]");
  const code = button?.closest(".code-block")?.querySelector("pre code");
  if (button == null || code == null) {
    return;
  }
  const text = code.textContent ?? "";
  vscode.postMessage(button.dataset.codeAction === "copy" ? { type: "copy", text } : { type: "insertCode", text });
});

function submit(): void {
  const text = prompt.value;
  if (text.trim() === "" || state.busy) {
    return;
  }
  vscode.postMessage({ type: "prompt", text });
  prompt.value = "";
  completion.update();
  fitPrompt();
}

function clearTurns(): void {
  for (const el of [...messages.querySelectorAll(".turn")]) {
    el.remove();
  }
}

function scheduleRender(): void {
  if (frame === 0) {
    frame = requestAnimationFrame(() => {
      frame = 0;
      render();
    });
  }
}

function render(): void {
  // Follow the stream only if the user has not scrolled up to read.
  const atBottom = messages.scrollHeight - messages.scrollTop - messages.clientHeight < 40;
  empty.hidden = state.turns.length > 0;
  sessionTitle.textContent = state.sessionTitle ?? state.turns[0]?.prompt ?? "New session";
  sessionTitle.title = state.sessionId ? `Session ${state.sessionId}` : "A new session starts with the next prompt";
  modeText.textContent = modeLabel(state.mode);
  modePicker.dataset.mode = state.mode;
  state.turns.forEach((turn, i) => renderTurn(turn, i));
  // Stop takes Send's place while a prompt runs, as in Copilot Chat.
  send.disabled = state.busy;
  send.hidden = state.busy;
  stop.hidden = !state.busy;
  stop.disabled = !state.busy || state.stopping;
  stop.title = state.stopping ? "Stopping…" : "Stop (Escape)";
  stop.setAttribute("aria-label", state.stopping ? "Stopping" : "Stop");
  working.hidden = !state.busy;
  workingText.textContent = activity(state);
  drawPlan();
  drawUsage();
  pendingReview.hidden = state.review.length === 0;
  pendingReviewFiles.replaceChildren(...state.review.map((f) => fileRow(f.path, f)));
  if (atBottom) {
    messages.scrollTop = messages.scrollHeight;
  }
}

function renderTurn(turn: Turn, index: number): void {
  const el = messages.querySelector<HTMLElement>(`.turn[data-turn="${index}"]`) ?? createTurn(turn, index);
  renderItems(el, turn.items);
  drawTurnChanges(el, turn);
  const end = endNote(turn);
  let endEl = el.querySelector<HTMLElement>(":scope > .turn-end");
  if (end !== "" && endEl === null) {
    endEl = document.createElement("div");
    endEl.className = "turn-end";
    el.append(endEl);
  }
  if (endEl !== null) {
    endEl.textContent = end;
    endEl.hidden = end === "";
  }
}

/**
 * The session's to-do list as the chat's plan: one list, its rows changed
 * in place as write_todos sets it anew (a row's element is kept, its
 * status and text redrawn), never the list repeated.
 */
function drawPlan(): void {
  plan.hidden = state.todos.length === 0;
  const done = state.todos.filter((t) => t.status === "completed").length;
  planCount.textContent = state.todos.length === 0 ? "" : `${done} of ${state.todos.length} done`;
  while (planItems.children.length > state.todos.length) {
    planItems.lastElementChild?.remove();
  }
  state.todos.forEach((todo, i) => {
    let row = planItems.children[i] as HTMLLIElement | undefined;
    if (row === undefined) {
      row = document.createElement("li");
      row.append(span("todo-mark"), span("todo-text"));
      planItems.append(row);
    }
    row.dataset.status = todo.status;
    // Each status its codicon, as Copilot Chat's and Claude Code's plans mark them.
    child(row, ".todo-mark").className = `todo-mark codicon codicon-${todoIcon(todo.status)}${todo.status === "in_progress" ? " codicon-modifier-spin" : ""}`;
    child(row, ".todo-mark").setAttribute("aria-label", todo.status.replace("_", " "));
    child(row, ".todo-text").textContent = todo.description;
  });
}

/** The session's tokens, the cached ones and how full the model's window is, in the footer. */
function drawUsage(): void {
  const u = state.usage;
  usage.hidden = u === undefined;
  if (u === undefined) {
    return;
  }
  const view = usageView(u);
  usage.textContent = view.text;
  usage.title = view.detail;
}

/** Under an ended turn that changed files, the list of them, each opening its file, as Copilot Chat lists a turn's changes. */
function drawTurnChanges(el: HTMLElement, turn: Turn): void {
  const files = turn.done ? turnChanges(turn) : [];
  let list = el.querySelector<HTMLElement>(":scope > .turn-changes");
  if (files.length === 0) {
    list?.remove();
    return;
  }
  if (list === null) {
    list = div("turn-changes");
    const end = el.querySelector(":scope > .turn-end");
    if (end !== null) {
      end.before(list);
    } else {
      el.append(list);
    }
  }
  const title = div("turn-changes-title");
  title.textContent = `Changed ${files.length === 1 ? "1 file" : `${files.length} files`}`;
  const ul = document.createElement("ul");
  ul.className = "file-list";
  ul.append(...files.map((f) => fileRow(f.path, f)));
  list.replaceChildren(title, ul);
}

/**
 * A call's title, its file a link that opens it at its line (Copilot
 * Chat's "Read config.go, lines 1–40"): the path where the title names
 * it, else after the title.
 */
function drawToolTitle(el: HTMLElement, title: string, path: string | undefined, line: number | undefined): void {
  if (path === undefined) {
    el.textContent = title;
    return;
  }
  const base = path.split("/").at(-1) ?? path;
  const named = title.includes(path) ? path : title.includes(base) ? base : undefined;
  const where = line === undefined ? "" : `, line ${line}`;
  if (named === undefined) {
    el.replaceChildren(document.createTextNode(`${title} `), fileLink(path, line, path + where));
    return;
  }
  const at = title.indexOf(named);
  el.replaceChildren(
    document.createTextNode(title.slice(0, at)),
    fileLink(path, line, named),
    document.createTextNode(title.slice(at + named.length) + where),
  );
}

/** A file as a link that opens it (at line, 1-based, when given), with a note after it: words, or an edit's lines added and removed. */
function fileRow(path: string, note: string | FileStat, line?: number): HTMLLIElement {
  const li = document.createElement("li");
  li.append(fileLink(path, line));
  if (note !== "") {
    const n = span("file-note");
    if (typeof note === "string") {
      n.textContent = ` ${note}`;
    } else {
      n.append(" ", ...statNodes(note));
    }
    li.append(n);
  }
  return li;
}

/** "+6 −1" with each count in its theme colour (the SCM's added and deleted), as Copilot Chat counts an edit. */
function statNodes(f: FileStat): Node[] {
  const [added, removed] = statText(f).split(" ");
  const a = span("stat-added");
  a.textContent = added;
  const r = span("stat-removed");
  r.textContent = removed;
  return [a, document.createTextNode(" "), r];
}

/** An icon of VS Code's (a codicon), for the screen reader named by label or hidden. */
function codicon(name: string, label?: string): HTMLSpanElement {
  const el = span(`codicon codicon-${name}`);
  if (label === undefined) {
    el.setAttribute("aria-hidden", "true");
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  }
  return el;
}

/**
 * A diff's lines, each in its colour (the theme's diff editor and SCM
 * colours): the fenced diffs of an edit's result, drawn by Markdown as
 * plain text, wrapped line by line.
 */
function colourDiffs(el: HTMLElement): void {
  for (const code of el.querySelectorAll<HTMLElement>("pre > code.language-diff")) {
    const lines = (code.textContent ?? "").replace(/\n$/, "").split("\n");
    const kinds = diffLineKinds(lines);
    code.replaceChildren(
      ...lines.map((line, i) => {
        const l = span(`diff-line diff-${kinds[i]}`);
        // A block a line (the colour the width of the block), so no newline of its own.
        l.textContent = line === "" ? " " : line;
        return l;
      }),
    );
  }
}

/** A link that opens path at line in the editor (a directory: shows it in the Explorer). */
function fileLink(path: string, line?: number, text = path, dir = false): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = "#";
  a.className = "file-link";
  a.textContent = text;
  a.title = dir ? `Show ${path} in the Explorer` : line === undefined ? `Open ${path}` : `Open ${path} at line ${line}`;
  a.addEventListener("click", (e) => {
    e.preventDefault();
    e.stopPropagation();
    vscode.postMessage({ type: "open", path, line, ...(dir && { dir }) });
  });
  return a;
}

/** Draws items into el: a turn, or a subagent's part of one, each item redrawn when its rev changed. */
function renderItems(el: HTMLElement, items: readonly Item[]): void {
  items.forEach((item, i) => {
    let itemEl = el.querySelector<HTMLElement>(`:scope > [data-item="${i}"]`);
    if (itemEl === null) {
      itemEl = createItem(item);
      itemEl.dataset.item = String(i);
      const end = el.querySelector(":scope > .turn-end");
      if (end !== null) {
        end.before(itemEl);
      } else {
        el.append(itemEl);
      }
    }
    if (drawn.get(itemEl) !== item.rev) {
      drawItem(itemEl, item);
      drawn.set(itemEl, item.rev);
    }
  });
}

function createTurn(turn: Turn, index: number): HTMLElement {
  const el = document.createElement("section");
  el.className = "turn";
  el.dataset.turn = String(index);
  const user = div("message user");
  user.textContent = turn.prompt;
  const rewind = document.createElement("button");
  rewind.type = "button";
  rewind.className = "rewind secondary";
  rewind.textContent = "Rewind";
  rewind.title = "Rewind the conversation, the code or both to before this prompt";
  rewind.setAttribute("aria-label", `Rewind to before this prompt: ${turn.prompt}`);
  rewind.addEventListener("click", () => vscode.postMessage({ type: "rewind", turn: index }));
  el.append(user, rewind);
  messages.append(el);
  return el;
}

function endNote(turn: Turn): string {
  switch (turn.stopReason) {
    case "cancelled":
      return "Stopped.";
    case "max_turns":
      return "Stopped after too many model requests. Send another prompt to go on.";
    case "max_tokens":
      return "The answer was cut at the model's output token limit.";
    case "loop_detected":
      return "Stopped: Gemini was repeating itself (a loop was detected). Rephrase or narrow the request to go on.";
    default:
      return "";
  }
}

function createItem(item: Item): HTMLElement {
  switch (item.kind) {
    case "text": {
      const el = document.createElement("div");
      el.className = "message assistant markdown";
      return el;
    }
    case "thought": {
      const el = document.createElement("details");
      el.className = "thought";
      el.append(document.createElement("summary"), div("thought-body markdown"));
      return el;
    }
    case "tool": {
      const el = document.createElement("details");
      el.className = "tool-call";
      const summary = document.createElement("summary");
      // The title, its counts and its outcome as one text that wraps, never cut: a long path or command takes more lines.
      const text = span("tool-text");
      text.append(span("tool-title"), span("tool-stat"), span("tool-status"));
      summary.append(span("tool-icon"), span("tool-kind"), text, terminalButton(item.callId));
      el.append(summary, div("tool-display markdown"));
      return el;
    }
    case "error": {
      const el = div("error");
      el.setAttribute("role", "alert");
      el.append(div("error-title"), div("error-action"), div("error-message"), div("command-buttons"));
      return el;
    }
    case "note": {
      const el = div(`note note-${item.tone}`);
      el.setAttribute("role", "status");
      return el;
    }
    case "question": {
      // The form while the question is open, then the question with the answer after it.
      const el = div("question-item");
      el.append(questionForm(item.id, item.params));
      return el;
    }
  }
}

/**
 * The model's question as a form: its options as toggle buttons (checkboxes
 * when several may be chosen), a text field where the user's own words are
 * allowed, Submit and Decline. Built once; the answer replaces it.
 */
function questionForm(id: number, params: AskParams): HTMLElement {
  const form = document.createElement("form");
  form.className = "question";
  form.setAttribute("role", "group");
  const titleId = `question-${id}-title`;
  form.setAttribute("aria-labelledby", titleId);
  // One heading: what the question is ("Approve the plan?") where that is
  // more than the server's title ("Plan Approval"), else the title.
  const title = div("question-title");
  title.id = titleId;
  title.textContent = questionName(params);
  const text = div(`question-text markdown${params.kind === "plan_approval" ? " plan" : ""}`);
  text.innerHTML = renderMarkdown(params.text);
  const options = div("question-options");
  const error = div("question-error");
  error.setAttribute("role", "alert");
  const chosen = new Set<string>();
  const answer = (a: AskAnswer) => vscode.postMessage({ type: "answer", id, answer: a });
  for (const option of params.options) {
    if (params.multiple) {
      const label = document.createElement("label");
      label.className = "question-option";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = option.id;
      box.addEventListener("change", () => {
        if (box.checked) {
          chosen.add(option.id);
        } else {
          chosen.delete(option.id);
        }
        error.textContent = "";
      });
      label.append(box, optionText(option.label, option.description));
      options.append(label);
    } else {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "question-option secondary";
      button.dataset.option = option.id;
      button.setAttribute("aria-pressed", "false");
      button.append(optionText(option.label, option.description));
      button.addEventListener("click", () => {
        if (params.kind === confirmKind) {
          // An approval is one click, as Copilot Chat's Allow and Skip.
          answer({ chosen: [option.id], text: "", declined: false });
          return;
        }
        const on = !chosen.has(option.id);
        error.textContent = "";
        chosen.clear();
        if (on) {
          chosen.add(option.id);
        }
        for (const b of options.querySelectorAll<HTMLButtonElement>("button.question-option")) {
          b.setAttribute("aria-pressed", String(chosen.has(b.dataset.option ?? "")));
        }
      });
      options.append(button);
    }
  }
  const words = document.createElement("input");
  words.type = "text";
  words.className = "question-words";
  words.placeholder = params.options.length === 0 ? "Your answer" : "Or say it in your own words";
  words.setAttribute("aria-label", "Your own answer");
  words.hidden = !params.freeText;
  words.addEventListener("input", () => (error.textContent = ""));
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.className = "question-submit";
  submit.textContent = "Submit";
  const decline = document.createElement("button");
  decline.type = "button";
  decline.className = "question-decline secondary";
  decline.textContent = "Decline";
  if (params.kind === confirmKind) {
    submit.hidden = true;
    decline.textContent = "Deny";
    options.firstElementChild?.classList.remove("secondary");
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const built = buildAnswer(params, [...chosen], params.freeText ? words.value : "");
    if ("error" in built) {
      error.textContent = built.error;
    } else {
      answer(built.answer);
    }
  });
  decline.addEventListener("click", () => answer({ chosen: [], text: "", declined: true }));
  const actions = div("question-actions");
  actions.append(submit, decline);
  form.append(title, text, options, words, error, actions);
  // The question waits for the user: bring it into view and to the keyboard.
  requestAnimationFrame(() => (form.querySelector<HTMLElement>(".question-option, .question-words:not([hidden])") ?? submit).focus());
  return form;
}

function questionName(params: AskParams): string {
  return questionHeading(params) ?? (params.title || "Gemini asks");
}

/**
 * A question once answered: what was asked, then the user's answer as the
 * user's own message, so the chat reads as the conversation went. A plan's
 * text is not repeated: it is in the plan file.
 */
function answeredQuestion(params: AskParams, answer: string): HTMLElement {
  const record = div("question-answered");
  const asked = div("question-asked");
  const name = span("question-asked-title");
  name.textContent = questionName(params);
  asked.append(name);
  const html = askedHTML(params);
  if (html !== "") {
    const text = div("question-asked-text markdown");
    text.innerHTML = html;
    asked.append(" ", text);
  }
  const reply = div("message user question-answer");
  reply.setAttribute("aria-label", `Your answer: ${answer}`);
  reply.textContent = answer;
  record.append(asked, reply);
  return record;
}

/**
 * An answer's code blocks, in the theme's syntax colours, with a bar above
 * each: the language, then Copy and Insert at Cursor (into the editor last
 * used) as icons, as Copilot Chat's. A block scrolls sideways inside
 * itself; the chat does not.
 */
function decorateCodeBlocks(el: HTMLElement): void {
  for (const pre of el.querySelectorAll<HTMLPreElement>(":scope pre")) {
    const code = pre.querySelector("code");
    if (code !== null) {
      highlightCode(code);
    }
    const block = div("code-block");
    const bar = div("code-bar");
    const lang = span("code-lang");
    lang.textContent = /\blanguage-(\S+)/.exec(code?.className ?? "")?.[1] ?? "";
    bar.append(lang, codeButton("copy", "copy", "Copy"), codeButton("insert", "insert", "Insert at Cursor"));
    pre.replaceWith(block);
    block.append(bar, pre);
  }
}

/** A code block's action: its codicon, named for the screen reader and the tooltip. */
function codeButton(action: string, icon: string, label: string): HTMLButtonElement {
  const b = iconButton(icon, label);
  b.classList.add("code-action");
  b.dataset.codeAction = action;
  return b;
}

/** A button drawn as a codicon alone, as VS Code's toolbars draw theirs; its name for the screen reader and the tooltip. */
function iconButton(icon: string, label: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "icon-button";
  b.title = label;
  b.setAttribute("aria-label", label);
  b.append(codicon(icon));
  return b;
}

/** A tool's display: a structured report's summary as prose with its details folded, anything else as Markdown. */
function drawDisplay(el: HTMLElement, display: string): void {
  const report = display === "" ? undefined : structuredReport(display);
  if (report === undefined) {
    el.innerHTML = display === "" ? "" : renderMarkdown(display);
    colourDiffs(el);
    return;
  }
  const summary = div("report-summary markdown");
  summary.innerHTML = renderMarkdown(report.summary);
  el.replaceChildren(summary);
  if (report.details !== "") {
    const more = document.createElement("details");
    more.className = "report-details";
    const label = document.createElement("summary");
    label.textContent = "Details";
    const body = div("markdown");
    body.innerHTML = renderMarkdown(report.details);
    more.append(label, body);
    el.append(more);
  }
}

function optionText(label: string, description: string | undefined): HTMLElement {
  const el = span("option-text");
  const name = span("option-label");
  name.textContent = label;
  el.append(name);
  if (description) {
    const more = span("option-description");
    more.textContent = description;
    el.append(more);
  }
  return el;
}

function drawItem(el: HTMLElement, item: Item): void {
  switch (item.kind) {
    case "text":
      el.innerHTML = renderMarkdown(item.text);
      decorateCodeBlocks(el);
      return;
    case "thought":
      child(el, "summary").textContent = item.subject || "Thinking";
      child(el, ".thought-body").innerHTML = renderMarkdown(item.description);
      return;
    case "tool": {
      el.dataset.status = item.status;
      const outcome = toolOutcome(item, state.review.length > 0);
      el.dataset.outcome = outcome.tone;
      // A call that asks shows as its question, once; one that set the to-do list, as the plan.
      el.hidden = hiddenByQuestion(item) || (item.setsTodos === true && (item.status === "ok" || item.status === "running"));
      if (item.toolKind !== undefined) {
        el.dataset.kind = item.toolKind;
      }
      // Its own parts only: a subagent's calls inside it have theirs.
      drawToolTitle(child(el, ":scope > summary .tool-title"), item.title, item.path, item.line);
      child(el, ":scope > summary .tool-status").textContent = outcome.words;
      drawToolIcons(el, outcome.tone, item.toolKind);
      // An edit's lines added and removed, as Copilot Chat counts them.
      const stats = isEdit(item.name) && item.status === "ok" ? diffStat(item.display) : [];
      child(el, ":scope > summary .tool-stat").replaceChildren(...(stats.length === 1 ? statNodes(stats[0]) : []));
      drawDisplay(child(el, ":scope > .tool-display"), item.display);
      drawFound(el, item.found, item.foundTotal);
      if (item.subagent !== undefined) {
        // A subagent's calls and text, inside its invoke_agent call, above its report.
        let inner = el.querySelector<HTMLElement>(":scope > .subagent");
        if (inner === null) {
          inner = div("subagent");
          inner.setAttribute("aria-label", `${item.subagent.name}'s work`);
          child(el, ":scope > .tool-display").before(inner);
        }
        renderItems(inner, item.subagent.items);
      }
      el.classList.toggle("has-display", item.display !== "" || item.subagent !== undefined || item.found !== undefined);
      // A shell call that ran offers its output in a terminal, as Copilot Chat's "Show terminal".
      child(el, ":scope > summary > .tool-terminal").hidden = item.command === undefined || item.status === "running" || shellTranscript(item.display) === undefined;
      return;
    }
    case "error":
      child(el, ".error-title").textContent = item.title;
      child(el, ".error-action").textContent = item.action;
      child(el, ".error-message").textContent = item.message;
      child(el, ".command-buttons").replaceChildren(...item.buttons.map(commandButton));
      return;
    case "note":
      el.textContent = item.text;
      return;
    case "question":
      el.dataset.status = item.status;
      if (item.status === "answered") {
        el.replaceChildren(answeredQuestion(item.params, item.answer));
      } else if (item.status === "withdrawn") {
        el.replaceChildren();
        el.hidden = true;
      }
      return;
  }
}

/** A call's icons: what became of it (a spinner while it runs) and what it does, codicons as Copilot Chat's. */
function drawToolIcons(el: HTMLElement, tone: keyof typeof outcomeIcons, toolKind: string | undefined): void {
  const status = child(el, ":scope > summary > .tool-icon");
  status.className = `tool-icon codicon codicon-${outcomeIcons[tone]}${tone === "running" ? " codicon-modifier-spin" : ""}`;
  status.setAttribute("aria-hidden", "true");
  const kind = child(el, ":scope > summary > .tool-kind");
  kind.className = `tool-kind codicon codicon-${kindIcon(toolKind)}`;
  kind.setAttribute("aria-hidden", "true");
  kind.title = toolKind ?? "";
}

/**
 * What a search found, as a list of links under its line (Copilot Chat's
 * search results): each file, or each matching line, opening it there; a
 * directory shown in the Explorer. The first few, then "and N more".
 */
function drawFound(el: HTMLElement, found: FoundPlace[] | undefined, total: number | undefined): void {
  let list = el.querySelector<HTMLElement>(":scope > .found-list");
  if (found === undefined || found.length === 0) {
    list?.remove();
    return;
  }
  if (list === null) {
    list = document.createElement("ul");
    list.className = "found-list file-list";
    list.setAttribute("aria-label", "Found");
    child(el, ":scope > .tool-display").before(list);
  }
  const { rows, more } = foundRows(found, total ?? found.length);
  const items = rows.map(({ place, label }) => {
    const li = document.createElement("li");
    li.append(codicon(place.dir ? "folder" : "file"), " ", fileLink(place.path, place.line, label, place.dir));
    return li;
  });
  if (more > 0) {
    const li = document.createElement("li");
    li.className = "found-more";
    li.textContent = `and ${more} more`;
    items.push(li);
  }
  list.replaceChildren(...items);
}

/** A shell call's "Open in terminal": the extension shows the call's output in a terminal. */
function terminalButton(callId: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "tool-terminal secondary";
  // An icon beside the call's words, as Copilot Chat's; its name for the screen reader and the tooltip.
  const label = span("visually-hidden");
  label.textContent = "Open in terminal";
  b.append(codicon("terminal"), label);
  b.title = "Show the command and its output in a terminal";
  b.hidden = true;
  b.addEventListener("click", (e) => {
    // The row's details stay as they were.
    e.preventDefault();
    e.stopPropagation();
    vscode.postMessage({ type: "openTerminal", callId });
  });
  return b;
}

/** A button that runs one of the chat's commands (chatCommands.ts); the first is the primary one. */
function commandButton(command: ChatCommand, index: number): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.command = command;
  b.className = index === 0 ? "" : "secondary";
  b.textContent = chatCommandLabels[command];
  return b;
}

function child(el: HTMLElement, selector: string): HTMLElement {
  const found = el.querySelector<HTMLElement>(selector);
  if (found === null) {
    throw new Error(`chat view: ${selector} is missing`);
  }
  return found;
}

function div(className: string): HTMLDivElement {
  const el = document.createElement("div");
  el.className = className;
  return el;
}

function span(className: string): HTMLSpanElement {
  const el = document.createElement("span");
  el.className = className;
  return el;
}

vscode.postMessage({ type: "ready" });
