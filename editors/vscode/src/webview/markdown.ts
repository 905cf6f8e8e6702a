// Markdown for the chat. Raw HTML from the model is escaped, never rendered,
// and markdown-it's link validation drops javascript: and similar URLs.

import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function renderMarkdown(text: string): string {
  return md.render(text);
}
