import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  agentContext,
  agentDescription,
  agentKey,
  agentTooltip,
  delegateParams,
  followUpParams,
  followUpProblem,
  webUrl,
  agentLabel,
  belongsToChat,
  questionPlace,
  turnEndOf,
  AgentList,
  agentTitle,
  conflictsDocument,
  elapsed,
  maxFiles,
  noticeText,
  parseAgent,
  parseLandResult,
  startAgentParams,
  worktreeNameProblem,
  type Agent,
} from "../../src/agents";

function agent(over: Partial<Agent> & { sessionId: string }): Agent {
  return {
    title: "Fix the login",
    state: "working",
    worktree: { name: "fix-login", path: "/w/.gemini/worktrees/fix-login", branch: "worktree-fix-login", base: "abc123" },
    startedAt: "2026-01-02T10:00:00Z",
    tokens: 0,
    files: [],
    ...over,
  };
}

describe("AgentList", () => {
  it("takes gemini/agents' list in the server's order, newest first", () => {
    const list = new AgentList();
    list.replace({ agents: [agent({ sessionId: "b", title: "second" }), agent({ sessionId: "a", title: "first" })] });
    assert.deepEqual(
      list.all().map((a) => a.title),
      ["second", "first"],
    );
  });

  it("adds an agent it did not know first, and refreshes a known one in place", () => {
    const list = new AgentList();
    list.replace({ agents: [agent({ sessionId: "a" })] });
    list.apply(agent({ sessionId: "b", title: "new" }));
    list.apply(agent({ sessionId: "a", tokens: 1200 }));
    assert.deepEqual(
      list.all().map((a) => [a.sessionId, a.tokens]),
      [
        ["b", 0],
        ["a", 1200],
      ],
    );
  });

  it("removes an agent the server says was discarded", () => {
    const list = new AgentList();
    list.replace({ agents: [agent({ sessionId: "a" }), agent({ sessionId: "b" })] });
    assert.deepEqual(list.apply({ ...agent({ sessionId: "a" }), state: "discarded" }), { removed: "a" });
    assert.deepEqual(
      list.all().map((a) => a.sessionId),
      ["b"],
    );
  });

  it("keys a worktree found on disk with no session by its name, so two such rows stay two", () => {
    const list = new AgentList();
    const onDisk = (name: string) => agent({ sessionId: "", state: "stopped", worktree: { name, path: "", branch: `worktree-${name}`, base: "" } });
    list.replace({ agents: [onDisk("x"), onDisk("y")] });
    assert.equal(list.all().length, 2);
    assert.ok(list.get("worktree:y"));
    assert.equal(list.has(""), false, "the empty session id is nobody's");
  });

  it("notifies once when an agent goes to waiting, done or failed, not on each later change in that state", () => {
    const list = new AgentList();
    assert.equal(list.apply(agent({ sessionId: "a" }))?.hasOwnProperty("notify"), false);
    assert.equal((list.apply(agent({ sessionId: "a", state: "waiting", question: "Run make?" })) as { notify?: string }).notify, "waiting");
    assert.equal((list.apply(agent({ sessionId: "a", state: "working" })) as { notify?: string }).notify, undefined);
    assert.equal((list.apply(agent({ sessionId: "a", state: "done" })) as { notify?: string }).notify, "done");
    // The same state again (files counted after the turn) is not news.
    assert.equal((list.apply(agent({ sessionId: "a", state: "done", tokens: 9 })) as { notify?: string }).notify, undefined);
    assert.equal((list.apply(agent({ sessionId: "b", state: "failed", error: "quota" })) as { notify?: string }).notify, "failed");
    // Stopped is the user's own doing: no notification.
    assert.equal((list.apply(agent({ sessionId: "c", state: "stopped" })) as { notify?: string }).notify, undefined);
  });

  it("counts the agents that wait for the user, for the view's badge", () => {
    const list = new AgentList();
    list.replace({ agents: [agent({ sessionId: "a", state: "waiting" }), agent({ sessionId: "b", state: "waiting" }), agent({ sessionId: "c", state: "done" })] });
    assert.equal(list.waiting(), 2);
    list.apply(agent({ sessionId: "a", state: "working" }));
    assert.equal(list.waiting(), 1);
    assert.equal(list.anyWorking(), true);
    list.apply({ ...agent({ sessionId: "b" }), state: "discarded" });
    list.apply(agent({ sessionId: "a", state: "done" }));
    assert.equal(list.waiting(), 0);
    assert.equal(list.anyWorking(), false);
  });

  it("ignores params that are not an agent, and a list that is not one", () => {
    const list = new AgentList();
    assert.equal(list.apply({ sessionId: "a", state: "sleeping", worktree: { name: "x" } }), undefined);
    assert.equal(list.apply(null), undefined);
    list.replace({ agents: "no" });
    list.replace(null);
    assert.equal(list.all().length, 0);
  });

  it("knows which sessions are agents'", () => {
    const list = new AgentList();
    list.apply(agent({ sessionId: "a" }));
    assert.equal(list.has("a"), true);
    assert.equal(list.has("main"), false);
  });
});

