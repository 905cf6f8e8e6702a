import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  acceptCommand,
  CommandCache,
  enterAccepts,
  ghostHint,
  matchCommands,
  moveSelection,
  parseCommandList,
  slashQuery,
  type CommandList,
  type SlashCommand,
} from "../../src/slashCommands";

const cmd = (name: string, description = "", hint = "", source = "user"): SlashCommand => ({ name, description, hint, source });

// The order gemini/commands lists them in: MCP prompts first, then custom commands, by name within each.
const commands = [
  cmd("greet", "Greets someone.", '--name="…"', "mcp"),
  cmd("git:commit", "Write a commit message"),
  cmd("git:review", "Review a file", "arguments"),
  cmd("prreview", "Review a pull request", "arguments", "project"),
  cmd("review", "Review a file carefully", "arguments"),
];

const names = (query: string) => matchCommands(commands, query).map((m) => m.command.name);

describe("parseCommandList", () => {
  it("reads gemini/commands' result as the server sends it", () => {
    const list = parseCommandList({
      commands: [
        { name: "greet", description: "Greets someone.", hint: '--name="…"', source: "mcp" },
        { name: "git:review", description: "Review a file", source: "user" },
      ],
      errors: ["/home/ada/.gemini/commands/bad.toml: missing prompt"],
    });
    assert.deepEqual(list, {
      commands: [cmd("greet", "Greets someone.", '--name="…"', "mcp"), cmd("git:review", "Review a file", "", "user")],
      errors: ["/home/ada/.gemini/commands/bad.toml: missing prompt"],
    });
  });
  it("leaves out entries without a usable name and fails on a result that is no list", () => {
    const list = parseCommandList({ commands: [null, { description: "no name" }, { name: "two words" }, { name: "ok", description: 3 }] });
    assert.deepEqual(list, { commands: [cmd("ok", "", "", "")], errors: [] });
    for (const bad of [null, [], { commands: {} }, "commands"]) {
      assert.throws(() => parseCommandList(bad), /gemini\/commands answered/, JSON.stringify(bad));
    }
  });
});

describe("slashQuery", () => {
  it("is the name typed after a leading / while the caret is in it", () => {
    assert.equal(slashQuery("/", 1), "");
    assert.equal(slashQuery("/rev", 4), "rev");
    assert.equal(slashQuery("/rev", 2), "rev", "the whole word, wherever the caret is in it");
    assert.equal(slashQuery("/rev foo", 4), "rev");
  });
  it("is undefined once the name is done, or without a leading /", () => {
    assert.equal(slashQuery("/review ", 8), undefined);
    assert.equal(slashQuery("/rev foo", 6), undefined);
    assert.equal(slashQuery("/rev", 0), undefined, "caret before the slash");
    assert.equal(slashQuery("review /rev", 11), undefined);
    assert.equal(slashQuery(" /rev", 5), undefined);
    assert.equal(slashQuery("", 0), undefined);
  });
});

describe("matchCommands", () => {
  it("lists every command, in the server's order, for a bare /", () => {
    assert.deepEqual(names(""), commands.map((c) => c.name));
  });
  it("puts names that start with the query first, then a :part that does, then any other", () => {
    assert.deepEqual(names("rev"), ["review", "git:review", "prreview"]);
    assert.deepEqual(names("g"), ["greet", "git:commit", "git:review"]);
  });
  it("ignores case and drops what does not match", () => {
    assert.deepEqual(names("GIT:C"), ["git:commit"]);
    assert.deepEqual(names("zzz"), []);
  });
  it("says where the name matches, for highlighting", () => {
    const spans = matchCommands(commands, "rev").map((m) => m.command.name.slice(m.start, m.end));
    assert.deepEqual(spans, ["rev", "rev", "rev"]);
    assert.deepEqual(
      matchCommands(commands, "rev").map((m) => m.start),
      [0, 4, 2],
    );
  });
});

describe("moveSelection", () => {
  it("moves up and down and wraps at both ends", () => {
    assert.equal(moveSelection(0, 1, 3), 1);
    assert.equal(moveSelection(2, 1, 3), 0);
    assert.equal(moveSelection(0, -1, 3), 2);
    assert.equal(moveSelection(1, -1, 3), 0);
    assert.equal(moveSelection(0, 1, 0), 0, "an empty list");
  });
});

