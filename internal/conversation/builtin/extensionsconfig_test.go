package builtin_test

import (
	"os"
	"strings"
	"testing"
)

// /extensions config shows an extension's settings as 0.61 shows their
// values, and with a value writes it into the extension's .env file as
// 0.61's updateSetting does for the user scope: the file's other lines
// kept in order, a value with a space quoted, a sensitive setting's
// variable dropped; --unset removes it. A sensitive setting is never
// set (0.61 keeps it in the keychain), nor the workspace scope, and
// headless nothing is written.
func TestExtensionsConfig(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/extensions config"); got != "No extensions installed." {
		t.Errorf("without extensions: %q", got)
	}
	h.write("~/.gemini/extensions/deploy/gemini-extension.json", `{"name": "deploy", "version": "1.0.0",
		"settings": [{"name": "Region", "description": "Where to deploy", "envVar": "DEPLOY_REGION"},
			{"name": "Token", "envVar": "DEPLOY_TOKEN", "sensitive": true},
			{"name": "Label", "envVar": "DEPLOY_LABEL"}]}`)
	envFile := h.write("~/.gemini/extensions/deploy/.env", "OTHER=1\nDEPLOY_TOKEN=leaked\nDEPLOY_LABEL=old\n")
	h.write("~/.gemini/extensions/plain/gemini-extension.json", `{"name": "plain", "version": "1.0.0"}`)
	env := h.conversation()

	got := h.answer(env, "/extensions config deploy")
	for _, want := range []string{
		`Settings of "deploy" (` + envFile + `):`,
		"- Region (DEPLOY_REGION): [not set] — Where to deploy",
		"- Token (DEPLOY_TOKEN): ***",
		"- Label (DEPLOY_LABEL): old",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/extensions config deploy lacks %q:\n%s", want, got)
		}
	}
	if got := h.answer(env, "/extensions config plain"); got != `Extension "plain" has no settings to configure.` {
		t.Errorf("/extensions config plain: %q", got)
	}
	if err := h.fails(env, "/extensions config nosuch"); err.Error() != `Extension "nosuch" is not installed.` {
		t.Errorf("/extensions config nosuch: %v", err)
	}
	if err := h.fails(env, "/extensions config ../etc x"); !strings.Contains(err.Error(), `Names cannot contain path separators or ".."`) {
		t.Errorf("/extensions config ../etc: %v", err)
	}

	if got := h.answer(env, "/extensions config deploy Region eu west 1"); !strings.HasPrefix(got, `Setting "Region" updated`) {
		t.Errorf("/extensions config deploy Region …: %q", got)
	}
	if got := h.answer(env, "/extensions config --scope user deploy DEPLOY_LABEL --unset"); !strings.HasPrefix(got, `Setting "DEPLOY_LABEL" updated`) {
		t.Errorf("--unset: %q", got)
	}
	if data, _ := os.ReadFile(envFile); string(data) != "OTHER=1\nDEPLOY_REGION=\"eu west 1\"\n" {
		t.Errorf("the .env file holds %q", data)
	}
	if got := h.answer(h.conversation(), "/extensions config deploy Region"); !strings.Contains(got, "- Region (DEPLOY_REGION): eu west 1") {
		t.Errorf("a new conversation reads %q", got)
	}

	for line, want := range map[string]string{
		"/extensions config deploy Token s3cret":               "keychain",
		"/extensions config --scope workspace deploy Region x": "the workspace scope",
		"/extensions config deploy Nope x":                     "Setting Nope not found",
	} {
		if err := h.fails(env, line); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	before, _ := os.ReadFile(envFile)
	headless := h.conversation()
	headless.Unattended = true
	if err := h.fails(headless, "/extensions config deploy Region us"); !strings.Contains(err.Error(), "/extensions config was not run") {
		t.Errorf("headless: %v", err)
	}
	if after, _ := os.ReadFile(envFile); string(after) != string(before) {
		t.Errorf("refused commands changed the .env file: %q", after)
	}
}
