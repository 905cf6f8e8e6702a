// Completion of the "/name" commands a prompt may start with, as data: what
// gemini/commands lists, which of them match what the user is typing, and
// what accepting one does to the prompt. Pure: the chat webview runs it as
// the user types, the extension host keeps the list fresh.

/** One command of gemini/commands' result (docs/protocol.md §5c). */
export interface SlashCommand {
  /** What follows "/", such as "git:review". */
  name: string;
  description: string;
  /** What may follow the name; "" when nothing. */
  hint: string;
  /** "user", "project" or "mcp"; passed on as the server says. */
  source: string;
}

/** The commands of a gemini/commands result, and the errors it reported. */
export interface CommandList {
  commands: SlashCommand[];
  errors: string[];
}

/**
 * Reads gemini/commands' result. Entries without a usable name are left out
 * rather than failing the whole list; a result that is not an object with a
 * `commands` array is an error.
 */
export function parseCommandList(result: unknown): CommandList {
  const r = result as { commands?: unknown; errors?: unknown } | null;
  if (typeof r !== "object" || r === null || !Array.isArray(r.commands)) {
    throw new Error(`gemini/commands answered ${JSON.stringify(result)?.slice(0, 200)}, not {"commands": [...]}`);
  }
  const commands: SlashCommand[] = [];
  for (const c of r.commands as unknown[]) {
    const e = c as Record<string, unknown> | null;
    if (typeof e !== "object" || e === null || typeof e.name !== "string" || !/^\S+$/.test(e.name)) {
      continue;
    }
    commands.push({ name: e.name, description: text(e.description), hint: text(e.hint), source: text(e.source) });
  }
  const errors = Array.isArray(r.errors) ? r.errors.filter((e): e is string => typeof e === "string") : [];
  return { commands, errors };
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * The command name being typed: the word after a "/" that starts the prompt,
 * while the caret is in that word. undefined when the prompt does not start
 * with "/" or the caret has left the name.
 */
export function slashQuery(prompt: string, caret: number): string | undefined {
  const m = /^\/(\S*)/.exec(prompt);
  if (m === null || caret < 1 || caret > m[0].length) {
    return undefined;
  }
  return m[1];
}

/** A command that matches the query, and where in its name it does (for highlighting). */
export interface Match {
  command: SlashCommand;
  start: number;
  end: number;
}

/**
 * The commands whose name contains the query, case-insensitively: names that
 * start with it first, then those with a ":"-separated part that does
 * ("rev" finds "git:review"), then any other; in the server's order within
 * each group. An empty query matches every command.
 */
export function matchCommands(commands: readonly SlashCommand[], query: string): Match[] {
  const q = query.toLowerCase();
  const ranked: { match: Match; rank: number }[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    const start = name.indexOf(q);
    if (start < 0) {
      continue;
    }
    const part = name.split(":").findIndex((p) => p.startsWith(q));
    let rank = 2;
    let at = start;
    if (start === 0) {
      rank = 0;
    } else if (part > 0) {
      rank = 1;
      at = name.split(":").slice(0, part).join(":").length + 1;
    }
    ranked.push({ match: { command, start: at, end: at + q.length }, rank });
  }
  // Array.prototype.sort is stable: the server's order holds within a rank.
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.match);
}

/** The index after moving the selection by delta through count items, wrapping at both ends. */
export function moveSelection(index: number, delta: number, count: number): number {
  if (count <= 0) {
    return 0;
  }
  return (((index + delta) % count) + count) % count;
}

/**
 * Whether Enter accepts the selected command rather than sending the prompt:
 * it does unless the name is already typed out in full, so Enter on a
 * complete "/name" sends it.
 */
export function enterAccepts(query: string, selected: SlashCommand): boolean {
  return query !== selected.name;
}

/**
 * The prompt after accepting a command: its leading "/word" replaced by
 * "/name " (what followed the word is kept), and the caret after the space.
 */
export function acceptCommand(prompt: string, name: string): { text: string; caret: number } {
  const rest = prompt.replace(/^\/\S*/, "");
  const head = `/${name} `;
  return { text: head + rest.replace(/^[ \t]/, ""), caret: head.length };
}

/**
 * The hint to show after the typed text when the prompt is a known command's
 * "/name " and nothing more yet; undefined otherwise.
 */
export function ghostHint(commands: readonly SlashCommand[], prompt: string): string | undefined {
  const m = /^\/(\S+) $/.exec(prompt);
  if (m === null) {
    return undefined;
  }
  const hint = commands.find((c) => c.name === m[1])?.hint;
  return hint === "" ? undefined : hint;
}

/**
 * The extension host's copy of the list: fetched from the server when the
 * chat opens and again when the user starts a "/" after it has aged
 * (MCP servers start late, command files change), never twice at once.
 */
export class CommandCache {
  private list: CommandList = { commands: [], errors: [] };
  private fetchedAt?: number;
  private pending?: Promise<CommandList>;
  /** Bumped by invalidate, so a fetch from a stopped server is dropped. */
  private generation = 0;

  constructor(
    private readonly fetch: () => Promise<CommandList>,
    private readonly now: () => number,
    private readonly maxAgeMs: number,
  ) {}

  get current(): CommandList {
    return this.list;
  }

  /**
   * Resolves to the list, fetching it first when it is missing or older
   * than maxAgeMs. A failed fetch rejects and keeps the last list; the next
   * refresh tries again.
   */
  refresh(): Promise<CommandList> {
    if (this.pending !== undefined) {
      return this.pending;
    }
    if (this.fetchedAt !== undefined && this.now() - this.fetchedAt < this.maxAgeMs) {
      return Promise.resolve(this.list);
    }
    const generation = this.generation;
    const pending = this.fetch().then(
      (list) => {
        if (generation === this.generation) {
          this.list = list;
          this.fetchedAt = this.now();
        }
        return this.list;
      },
    );
    this.pending = pending;
    const clear = () => {
      if (this.pending === pending) {
        this.pending = undefined;
      }
    };
    pending.then(clear, clear);
    return pending;
  }

  /** Forgets the list, as when the server restarts: the next refresh fetches. */
  invalidate(): void {
    this.generation++;
    this.list = { commands: [], errors: [] };
    this.fetchedAt = undefined;
    this.pending = undefined;
  }
}
