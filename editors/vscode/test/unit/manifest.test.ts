// The names end-to-end tests and users rely on, pinned by the extension's contract.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", `file://${__filename}`), "utf8"));
const contributes = manifest.contributes;

describe("package.json", () => {
  it("identifies the extension", () => {
    assert.equal(manifest.name, "gemini-ls");
    assert.equal(manifest.publisher, "gemini-ls");
    assert.equal(manifest.displayName, "Gemini");
    assert.equal(manifest.engines.vscode, "^1.100.0");
    assert.equal(manifest.main, "./dist/extension.js");
    assert.deepEqual(manifest.activationEvents, ["onStartupFinished"]);
    assert.equal(manifest.dependencies["vscode-languageclient"], "9.0.1");
    assert.equal(manifest.devDependencies["@types/vscode"], "1.100.0");
  });

  it("has every command with its exact palette title", () => {
    const titles = Object.fromEntries(contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
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
    assert.deepEqual(p["gemini.approvalMode"].enum, ["default", "auto_edit", "yolo"]);
    assert.equal(p["gemini.approvalMode"].default, "default");
    assert.equal(p["gemini.autoSave"].default, true);
    assert.deepEqual(p["gemini.trace.server"].enum, ["off", "messages", "verbose"]);
  });

  it("has the chat view in its own activity bar container, and its key", () => {
    assert.deepEqual(contributes.viewsContainers.activitybar, [{ id: "gemini", title: "Gemini", icon: "media/gemini.svg" }]);
    assert.deepEqual(contributes.views.gemini, [{ type: "webview", id: "gemini.chat", name: "Chat" }]);
    assert.deepEqual(contributes.keybindings[0], { command: "gemini.openChat", key: "ctrl+alt+g", mac: "cmd+alt+g" });
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

  it("has the completion settings, on by default, and the proposed API of the completion feedback", () => {
    const p = contributes.configuration.properties;
    assert.equal(p["gemini.inlineCompletion.enabled"].default, true);
    assert.equal(p["gemini.nextEdit.enabled"].default, true);
    assert.deepEqual(manifest.enabledApiProposals, ["inlineCompletionsAdditions"]);
  });

  it("registers each contributed command in the code", () => {
    const source = readFileSync(new URL("../../src/extension.ts", `file://${__filename}`), "utf8");
    for (const { command } of contributes.commands) {
      assert.ok(source.includes(`register("${command}"`), `${command} is contributed but not registered`);
    }
  });
});
