// Markdown for the chat. Raw HTML from the model is escaped, never rendered,
// and markdown-it's link validation drops javascript: and similar URLs.

import MarkdownIt from "markdown-it";
import type { AskParams } from "../ask";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

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