describe("parseAgent", () => {
  it("bounds what a server sends: files past the limit, negative counts, unknown statuses", () => {
    const files = Array.from({ length: maxFiles + 10 }, (_, i) => ({ path: `f${i}`, added: -3, removed: 2.7, status: "weird" }));
    const a = parseAgent({ ...agent({ sessionId: "a" }), files });
    assert.equal(a?.files.length, maxFiles);
    assert.deepEqual(a?.files[0], { path: "f0", added: 0, removed: 2, status: "modified" });
  });

  it("needs a session id, a known state and a worktree's name", () => {
    assert.equal(parseAgent({ state: "done", worktree: { name: "x" } }), undefined);
    assert.equal(parseAgent({ sessionId: "a", state: "done" }), undefined);
    assert.ok(parseAgent({ sessionId: "a", state: "done", worktree: { name: "x" } }));
  });
});

describe("an agent's row", () => {
  const now = new Date("2026-01-02T10:01:04Z");

  it("ticks while working and stops at the last turn's end", () => {
    assert.equal(elapsed(agent({ sessionId: "a" }), now), "1m 04s");
    assert.equal(elapsed(agent({ sessionId: "a", endedAt: "2026-01-02T10:00:45Z" }), now), "45s");
    assert.equal(elapsed(agent({ sessionId: "a", startedAt: "2026-01-02T08:00:00Z" }), now), "2h 01m");
    assert.equal(elapsed(agent({ sessionId: "a", startedAt: "" }), now), "");
  });

  it("says the state, the time, the tokens and the lines changed", () => {
    const a = agent({
      sessionId: "a",
      tokens: 3400,
      files: [
        { path: "a.go", added: 10, removed: 1, status: "modified" },
        { path: "b.go", added: 2, removed: 2, status: "added" },
      ],
    });
    // Short for a side bar: the icon says working or done.
    assert.equal(agentDescription(a, now), "1m 04s · 3.4k tokens · +12 −3");
    assert.equal(agentDescription(agent({ sessionId: "b", state: "waiting" }), now), "Waiting for you · 1m 04s");
    assert.equal(agentDescription(agent({ sessionId: "b", state: "failed", endedAt: "2026-01-02T10:00:05Z" }), now), "Failed · 5s");
    // A screen reader hears the state always.
    assert.equal(agentLabel(a, now), "Fix the login: Working, 1m 04s, 3.4k tokens, 2 files +12 −3");
  });

  it("is titled by the task, else the worktree's name", () => {
    assert.equal(agentTitle(agent({ sessionId: "a", title: "  " })), "fix-login");
  });

  it("tells the user what happened in plain words", () => {
    assert.equal(noticeText(agent({ sessionId: "a", state: "waiting", question: "Run make?" }), "waiting"), "Agent “Fix the login” waits for you: Run make?");
    assert.equal(
      noticeText(agent({ sessionId: "a", state: "done", files: [{ path: "a.go", added: 3, removed: 1, status: "modified" }] }), "done"),
      "Agent “Fix the login” is done: 1 file changed (+3 −1).",
    );
    assert.equal(noticeText(agent({ sessionId: "a", state: "done" }), "done"), "Agent “Fix the login” is done; it changed no file.");
    assert.equal(noticeText(agent({ sessionId: "a", state: "failed", error: "quota exceeded" }), "failed"), "Agent “Fix the login” failed: quota exceeded");
  });
});

