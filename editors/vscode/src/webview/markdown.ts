// Markdown for the chat. Raw HTML from the model is escaped, never rendered,
// and markdown-it's link validation drops javascript: and similar URLs.

import MarkdownIt from "markdown-it";
import type { StateCore } from "markdown-it";
import type { AskParams } from "../ask";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
md.core.ruler.push("task_list", taskList);

// taskList draws a list item that starts with "[ ] " or "[x] " (the
// to-do list a model writes, which is also the chat's plan) as a
// checkbox, ticked or not, that cannot be clicked: the model's list, not
// the user's.
function taskList(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    if (inline.type !== "inline" || tokens[i - 1].type !== "paragraph_open" || tokens[i - 2].type !== "list_item_open") {
      continue;
    }
    const first = inline.children?.[0];
    const mark = first?.type === "text" ? /^\[([ xX])\] /.exec(first.content) : null;
    if (!first || !mark) {
      continue;
    }
    first.content = first.content.slice(mark[0].length);
    const box = new state.Token("html_inline", "", 0);
    box.content = `<input type="checkbox" class="task" disabled${mark[1] === " " ? "" : " checked"}> `;
    inline.children!.unshift(box);
    tokens[i - 2].attrJoin("class", "task-item");
  }
}

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/**
 * What an answered question asked, as HTML, rendered as the open question
 * was: a shell approval's command stays a code block instead of showing
 * its ``` fences. "" where nothing is repeated: a question without text, or
 * a plan, whose text is in the plan file.
 */
export function askedHTML(params: Pick<AskParams, "kind" | "text">): string {
  const text = params.text.trim();
  if (params.kind === "plan_approval" || text === "") {
    return "";
  }
  // One paragraph runs on from the title as words, without a <p>'s break.
  const tokens = md.parse(text, {});
  return tokens.length === 3 && tokens[0].type === "paragraph_open" ? md.renderInline(text) : md.render(text);
}
