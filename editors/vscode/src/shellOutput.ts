// A shell call's output as its result reports it, for the terminal the
// chat's "Open in terminal" opens (as Copilot Chat's "Show terminal"):
// gemini-ls's run_shell_command display is an optional first line (the
// exit code, a cancel or a timeout), the output in a fence (the tail it
// kept, headed "[Output truncated: …]" when it cut the start), then notes
// (the sandbox's). Pure data: shared by the extension host and the webview.

/** A shell call's output and what the server said about it. */
export interface ShellTranscript {
  /** The output as the server kept it; "" when the command printed nothing. */
  output: string;
  /** The bytes kept and, when the server counted them, all there were; undefined when nothing was cut. */
  cut?: { kept: number; total?: number };
  /** What the display says before the output ("Exit code 127", a cancel) and after it (the sandbox's notes). */
  before: string;
  after: string;
}

/** The transcript in a shell call's display; undefined when it holds no output (a refused or cancelled call's). */
export function shellTranscript(display: string): ShellTranscript | undefined {
  const open = /^(`{3,})[ \t]*$/m.exec(display);
  if (open === null) {
    return undefined;
  }
  const fence = open[1];
  const start = open.index + open[0].length + 1;
  const close = new RegExp(`^${fence}[ \\t]*$`, "m").exec(display.slice(start));
  if (close === null) {
    return undefined;
  }
  let output = display.slice(start, start + close.index).replace(/\n$/, "");
  let cut: ShellTranscript["cut"];
  const notice = /^\[Output truncated: showing the last (\d+)(?: of (\d+))? bytes\]\n?/.exec(output);
  if (notice !== null) {
    cut = { kept: Number(notice[1]), ...(notice[2] !== undefined && { total: Number(notice[2]) }) };
    output = output.slice(notice[0].length);
  }
  if (output === "(empty)") {
    output = "";
  }
  return {
    output,
    cut,
    before: display.slice(0, open.index).trim(),
    after: display.slice(start + close.index + close[0].length).trim(),
  };
}

/** What the terminal says of a cut: where the output starts and how much is missing. */
export function cutNote(cut: NonNullable<ShellTranscript["cut"]>): string {
  const missing = cut.total === undefined ? "" : `; the first ${(cut.total - cut.kept).toLocaleString("en")} are not shown`;
  const of = cut.total === undefined ? "" : ` of ${cut.total.toLocaleString("en")}`;
  return `[Output cut: gemini-ls kept the last ${cut.kept.toLocaleString("en")}${of} bytes${missing}.]`;
}

/**
 * What the terminal shows: the command as typed at a prompt (with where it
 * ran when not the workspace folder), the cut said where the output
 * starts, the output, then how it ended (and the cut again). Lines end in
 * CRLF, as a terminal's do.
 */
export function terminalText(command: string, dir: string | undefined, t: ShellTranscript): string {
  const lines = [`$ ${command}`];
  if (dir !== undefined && dir !== "" && dir !== ".") {
    lines.push(`(in ${dir})`);
  }
  if (t.cut !== undefined) {
    lines.push(cutNote(t.cut));
  }
  if (t.output !== "") {
    lines.push(t.output);
  }
  lines.push(...[t.before === "" ? "Exit code 0" : t.before, t.after].filter((s) => s !== ""));
  if (t.cut !== undefined) {
    // Said at the end too: a long output scrolls the top out of the terminal's scrollback.
    lines.push(cutNote(t.cut));
  }
  return forTerminal(lines.join("\n") + "\n");
}

/**
 * text safe to write to a terminal: colours (SGR) kept, every other
 * escape sequence and control character dropped (a command's output may
 * set the title, the clipboard or the cursor), and newlines as CRLF.
 */
export function forTerminal(text: string): string {
  return text
    .replace(/\x1b\[[0-9;]*m|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])?/g, (seq) => (/^\x1b\[[0-9;]*m$/.test(seq) ? seq : ""))
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === "\r" || c === "\x1b" ? c : ""))
    .replace(/\r?\n/g, "\r\n");
}
