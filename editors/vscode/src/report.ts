// A subagent's structured report as a reader takes it in: the server shows
// a report that is JSON (codebase_investigator's SummaryOfFindings,
// ExplorationTrace, RelevantLocations) as a fenced json block, whose long
// lines run off a side bar's edge. Here its summary becomes prose and the
// rest a folded list, in words ("Exploration trace", not ExplorationTrace),
// as Copilot Chat folds what a tool found under its one-line summary.
// Pure: the chat webview renders what this returns as Markdown.

/** A report split into what is read first and what is unfolded on demand. */
export interface Report {
  /** Markdown: the summary. */
  summary: string;
  /** Markdown: every other field, "" when there is none. */
  details: string;
}

/**
 * The report a tool's display holds, when the display is a fenced json
 * block of an object with a summary (a string field whose name has
 * "summary" in it); undefined for any other display, shown as it is.
 */
export function structuredReport(display: string): Report | undefined {
  const m = /^\s*```json\n([\s\S]*)\n```\s*$/.exec(display);
  if (m === null) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(m[1]);
  } catch {
    return undefined;
  }
  if (!isObject(value)) {
    return undefined;
  }
  const summaryKey = Object.keys(value).find((k) => /summary/i.test(k) && typeof value[k] === "string");
  if (summaryKey === undefined) {
    return undefined;
  }
  const rest = Object.entries(value).filter(([k]) => k !== summaryKey);
  const details = rest.map(([k, v]) => section(words(k), v)).join("\n\n");
  return { summary: String(value[summaryKey]), details };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** "RelevantLocations", "key_symbols" → "Relevant locations", "Key symbols". */
export function words(key: string): string {
  const spaced = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** One field: a heading line and its value as a paragraph or a list. */
function section(title: string, value: unknown): string {
  if (Array.isArray(value)) {
    const items = value.map((v) => `- ${inline(v)}`);
    return `**${title}**\n\n${items.length > 0 ? items.join("\n") : "- (none)"}`;
  }
  return `**${title}:** ${inline(value)}`;
}

/**
 * A value on one line: text as it is, a list joined with commas, an object
 * as its fields in words, a file or name first, in code, then the fields
 * that are text, then the rest (the server sorts a report's keys, so the
 * reasoning would otherwise follow the symbols).
 */
function inline(value: unknown): string {
  if (typeof value === "string") {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map(inline).join(", ");
  }
  if (!isObject(value)) {
    return JSON.stringify(value);
  }
  const entries = Object.entries(value);
  const head = entries.find(([k, v]) => typeof v === "string" && /path|file|name/i.test(k));
  const rest = entries.filter((e) => e !== head);
  const ordered = [...rest.filter(([, v]) => typeof v === "string"), ...rest.filter(([, v]) => typeof v !== "string")];
  const parts = ordered.map(([k, v]) => `${words(k)}: ${inline(v)}`);
  return [head && `\`${String(head[1])}\``, ...parts].filter((p) => p).join(" — ");
}
