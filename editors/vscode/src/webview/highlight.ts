// Syntax colours for the chat's code blocks: highlight.js's core with the
// languages a coding chat shows most, bundled into the webview's script
// (nothing is fetched). The colours are the theme's (chat.css maps
// highlight.js's classes to VS Code's theme variables). A block whose
// language is not among these, or not named, stays plain: guessing the
// language of a snippet colours it wrong as often as right.

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

for (const [name, language] of Object.entries({ bash, c, cpp, css, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, language);
}

/**
 * The code as HTML in highlight.js's spans, its text escaped (no markup of
 * the model's gets through); undefined for a language not bundled here,
 * and for diffs, which the chat colours line by line itself.
 */
export function highlighted(text: string, language: string): string | undefined {
  if (language === "diff" || hljs.getLanguage(language) === undefined) {
    return undefined;
  }
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** Colours a code element in place by its language-NAME class. Its text is unchanged: Copy and Insert read textContent. */
export function highlightCode(code: HTMLElement): void {
  const html = highlighted(code.textContent ?? "", /\blanguage-(\S+)/.exec(code.className)?.[1] ?? "");
  if (html !== undefined) {
    code.innerHTML = html;
    code.classList.add("hljs");
  }
}