describe("accepting a command", () => {
  it("replaces the typed word with the name and a space, and puts the caret after it", () => {
    assert.deepEqual(acceptCommand("/rev", "review"), { text: "/review ", caret: 8 });
    assert.deepEqual(acceptCommand("/", "git:review"), { text: "/git:review ", caret: 12 });
  });
  it("keeps what followed the word", () => {
    assert.deepEqual(acceptCommand("/rev chat.go", "review"), { text: "/review chat.go", caret: 8 });
    assert.deepEqual(acceptCommand("/rev\nmore", "review"), { text: "/review \nmore", caret: 8 });
  });
  it("Enter accepts unless the name is typed out in full, so a complete /name still sends", () => {
    assert.equal(enterAccepts("rev", cmd("review")), true);
    assert.equal(enterAccepts("", cmd("review")), true);
    assert.equal(enterAccepts("review", cmd("review")), false);
  });
  it("shows the command's hint after /name and a space, until more is typed", () => {
    assert.equal(ghostHint(commands, "/review "), "arguments");
    assert.equal(ghostHint(commands, '/greet '), '--name="…"');
    assert.equal(ghostHint(commands, "/review chat.go"), undefined);
    assert.equal(ghostHint(commands, "/review"), undefined);
    assert.equal(ghostHint(commands, "/git:commit "), undefined, "no hint to show");
    assert.equal(ghostHint(commands, "/unknown "), undefined);
  });
});

describe("CommandCache", () => {
  function setup() {
    const clock = { now: 1000 };
    const fetches: { resolve: (l: CommandList) => void; reject: (e: Error) => void }[] = [];
    const cache = new CommandCache(
      () => new Promise<CommandList>((resolve, reject) => fetches.push({ resolve, reject })),
      () => clock.now,
      10_000,
    );
    return { clock, fetches, cache };
  }
  const list = (...n: string[]): CommandList => ({ commands: n.map((x) => cmd(x)), errors: [] });

  it("fetches once for callers that ask at the same time", async () => {
    const { fetches, cache } = setup();
    const a = cache.refresh();
    const b = cache.refresh();
    assert.equal(fetches.length, 1);
    fetches[0].resolve(list("review"));
    assert.deepEqual(await a, list("review"));
    assert.deepEqual(await b, list("review"));
    assert.deepEqual(cache.current, list("review"));
  });

  it("answers from the copy while it is fresh and fetches again once it has aged", async () => {
    const { clock, fetches, cache } = setup();
    const first = cache.refresh();
    fetches[0].resolve(list("review"));
    await first;
    clock.now += 9_999;
    assert.deepEqual(await cache.refresh(), list("review"));
    assert.equal(fetches.length, 1, "a fresh list is not fetched again");
    clock.now += 1;
    const second = cache.refresh();
    assert.equal(fetches.length, 2, "an aged list is fetched again");
    fetches[1].resolve(list("review", "mcp-prompt"));
    assert.deepEqual(await second, list("review", "mcp-prompt"));
  });

  it("keeps the last list when a fetch fails, and tries again on the next refresh", async () => {
    const { clock, fetches, cache } = setup();
    const first = cache.refresh();
    fetches[0].resolve(list("review"));
    await first;
    clock.now += 20_000;
    const failed = cache.refresh();
    fetches[1].reject(new Error("server stopped"));
    await assert.rejects(failed, /server stopped/);
    assert.deepEqual(cache.current, list("review"));
    void cache.refresh();
    assert.equal(fetches.length, 3);
  });

  it("drops the list and a fetch under way when invalidated", async () => {
    const { fetches, cache } = setup();
    const old = cache.refresh();
    cache.invalidate();
    const fresh = cache.refresh();
    assert.equal(fetches.length, 2, "invalidate lets the next refresh fetch at once");
    fetches[0].resolve(list("from-the-old-server"));
    await old;
    assert.deepEqual(cache.current, list(), "the old server's answer is not kept");
    fetches[1].resolve(list("review"));
    assert.deepEqual(await fresh, list("review"));
  });
});