describe("starting an agent", () => {
  it("names the worktree, or lets the server name it", () => {
    assert.deepEqual(startAgentParams("Fix it", " fix-it "), { prompt: "Fix it", worktree: "fix-it" });
    assert.deepEqual(startAgentParams("Fix it", ""), { prompt: "Fix it", worktree: true });
  });

  it("says why a worktree name would be refused", () => {
    assert.equal(worktreeNameProblem(""), undefined);
    assert.equal(worktreeNameProblem("fix_login-2.b"), undefined);
    assert.match(worktreeNameProblem("a/b") ?? "", /only letters/);
    assert.match(worktreeNameProblem("-x") ?? "", /start with/);
    assert.match(worktreeNameProblem("a..b") ?? "", /\.\./);
    assert.match(worktreeNameProblem("a b") ?? "", /only letters/);
  });
});

describe("landing", () => {
  it("reads the result, leaving out what is not a conflict", () => {
    const r = parseLandResult({
      applied: true,
      files: [{ path: "a.go", added: 1, removed: 0, status: "modified" }],
      conflicts: [{ path: "/w/b.go", line: 12, yours: "mine\n", theirs: "agent's\n" }, "junk"],
      message: "Landed 1 file from fix-login; 1 conflict in b.go:12 left out (both sides below).",
    });
    assert.equal(r.applied, true);
    assert.equal(r.files.length, 1);
    assert.deepEqual(r.conflicts, [{ path: "/w/b.go", line: 12, yours: "mine\n", theirs: "agent's\n" }]);
    assert.deepEqual(parseLandResult(null), { applied: false, files: [], conflicts: [], message: "" });
  });

  it("shows both sides of each conflict, fenced so a side's own fence cannot break out", () => {
    const doc = conflictsDocument(
      "Fix the login",
      { applied: true, files: [], conflicts: [{ path: "/w/b.go", line: 12, yours: "x := 1\n", theirs: "```\ny := 2\n" }], message: "Landed." },
      (p) => p.replace("/w/", ""),
    );
    assert.match(doc, /^# Conflicts landing “Fix the login”/);
    assert.match(doc, /## b\.go:12\n\nYours:\n\n```\nx := 1\n```/);
    assert.match(doc, /The agent's:\n\n````\n```\ny := 2\n````/);
  });
});

describe("what an agent's session sends", () => {
  const agents = new Set(["agent-a", "agent-b"]);
  const isAgent = (id: string) => agents.has(id);

  it("reaches the chat only when the chat shows that agent; the main session's as before", () => {
    assert.equal(belongsToChat("agent-a", "agent-a", isAgent), true);
    assert.equal(belongsToChat("agent-a", "agent-b", isAgent), false);
    assert.equal(belongsToChat("main", "agent-b", isAgent), true);
    // A new chat's first prompt takes the session id of the first update: never an agent's.
    assert.equal(belongsToChat("agent-a", undefined, isAgent), false);
  });

  it("asks an agent's question in its own chat: held while the chat shows another session", () => {
    const showing = (sessionId: string | undefined) => ({ sessionId, turnOpen: true, visible: true });
    assert.equal(questionPlace("agent-a", showing("agent-a"), isAgent), "chat");
    assert.equal(questionPlace("agent-a", showing("main"), isAgent), "held");
    assert.equal(questionPlace("agent-a", showing(undefined), isAgent), "held");
    assert.equal(questionPlace("main", showing("main"), isAgent), "chat");
    // The main session's question with the chat hidden, or outside a turn (a rewind's), is a dialog, as before.
    assert.equal(questionPlace("main", { sessionId: "main", turnOpen: true, visible: false }, isAgent), "dialog");
    assert.equal(questionPlace("main", { sessionId: "main", turnOpen: false, visible: true }, isAgent), "dialog");
  });

  it("ends the chat's turn of an agent when its state says the turn ended", () => {
    assert.equal(turnEndOf(agent({ sessionId: "a", state: "working" })), undefined);
    assert.equal(turnEndOf(agent({ sessionId: "a", state: "waiting" })), undefined);
    assert.deepEqual(turnEndOf(agent({ sessionId: "a", state: "done" })), { sessionId: "a", stopReason: "end_turn", text: "" });
    assert.equal(turnEndOf(agent({ sessionId: "a", state: "stopped" }))?.stopReason, "cancelled");
    assert.deepEqual(turnEndOf(agent({ sessionId: "a", state: "failed", error: "quota" })), { sessionId: "a", stopReason: "error", text: "", error: "quota" });
  });
});

describe("the server's own examples (docs/protocol.md, 5h)", () => {
  // The bundled tests run from editors/vscode/dist/test.
  const doc = readFileSync(path.resolve(__dirname, "../../../../docs/protocol.md"), "utf8");
  const example = (marker: string) => {
    const line = doc.split("\n").find((l) => l.startsWith("{") && l.includes(marker));
    assert.ok(line, `no example with ${marker} in docs/protocol.md`);
    return JSON.parse(line).result;
  };

  it("reads gemini/agents' result as rows", () => {
    const list = new AgentList();
    list.replace(example('"result": {"agents"'));
    assert.equal(list.all().length, 1);
    const [a] = list.all();
    assert.equal(a.state, "done");
    assert.equal(a.worktree?.branch, "worktree-verbose-flag");
    assert.equal(agentLabel(a, new Date()), "Add a --verbose flag: Done, 1m 12s, 18.2k tokens, 1 file +12 −2");
  });

  it("reads gemini/landAgent's result with its conflict", () => {
    const r = parseLandResult(example('"result": {"applied"'));
    assert.equal(r.applied, true);
    assert.equal(r.conflicts[0]?.line, 40);
    assert.match(r.message, /^Landed 1 file/);
  });
});

describe("background agents (issue 98)", () => {
  // BACKGROUND-SPEC's example: a background agent whose run is done, its branch fetched.
  const done = {
    kind: "background",
    sessionId: "",
    title: "Add a --verbose flag",
    state: "done",
    startedAt: "2026-11-29T09:00:00Z",
    endedAt: "2026-11-29T09:02:10Z",
    background: {
      id: "bg-1001",
      repository: "ada/proj",
      runId: 1001,
      runUrl: "https://github.com/ada/proj/actions/runs/1001",
      branch: "gemini/add-a-verbose-flag-3f9a",
      pullRequest: { number: 7, url: "https://github.com/ada/proj/pull/7" },
    },
    worktree: { name: "add-a-verbose-flag-3f9a", path: "/p/.gemini/worktrees/add-a-verbose-flag-3f9a", branch: "gemini/add-a-verbose-flag-3f9a", base: "5f1c0de" },
    files: [{ path: "main.go", status: "modified", added: 12, removed: 2 }],
  };
  const queued = { kind: "background", sessionId: "", title: "Add a --verbose flag", state: "queued", startedAt: "2026-11-29T09:00:00Z", background: { id: "bg-1001", repository: "ada/proj", runId: 1001, runUrl: "https://github.com/ada/proj/actions/runs/1001", branch: "gemini/add-a-verbose-flag-3f9a" } };
  const now = new Date("2026-11-29T09:00:30Z");

  it("takes a background agent with no worktree yet, keyed by its id", () => {
    const a = parseAgent(queued);
    assert.ok(a);
    assert.equal(a.worktree, undefined);
    assert.equal(a.background?.id, "bg-1001");
    assert.equal(agentKey(a), "background:bg-1001");
    // A local agent still needs its worktree.
    assert.equal(parseAgent({ ...queued, kind: undefined }), undefined);
    // And a background one its id.
    assert.equal(parseAgent({ ...queued, background: { runId: 1 } }), undefined);
  });

  it("follows one background agent's row from queued to done, with its pull request and worktree", () => {
    const list = new AgentList();
    list.apply(queued);
    list.apply({ ...queued, state: "working" });
    assert.equal(list.all().length, 1);
    assert.equal(list.anyWorking(), true);
    const change = list.apply(done);
    assert.equal(list.all().length, 1);
    // The server tells its end itself (window/showMessage): no second notification.
    assert.ok(change && "agent" in change && change.notify === undefined);
    const [a] = list.all();
    assert.equal(a.worktree?.name, "add-a-verbose-flag-3f9a");
    assert.equal(a.background?.pullRequest?.number, 7);
    assert.equal(list.anyWorking(), false);
  });

  it("says in words that it runs on GitHub, and its state", () => {
    const q = parseAgent(queued) as Agent;
    assert.equal(agentDescription(q, now), "Queued on GitHub · 30s");
    assert.equal(agentDescription({ ...q, state: "working" }, now), "Working on GitHub · 30s");
    const d = parseAgent(done) as Agent;
    assert.equal(agentDescription(d, now), "Done on GitHub · 2m 10s · PR #7 · +12 −2");
    assert.equal(agentLabel(d, now), "Add a --verbose flag: Done on GitHub, 2m 10s, pull request #7, 1 file +12 −2");
    const tip = agentTooltip(d, now);
    assert.match(tip, /Runs on GitHub Actions in `ada\/proj`/);
    assert.match(tip, /\[Run 1001\]\(https:\/\/github\.com\/ada\/proj\/actions\/runs\/1001\)/);
    assert.match(tip, /\[Pull request #7\]\(https:\/\/github\.com\/ada\/proj\/pull\/7\)/);
    assert.match(agentTooltip(q, now), /comes to a local worktree for review when the run is done/);
  });

  it("gives the menus its state, pull request and worktree", () => {
    assert.equal(agentContext(parseAgent(queued) as Agent), "background.queued");
    assert.equal(agentContext(parseAgent(done) as Agent), "background.done.pr.worktree");
    assert.equal(agentContext(parseAgent({ ...done, worktree: undefined }) as Agent), "background.done.pr");
    assert.equal(agentContext(agent({ sessionId: "s", state: "done" })), "agent.done");
    assert.equal(agentContext(agent({ sessionId: "", state: "done" })), "agent.done.nosession");
  });

  it("follows only http(s) links a server sends", () => {
    const a = parseAgent({ ...done, background: { ...done.background, runUrl: "javascript:alert(1)", pullRequest: { number: 7, url: "file:///etc/passwd" } } }) as Agent;
    assert.equal(a.background?.runUrl, "");
    assert.equal(a.background?.pullRequest, undefined);
    assert.doesNotMatch(agentTooltip(a, now), /javascript|file:/);
    assert.equal(webUrl("https://github.com/a/b/pull/1"), "https://github.com/a/b/pull/1");
    assert.equal(webUrl("not a url"), "");
  });

  it("sends the editor's token only when it has one", () => {
    assert.deepEqual(delegateParams("  Add a flag ", "gho_x"), { prompt: "Add a flag", token: "gho_x" });
    assert.deepEqual(delegateParams("Add a flag", undefined), { prompt: "Add a flag" });
    assert.deepEqual(delegateParams("Add a flag", ""), { prompt: "Add a flag" });
    assert.deepEqual(followUpParams("bg-x", " Also the README ", "gho_x"), { id: "bg-x", prompt: "Also the README", token: "gho_x" });
    assert.deepEqual(followUpParams("bg-x", "Also the README", undefined), { id: "bg-x", prompt: "Also the README" });
  });

  it("takes a follow-up only when the server would: done, with a pull request", () => {
    assert.equal(followUpProblem(parseAgent(done) as Agent), undefined);
    assert.match(followUpProblem(parseAgent({ ...done, state: "working" }) as Agent) ?? "", /still running on GitHub/);
    assert.match(followUpProblem(parseAgent({ ...queued, state: "failed" }) as Agent) ?? "", /no pull request/);
    assert.match(followUpProblem(agent({ sessionId: "s", state: "done" })) ?? "", /runs here/);
  });

  it("reads the server's own example (docs/protocol.md, 5h): a background agent at work, no run link needed", () => {
    const doc = readFileSync(path.resolve(__dirname, "../../../../docs/protocol.md"), "utf8");
    const line = doc.split("\n").find((l) => l.startsWith("{") && l.includes('"kind": "background"'));
    assert.ok(line, "no background agent in docs/protocol.md");
    const a = parseAgent(JSON.parse(line).params) as Agent;
    assert.ok(a);
    assert.equal(agentContext(a), "background.working");
    assert.equal(agentKey(a), `background:${a.background?.id}`);
    // Before GitHub made the run, there is no run to link.
    const early = parseAgent({ ...JSON.parse(line).params, state: "queued", background: { id: "bg-x", repository: "ada/proj", branch: "gemini/x" } }) as Agent;
    assert.equal(early.background?.runUrl, "");
    assert.equal(early.background?.runId, 0);
  });

  it("titles one with no title by its branch", () => {
    assert.equal(agentTitle(parseAgent({ ...queued, title: "" }) as Agent), "gemini/add-a-verbose-flag-3f9a");
  });
});
