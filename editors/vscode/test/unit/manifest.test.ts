// The names end-to-end tests and users rely on, pinned by the extension's contract.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { lmVendor } from "../../src/lmModels";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", `file://${__filename}`), "utf8"));
const contributes = manifest.contributes;

describe("package.json", () => {
  it("identifies the extension", () => {
    assert.equal(manifest.name, "gemini-ls");
    assert.equal(manifest.publisher, "gemini-ls");
    // Not "Gemini" alone: the listing says it is a third-party client, not Google's.
    assert.equal(manifest.displayName, "gemini-ls: Gemini agent (unofficial)");
    assert.equal(manifest.engines.vscode, "^1.100.0");
    assert.equal(manifest.main, "./dist/extension.js");
    assert.deepEqual(manifest.activationEvents, ["onStartupFinished"]);
    assert.equal(manifest.dependencies["vscode-languageclient"], "9.0.1");
    assert.equal(manifest.devDependencies["@types/vscode"], "1.100.0");
  });

  it("has every command with its exact palette title", () => {
    // The palette shows "category: title"; the view's title bar the title alone.
    const titles = Object.fromEntries(contributes.commands.map((c: { command: string; title: string; category: string }) => [c.command, `${c.category}: ${c.title}`]));
    const expected: Record<string, string> = {
      "gemini.openChat": "Gemini: Open Chat",
      "gemini.ask": "Gemini: Ask",
      "gemini.explain": "Gemini: Explain",
      "gemini.fixDiagnostics": "Gemini: Fix Diagnostics Here",
      "gemini.askSelection": "Gemini: Ask About Selection",
      "gemini.cancel": "Gemini: Cancel",
      "gemini.newSession": "Gemini: New Session",
      "gemini.sessions": "Gemini: Show Sessions",
      "gemini.signIn": "Gemini: Sign in with Google",
      "gemini.chooseModel": "Gemini: Choose Model",
      "gemini.chooseMode": "Gemini: Choose Approval Mode",
      "gemini.addContext": "Gemini: Add Context…",
      "gemini.openSettings": "Gemini: Open Settings",
      "gemini.review.accept": "Gemini: Accept Change",
      "gemini.review.reject": "Gemini: Reject Change",
      "gemini.review.acceptHunk": "Gemini: Accept Hunk",
      "gemini.review.rejectHunk": "Gemini: Reject Hunk",
      "gemini.suggestNextEdit": "Gemini: Suggest Next Edit",
      "gemini.acceptNextEdit": "Gemini: Accept Next Edit",
      "gemini.dismissNextEdit": "Gemini: Dismiss Next Edit",
    };
    for (const [id, title] of Object.entries(expected)) {
      assert.equal(titles[id], title, id);
    }
  });

  it("puts Accept and Reject in the editor title while reviewing", () => {
    const title = contributes.menus["editor/title"];
    for (const command of ["gemini.review.accept", "gemini.review.reject"]) {
      assert.ok(title.some((m: { command: string; when: string }) => m.command === command && m.when === "gemini.reviewing"), command);
    }
  });

  it("shows CodeLens in diff editors, where the per-hunk review is", () => {
    assert.equal(contributes.configurationDefaults["diffEditor.codeLens"], true);
  });

  it("has the settings with their defaults", () => {
    const p = contributes.configuration.properties;
    assert.equal(p["gemini.serverPath"].default, "");
    assert.equal(p["gemini.model"].default, "");
    assert.deepEqual(p["gemini.approvalMode"].enum, ["default", "auto_edit", "plan", "yolo"]);
    // Shown in Gemini CLI 0.61's words, as the chat's mode picker shows them.
    assert.deepEqual(p["gemini.approvalMode"].enumItemLabels, ["Manual", "Auto-accept edits", "Plan", "YOLO"]);
    assert.equal(p["gemini.approvalMode"].default, "default");
    assert.equal(p["gemini.autoSave"].default, true);
    assert.deepEqual(p["gemini.trace.server"].enum, ["off", "messages", "verbose"]);
  });

  // Issue 62: a repository's .vscode/settings.json must not choose the
  // program VS Code runs, nor what the agent may do without asking. A
  // setting naming a program, a path, a command or a mode is the user's
  // alone (machine or application scope); every other is the user's in
  // Restricted Mode. A setting added undecided fails here.
  // Issue 96: Sign in with Google is not offered while a key works
  // (gemini.keyWorks, set from gemini/authStatus); the welcome view
  // that offers it shows only while Gemini cannot reach the model.
  it("offers Sign in with Google only while no key works", () => {
    const offers = (text: string | undefined) => (text ?? "").includes("command:gemini.signIn");
    for (const [where, items] of Object.entries(contributes.menus as Record<string, { command: string; when?: string }[]>)) {
      for (const item of items.filter((i) => i.command === "gemini.signIn" && where !== "commandPalette")) {
        assert.match(item.when ?? "", /!gemini\.keyWorks/, `${where} offers Sign in with Google while a key works`);
      }
    }
    for (const view of contributes.viewsWelcome as { when: string; contents: string }[]) {
      if (offers(view.contents)) {
        assert.equal(view.when, "gemini.setup == signedOut", `a welcome view offers Sign in with Google when ${view.when}`);
      }
    }
    const steps = (contributes.walkthroughs as { steps: { id: string; description: string; when?: string }[] }[]).flatMap((w) => w.steps);
    for (const step of steps.filter((s) => offers(s.description))) {
      assert.equal(step.when, "!gemini.keyWorks", `the walkthrough's ${step.id} step offers Sign in with Google while a key works`);
    }
    const signedIn = steps.find((s) => s.when === "gemini.keyWorks");
    assert.ok(signedIn && !offers(signedIn.description), "no walkthrough step for a key that works, or it offers Sign in with Google");
  });

  // Issue 96: Auto is explained in gemini-ls's words, not naming another program.
  it("explains Auto without naming Gemini CLI", () => {
    const model = contributes.configuration.properties["gemini.model"];
    const auto = model.enum.indexOf("auto");
    assert.ok(auto >= 0 && /picks the model for each prompt/i.test(model.enumDescriptions[auto]), `Auto is described ${model.enumDescriptions[auto]}`);
    assert.ok(!model.enumDescriptions[auto].includes("Gemini CLI"), `Auto is described ${model.enumDescriptions[auto]}`);
  });

  it("keeps what a repository could abuse out of its reach", () => {
    const p: Record<string, { scope?: string }> = contributes.configuration.properties;
    const userOnly = (name: string) => ["machine", "application"].includes(p[name].scope ?? "");
    for (const name of ["gemini.serverPath", "gemini.approvalMode"]) {
      assert.ok(userOnly(name), `${name} has scope ${p[name].scope}, want machine or application`);
    }
    // Issue 96: the approval mode is offered in the User tab of the
    // Settings editor, in a remote window too (code-server), where a
    // machine setting is offered only in the Remote tab.
    assert.equal(p["gemini.approvalMode"].scope, "application", "gemini.approvalMode is not offered in the User settings tab of a remote window");
    for (const name of Object.keys(p)) {
      if (/path|command|program|executable|binary|args|env\b|mode\b|shell/i.test(name)) {
        assert.ok(userOnly(name), `${name} names a program, a path or a mode, yet a workspace can set it (scope ${p[name].scope})`);
      }
    }
    const trust = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(trust?.supported, "limited");
    assert.ok(typeof trust.description === "string" && trust.description.length > 0);
    for (const name of Object.keys(p)) {
      assert.ok(userOnly(name) || trust.restrictedConfigurations.includes(name), `${name}: neither the user's alone nor restricted in Restricted Mode`);
    }
    assert.equal(manifest.capabilities.virtualWorkspaces?.supported, false);
  });

  it("has the chat view in its own activity bar container, the welcome view in its place while it cannot work, and its key", () => {
    assert.deepEqual(contributes.viewsContainers.activitybar, [{ id: "gemini", title: "Gemini", icon: "media/gemini.svg" }]);
    assert.deepEqual(contributes.views.gemini, [
      { type: "webview", id: "gemini.chat", name: "Chat", when: "!gemini.setup" },
      { id: "gemini.welcome", name: "Chat", when: "gemini.setup" },
      // Shown once there is an agent: alone, the chat keeps its container's title bar for its icons.
      { id: "gemini.agents", name: "Agents", when: "gemini.hasAgents" },
    ]);
    const welcome = contributes.viewsWelcome.filter((w: { view: string }) => w.view === "gemini.welcome");
    assert.deepEqual(welcome.map((w: { when: string }) => w.when), ["gemini.setup == serverMissing", "gemini.setup == signedOut"]);
    assert.match(welcome[1].contents, /\[Sign in with Google\]\(command:gemini\.signIn\)/);
    assert.match(welcome[1].contents, /\[Enter API Key\]\(command:gemini\.enterApiKey\)/);
    assert.match(welcome[1].contents, /\[Retry\]\(command:gemini\.retry\)/);
    assert.doesNotMatch(welcome[1].contents, /GEMINI_API_KEY/, "the welcome no longer sends the user to an environment variable");
    assert.deepEqual(contributes.keybindings[0], { command: "gemini.openChat", key: "ctrl+k g", mac: "cmd+k g" });
  });

  it("gives the Agents view New Agent and Run in the Background in its title bar and each row the actions its state allows", () => {
    const title = contributes.menus["view/title"].filter((m: { when: string }) => m.when === "view == gemini.agents");
    assert.deepEqual(
      title.map((m: { command: string; group: string }) => [m.command, m.group]),
      [
        ["gemini.agents.new", "navigation@1"],
        ["gemini.runInBackground", "navigation@2"],
        ["gemini.agents.refresh", "navigation@3"],
      ],
    );
    const items: { command: string; when: string; group: string }[] = contributes.menus["view/item/context"];
    // agentsView.ts's contextValue: agent.<state>, with ".nosession" for a worktree found on disk without one.
    const offered = (contextValue: string) =>
      items
        .filter((m) => m.when.startsWith("view == gemini.agents") && new RegExp(/viewItem =~ \/(.*)\//.exec(m.when)![1]).test(contextValue))
        .map((m) => m.command);
    const set = (xs: string[]) => [...new Set(xs)].sort();
    assert.deepEqual(set(offered("agent.working")), ["gemini.agents.discard", "gemini.agents.openChat", "gemini.agents.stop"]);
    assert.deepEqual(set(offered("agent.waiting")), ["gemini.agents.discard", "gemini.agents.openChat", "gemini.agents.stop"]);
    for (const ended of ["agent.done", "agent.failed", "agent.stopped"]) {
      assert.deepEqual(set(offered(ended)), ["gemini.agents.discard", "gemini.agents.land", "gemini.agents.merge", "gemini.agents.openChat"], ended);
    }
    assert.deepEqual(set(offered("agent.stopped.nosession")), ["gemini.agents.discard", "gemini.agents.land", "gemini.agents.merge"]);
    assert.deepEqual(set(offered("agentFile.modified")), []);
    // agents.ts's agentContext for a background agent: background.<state>, then .pr and .worktree once it has them.
    for (const running of ["background.queued", "background.working"]) {
      assert.deepEqual(set(offered(running)), ["gemini.agents.discard", "gemini.agents.openRun"], running);
    }
    assert.deepEqual(set(offered("background.working.pr")), ["gemini.agents.discard", "gemini.agents.openPullRequest", "gemini.agents.openRun"]);
    assert.deepEqual(set(offered("background.failed")), ["gemini.agents.discard", "gemini.agents.openRun"]);
    assert.deepEqual(set(offered("background.done.pr")), ["gemini.agents.discard", "gemini.agents.followUp", "gemini.agents.openPullRequest", "gemini.agents.openRun"]);
    assert.deepEqual(set(offered("background.done.pr.worktree")), [
      "gemini.agents.discard",
      "gemini.agents.followUp",
      "gemini.agents.land",
      "gemini.agents.merge",
      "gemini.agents.openPullRequest",
      "gemini.agents.openRun",
    ]);
    // The row's buttons: Review & Land once there is a worktree, the pull request once there is one, else the run.
    const inline = (contextValue: string) => set(items.filter((m) => m.group.startsWith("inline") && offered(contextValue).includes(m.command) && new RegExp(/viewItem =~ \/(.*)\//.exec(m.when)![1]).test(contextValue)).map((m) => m.command));
    assert.deepEqual(inline("background.working"), ["gemini.agents.openRun"]);
    assert.deepEqual(inline("background.done.pr.worktree"), ["gemini.agents.land", "gemini.agents.openPullRequest"]);
  });

  it("puts New Session and History as icons in the chat's title bar, the rest in its menu", () => {
    const title = contributes.menus["view/title"].filter((m: { when: string }) => m.when === "view == gemini.chat");
    const inBar = title.filter((m: { group: string }) => m.group.startsWith("navigation")).map((m: { command: string }) => m.command);
    assert.deepEqual(inBar, ["gemini.newSession", "gemini.sessions", "gemini.openChatInEditor"]);
    const icon = (id: string) => contributes.commands.find((c: { command: string }) => c.command === id)?.icon;
    assert.equal(icon("gemini.newSession"), "$(add)");
    assert.equal(icon("gemini.sessions"), "$(history)");
    for (const id of ["gemini.addContext", "gemini.chooseModel", "gemini.chooseMode", "gemini.rewind", "gemini.agents.new", "gemini.runInBackground", "gemini.openSettings"]) {
      assert.ok(title.some((m: { command: string }) => m.command === id), `${id} is not in the chat's title menu`);
    }
  });

  it("binds Ask, Ask About Selection and Cancel to keys Copilot Chat leaves free, each where it applies", () => {
    const bound = (command: string) => contributes.keybindings.filter((k: { command: string }) => k.command === command);
    assert.deepEqual(bound("gemini.ask"), [{ command: "gemini.ask", key: "ctrl+k a", mac: "cmd+k a", when: "!editorTextFocus || !editorHasSelection" }]);
    assert.deepEqual(bound("gemini.askSelection"), [{ command: "gemini.askSelection", key: "ctrl+k a", mac: "cmd+k a", when: "editorTextFocus && editorHasSelection" }]);
    assert.deepEqual(bound("gemini.cancel"), [{ command: "gemini.cancel", key: "ctrl+k x", mac: "cmd+k x", when: "gemini.busy" }]);
    // VS Code's chat (Copilot Chat): open ctrl+alt+i, inline ctrl+i, agent ctrl+shift+i,
    // quick chat ctrl+shift+alt+l, cancel ctrl+escape, attach ctrl+/, model picker ctrl+alt+.
    const copilot = ["ctrl+alt+i", "ctrl+shift+i", "ctrl+shift+alt+l", "ctrl+escape", "ctrl+/", "ctrl+alt+.", "ctrl+."];
    for (const k of contributes.keybindings) {
      assert.ok(!copilot.includes(k.key), `${k.command} takes Copilot Chat's ${k.key}`);
    }
  });

  it("binds Keep and Undo of a review to Copilot's Ctrl+Enter and Ctrl+Backspace, only in the text of a review's diff", () => {
    const bound = (command: string) => contributes.keybindings.filter((k: { command: string }) => k.command === command);
    const when = "gemini.reviewing && editorTextFocus && resourceScheme =~ /^gemini-(proposal|original)$/";
    assert.deepEqual(bound("gemini.review.accept"), [{ command: "gemini.review.accept", key: "ctrl+enter", mac: "cmd+enter", when }]);
    assert.deepEqual(bound("gemini.review.reject"), [{ command: "gemini.review.reject", key: "ctrl+backspace", mac: "cmd+backspace", when }]);
    // The clause matches the two sides of the diff (review.ts, proposals.ts) and no file of the user's:
    // elsewhere Ctrl+Enter stays VS Code's (insert a line below, send in a chat, commit in
    // Source Control) and Ctrl+Backspace deletes the word left.
    const scheme = new RegExp(/=~ \/(.*)\/$/.exec(when)![1]);
    assert.ok(scheme.test("gemini-proposal") && scheme.test("gemini-original"));
    for (const other of ["file", "untitled", "vscode-userdata", "git", "gemini-proposals"]) {
      assert.ok(!scheme.test(other), other);
    }
  });

  it("takes no Ctrl+Alt chord, which is AltGr on Windows keyboards (€, ę, ą, ź), nor a Ctrl+K chord of VS Code's", () => {
    // Ctrl+K then a letter, as VS Code 1.100 binds them (workbench and built-in extensions;
    // R reveals the file in Windows' Explorer on the desktop).
    const vscodeChords = "c d e f i m n o p r s t u v w y z".split(" ").map((l) => `ctrl+k ${l}`);
    for (const k of contributes.keybindings) {
      for (const key of [k.key, k.win, k.linux].filter((x): x is string => typeof x === "string")) {
        const mods = key.split(" ")[0].split("+");
        assert.ok(!(mods.includes("ctrl") && mods.includes("alt")), `${k.command} is bound to ${key}, an AltGr character on Windows`);
        assert.ok(!vscodeChords.includes(key), `${k.command} takes VS Code's own ${key}`);
      }
    }
  });

  it("puts its editor actions in one Gemini submenu, lists under AI and Chat, and hides commands where they do nothing", () => {
    assert.deepEqual(contributes.menus["editor/context"], [{ submenu: "gemini.editorContext", group: "gemini@1" }]);
    assert.deepEqual(contributes.submenus, [{ id: "gemini.editorContext", label: "Gemini" }]);
    assert.deepEqual(
      contributes.menus["gemini.editorContext"].map((m: { command: string }) => m.command),
      ["gemini.explain", "gemini.askSelection", "gemini.editSelection", "gemini.fixDiagnostics"],
    );
    assert.deepEqual(manifest.categories, ["AI", "Chat"]);
    const when = (command: string) => contributes.menus.commandPalette.find((m: { command: string }) => m.command === command)?.when;
    assert.equal(when("gemini.cancel"), "gemini.busy");
    assert.equal(when("gemini.askSelection"), "editorHasSelection");
    assert.equal(when("gemini.forgetApiKey"), "gemini.hasApiKey");
    assert.equal(when("gemini.rewind"), "gemini.hasTurns");
    assert.equal(when("gemini.statusMenu"), "false");
  });

  it("has a walkthrough whose steps' pictures are packaged and whose commands are the extension's or VS Code's", () => {
    const [walk] = contributes.walkthroughs;
    assert.equal(walk.id, "gemini.start");
    for (const step of walk.steps) {
      assert.ok(existsSync(new URL(`../../${step.media.markdown}`, `file://${__filename}`)), `${step.media.markdown} is missing`);
      for (const [, command] of step.description.matchAll(/\(command:([\w.]+)\)/g)) {
        const ours = contributes.commands.some((c: { command: string }) => c.command === command);
        assert.ok(ours || command.startsWith("workbench."), `${step.id} links ${command}, which nothing registers`);
      }
    }
  });

  it("takes Tab and Escape for a next edit only while one is shown, and never from ghost text or the suggest widget", () => {
    const bound = (command: string) => contributes.keybindings.find((k: { command: string }) => k.command === command);
    for (const [command, key] of [["gemini.acceptNextEdit", "tab"], ["gemini.dismissNextEdit", "escape"]]) {
      const k = bound(command);
      assert.equal(k?.key, key, command);
      for (const clause of ["editorTextFocus", "gemini.nextEditVisible", "!inlineSuggestionVisible", "!suggestWidgetVisible"]) {
        assert.ok(k.when.split(" && ").includes(clause), `${command}'s when lacks ${clause}: ${k.when}`);
      }
    }
  });

  it("has the completion settings, on by default", () => {
    const p = contributes.configuration.properties;
    assert.equal(p["gemini.inlineCompletion.enabled"].default, true);
    assert.equal(p["gemini.nextEdit.enabled"].default, true);
  });

  it("is one the Marketplace takes: no proposed API, and what its page shows", () => {
    // The Marketplace refuses an extension that declares enabledApiProposals.
    assert.equal(manifest.enabledApiProposals, undefined);
    assert.match(manifest.icon, /\.png$/, "the Marketplace takes no SVG icon");
    assert.equal(manifest.license, "Apache-2.0");
    assert.equal(manifest.repository.url, "https://github.com/gemini-ls/gemini-ls");
    assert.ok(manifest.categories.length > 0 && manifest.keywords.length > 0);
    // Handlers of proposed API would make registering the provider throw.
    const source = readFileSync(new URL("../../src/completion.ts", `file://${__filename}`), "utf8");
    for (const hook of ["handleDidShowCompletionItem", "handleDidPartiallyAcceptCompletionItem", "handleEndOfLifetime"]) {
      assert.ok(!source.includes(hook), `completion.ts implements ${hook}, proposed API`);
    }
  });

  it("describes each setting for users: what it does and when you would change it; the model from a list", () => {
    const p: Record<string, { description?: string; markdownDescription?: string; enum?: string[]; enumItemLabels?: string[] }> = contributes.configuration.properties;
    for (const [name, setting] of Object.entries(p)) {
      const text = setting.markdownDescription ?? setting.description ?? "";
      assert.ok(text.split(/\s+/).length >= 25, `${name}'s description is ${text.split(/\s+/).length} words: say what it does and when to change it`);
      assert.match(text, /\b(when|if|Set it|Turn it|Choose|Leave it|change it)\b/, `${name}'s description does not say when you would change it`);
    }
    const model = p["gemini.model"];
    assert.equal(model.enum?.[0], "", "gemini.model's list does not start with the server's default");
    assert.ok((model.enum?.length ?? 0) > 3 && model.enumItemLabels?.length === model.enum?.length, "gemini.model lists no models, or labels not each");
  });

  it("carries what the chat's webview loads: its script, stylesheet, and the codicons' font and licence, pinned", () => {
    const carried = readFileSync(new URL("../../.vscodeignore", `file://${__filename}`), "utf8").split("\n");
    const chat = readFileSync(new URL("../../src/chat.ts", `file://${__filename}`), "utf8");
    assert.ok(chat.includes('joinPath(dist, "codicons", "codicon.css")'), "the chat does not load the codicons' stylesheet");
    for (const file of ["!dist/webview.js", "!dist/codicons/**", "!media/**"]) {
      assert.ok(carried.includes(file), `.vscodeignore leaves out ${file.slice(1)}, which the chat loads`);
    }
    assert.match(manifest.devDependencies["@vscode/codicons"], /^\d+\.\d+\.\d+$/, "@vscode/codicons is not pinned to one version");
    const build = readFileSync(new URL("../../scripts/build.mjs", `file://${__filename}`), "utf8");
    for (const file of ["codicon.css", "codicon.ttf", "LICENSE"]) {
      assert.ok(build.includes(`"${file}"`), `scripts/build.mjs does not copy the codicons' ${file} into dist/codicons`);
    }
  });

  it("declares the vendor its models are offered to VS Code's chat by, managed from the sign-in menu", () => {
    // VS Code 1.104 registers a provider only for a vendor the manifest declares.
    assert.deepEqual(contributes.languageModelChatProviders, [{ vendor: lmVendor, displayName: "Gemini (gemini-ls)", managementCommand: "gemini.signInMenu" }]);
    assert.ok(contributes.commands.some((c: { command: string }) => c.command === "gemini.signInMenu"));
  });

  it("registers each contributed command in the code", () => {
    const source = readFileSync(new URL("../../src/extension.ts", `file://${__filename}`), "utf8");
    for (const { command } of contributes.commands) {
      assert.ok(source.includes(`register("${command}"`), `${command} is contributed but not registered`);
    }
  });
});
