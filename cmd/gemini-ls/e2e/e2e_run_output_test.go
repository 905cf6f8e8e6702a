package e2e

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
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

// A prompt naming a command whose file was skipped is refused as no
// command, nothing sent, and the user is told the file was skipped.
func TestRunOutputTellsASkippedCommandsFile(t *testing.T) {
	home := commandHome(t, map[string]string{"broken.toml": `prompt = `})
	h := newHeadless(t, nil, geminitest.TextTurn("What is /broken?"))
	env := append(h.withoutEnv("HOME"), append(trustTheWorkspace(), "HOME="+home)...)
	r := h.runIn(h.root, env, "run", "-p", "/broken")
	r.wantExit(t, exitInput)
	contains(t, "stderr", r.stderr, "/broken is not a command")
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests for a command whose file was skipped", n)
	}
	if broken := filepath.Join(home, ".gemini", "commands", "broken.toml"); !strings.Contains(r.stderr, broken) {
		t.Errorf("stderr = %q, want it to name %s", r.stderr, broken)
	}
}

// greetTurns: the model says it will edit notes.txt and run a command,
// tries both, then says it is done, whatever became of them.
func greetTurns() []geminitest.Turn {
	return []geminitest.Turn{
		{Chunks: []geminitest.Chunk{
			{Text: "I'll edit notes.txt."},
			{Call: geminitest.Call("replace", map[string]any{"file_path": "notes.txt", "old_string": "hello", "new_string": "hello, world"})},
			{Call: geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"})},
		}},
		geminitest.TextTurn("Done."),
	}
}

// Headless text in the default mode: the model's "Done." is printed, and
// stderr says the edit and the command did not run, naming each and
// why (not offered in the mode, and which mode offers it), then once in
// sum with the flag that would offer them.
func TestRunOutputTextSaysWhatWasRefused(t *testing.T) {
	h := newHeadless(t, map[string]string{"notes.txt": "hello\n"}, greetTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "greet the world in notes.txt")
	r.wantExit(t, 0)
	if r.stdout != "I'll edit notes.txt.\n\nDone.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	for _, want := range []string{
		"gemini-ls: replace is not offered to the model in the default approval mode (the auto_edit approval mode offers it; settings' tools.allowed can allow it), so the model's call of it did not run; the model was told: Tool \"replace\" not found.\n",
		"gemini-ls: run_shell_command is not offered to the model in the default approval mode (the yolo approval mode offers it; settings' tools.allowed can allow it), so the model's call of it did not run; the model was told: Tool \"run_shell_command\" not found.\n",
		"gemini-ls: 2 of the model's calls did not run (replace, run_shell_command), not offered in the default approval mode: --approval-mode yolo offers them.\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr = %q, want it to say %q", r.stderr, want)
		}
	}
	if got := h.disk("notes.txt"); got != "hello\n" {
		t.Errorf("notes.txt = %q, want it unchanged", got)
	}
	if h.exists("marker") {
		t.Error("the command ran")
	}
}

// json's stats count the edit and the command that were not offered as
// failed calls, and no decision (as Gemini CLI 0.61 counts a call of a
// tool it has not: stats.tools totalFail, byName, decisions).
func TestRunOutputJSONStatsShowTheRefusals(t *testing.T) {
	h := newHeadless(t, map[string]string{"notes.txt": "hello\n"}, greetTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "greet the world in notes.txt", "--output-format", "json")
	r.wantExit(t, 0)
	res := decodeOne(t, r.stdout)
	got := withoutTimes(res.Stats).Tools
	want := toolStats{
		TotalCalls: 2, TotalFail: 2,
		ByName: map[string]toolCount{
			"replace":           {Count: 1, Fail: 1},
			"run_shell_command": {Count: 1, Fail: 1},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stats.tools = %+v, want %+v", got, want)
	}
	if !strings.Contains(r.stderr, "2 of the model's calls did not run (replace, run_shell_command)") {
		t.Errorf("stderr = %q, want both calls named as not run", r.stderr)
	}
}

// stream-json's result carries the same stats, and an edit auto_edit
// lets through is a success with no decision: nobody was asked.
func TestRunOutputStreamJSONStatsCountWhatRan(t *testing.T) {
	h := newHeadless(t, map[string]string{"notes.txt": "hello\n"}, greetTurns()...)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "greet", "--approval-mode", "auto_edit", "--output-format", "stream-json")
	r.wantExit(t, 0)
	lines, _ := streamLines(t, r.stdout)
	end := lines[len(lines)-1]
	if end.Type != "result" || end.Stats == nil {
		t.Fatalf("last line = %+v, want the result with stats", end)
	}
	// 0.61's stream stats: the calls counted, not detailed.
	if got := end.Stats.ToolCalls; got != 2 {
		t.Errorf("stats.tool_calls = %d, want 2", got)
	}
	if got := h.disk("notes.txt"); got != "hello, world\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if strings.Contains(r.stderr, "gemini-ls: replace") || !strings.Contains(r.stderr, "gemini-ls: 1 of the model's calls did not run (run_shell_command), not offered in the auto_edit approval mode") {
		t.Errorf("stderr = %q, want the command, which auto_edit does not offer, alone", r.stderr)
	}
}
