package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

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
