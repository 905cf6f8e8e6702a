package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

// noticedRun runs "/greet" headless in format, with a HOME whose
// settings hold a key gemini-ls does not implement and whose commands
// hold greet.toml and a broken file beside it. It returns the result
// and the two notices' telltales: the unread key, the broken file.
func noticedRun(t *testing.T, format string) (cliResult, []string) {
	t.Helper()
	home := commandHome(t, map[string]string{"greet.toml": `prompt = "Say hello."`, "broken.toml": `prompt = `})
	writeFiles(t, filepath.Join(home, ".gemini"), map[string]string{"settings.json": `{"general": {"disableAutoUpdate": true}}`})
	h := newHeadless(t, nil, geminitest.TextTurn("Hello."))
	env := append(h.withoutEnv("HOME"), append(trustTheWorkspace(), "HOME="+home)...)
	r := h.runIn(h.root, env, "run", "-p", "/greet", "--output-format", format)
	r.wantExit(t, 0)
	if got := lastUserText(t, h.model.Requests(), 0); got != "Say hello." {
		t.Fatalf("the model was sent %q, want the command's prompt", got)
	}
	return r, []string{"does not implement Gemini CLI's general.disableAutoUpdate", filepath.Join(home, ".gemini", "commands", "broken.toml")}
}

// missing is the telltales none of texts contains.
func missing(texts []string, telltales []string) []string {
	var out []string
	for _, tell := range telltales {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, tell) }) {
			out = append(out, tell)
		}
	}
	return out
}

// The start-up notices (a settings key not implemented, a command file
// skipped) reach stderr in every format.
func TestRunOutputNoticesOnStderrInEveryFormat(t *testing.T) {
	for _, format := range []string{"text", "json", "stream-json"} {
		r, tells := noticedRun(t, format)
		if m := missing([]string{r.stderr}, tells); len(m) > 0 {
			t.Errorf("%s: stderr %q does not name %q", format, r.stderr, m)
		}
	}
}

// json carries the notices in "warnings", as Gemini CLI's object does.
func TestRunOutputJSONCarriesNotices(t *testing.T) {
	r, tells := noticedRun(t, "json")
	res := decodeOne(t, r.stdout)
	if res.Response != "Hello." {
		t.Errorf("response = %q", res.Response)
	}
	if m := missing(res.Warnings, tells); len(m) > 0 {
		t.Errorf("warnings = %q, missing %q", res.Warnings, m)
	}
}

// stream-json carries each notice as an "error" event of severity
// "warning", as Gemini CLI's stream-json does; the notices from before
// the run follow "init".
func TestRunOutputStreamJSONCarriesNotices(t *testing.T) {
	r, tells := noticedRun(t, "stream-json")
	lines, types := streamLines(t, r.stdout)
	if len(types) == 0 || types[0] != "init" || types[len(types)-1] != "result" {
		t.Fatalf("types = %q, want init first and result last", types)
	}
	var warnings []string
	for _, l := range lines {
		if l.Type == "error" {
			if l.Severity != "warning" {
				t.Errorf("error event %+v, want severity warning", l)
			}
			warnings = append(warnings, l.Message)
		}
	}
	if m := missing(warnings, tells); len(m) > 0 {
		t.Errorf("warning events = %q, missing %q\n%s", warnings, m, r.stdout)
	}
	if end := lines[len(lines)-1]; end.Status != "success" {
		t.Errorf("result = %+v: a warning does not fail the run", end)
	}
}

// A prompt naming a command whose file was skipped goes to the model as
// typed, and the user is told the file was skipped.
func TestRunOutputTellsASkippedCommandsFile(t *testing.T) {
	home := commandHome(t, map[string]string{"broken.toml": `prompt = `})
	h := newHeadless(t, nil, geminitest.TextTurn("What is /broken?"))
	env := append(h.withoutEnv("HOME"), append(trustTheWorkspace(), "HOME="+home)...)
	r := h.runIn(h.root, env, "run", "-p", "/broken")
	r.wantExit(t, 0)
	if got := lastUserText(t, h.model.Requests(), 0); got != "/broken" {
		t.Errorf("the model was sent %q, want the prompt as typed", got)
	}
	if broken := filepath.Join(home, ".gemini", "commands", "broken.toml"); !strings.Contains(r.stderr, broken) {
		t.Errorf("stderr = %q, want it to name %s", r.stderr, broken)
	}
}
