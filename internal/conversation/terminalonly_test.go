package conversation_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
)

// Each of Gemini CLI 0.61's terminal-only commands is answered in its
// sentence, in every front end (they all run prompts through the host),
// and none reaches the model: before the table, each went to it as a
// prompt.
func TestTerminalOnlyCommandsAnswerWithoutTheModel(t *testing.T) {
	h := newCommandHost(t, `{}`)
	for _, c := range builtin.TerminalOnlyCommands() {
		for _, name := range append([]string{c.Name}, c.AltNames...) {
			if got := h.said("/" + name); got != c.Answer {
				t.Errorf("/%s answered %q", name, got)
			}
		}
	}
	if got := h.said("/vim on please"); !strings.HasPrefix(got, "/vim toggles") {
		t.Errorf("/vim with words after it answered %q", got)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the terminal-only commands made %d model request(s)", n)
	}
}

// A name near a command's (a typo, a beginning) is refused with the
// nearest names, the built-ins' and the user's custom commands', and a
// name near none with where the commands are listed; nothing is sent
// (0.61 sends such a prompt to the model as typed). A "/path" goes to the
// model as typed.
func TestUnknownCommandNamesTheNearest(t *testing.T) {
	h := newCommandHost(t, `{}`, geminitest.TextTurn("About /usr/bin/env."))
	writeFile(t, filepath.Join(h.home, ".gemini", "commands", "deploy.toml"), `prompt = "Deploy."`)
	for line, want := range map[string]string{
		"/mem":                               "/mem is not a command; did you mean /memory?",
		"/plna":                              "/plna is not a command; did you mean /plan?",
		"/plna a flag":                       "/plna is not a command; did you mean /plan?",
		"/depoly":                            "/depoly is not a command; did you mean /deploy?",
		"/stat":                              "/stat is not a command; did you mean /stats?",
		"/extensinos x":                      "/extensinos is not a command; did you mean /extensions?",
		"/etc is where configuration lives?": "/etc is not a command (/help lists them). Nothing was sent to the model. To ask it about /etc, put a word before it.",
		"/nosuch thing":                      "/nosuch is not a command (/help lists them).",
	} {
		if got := h.said(line); !strings.Contains(got, "not run: "+want) || !strings.Contains(got, "Nothing was sent to the model.") {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("the unknown commands made %d model request(s)", n)
	}
	if got := h.said("/usr/bin/env is broken"); strings.Contains(got, "not run") {
		t.Errorf("the /path prompt was not sent: %q", got)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests for the /path prompt", n)
	}
}

func TestNearestCommands(t *testing.T) {
	known := []string{"memory", "model", "mcp", "plan", "policies", "stats", "usage", "bg", "vim"}
	for name, want := range map[string]string{
		"mem":      "memory",
		"plna":     "plan",
		"mdoel":    "model",
		"mc":       "mcp",
		"bin":      "",
		"usr/bin":  "",
		"etc":      "",
		"polciies": "policies",
		"vmi":      "vim",
	} {
		if got := strings.Join(builtin.NearestCommands(name, known), ","); got != want {
			t.Errorf("NearestCommands(%q) = %q, want %q", name, got, want)
		}
	}
}
