package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A slip of -m's model name is told before any request, with the name
// meant; the user's own aliases are names too (issue 99).
func TestRunSaysWhichModelAMisspeltNameMeant(t *testing.T) {
	h := newHeadless(t, map[string]string{
		".gemini/settings.json": `{"modelConfigs": {"customAliases": {"my-fast": {"modelConfig": {"model": "gemini-2.5-flash"}}}}}`,
	}, geminitest.TextTurn("Hello."))
	r := h.run("run", "-m", "gemini-2.5-flsh", "-p", "hi")
	r.wantExit(t, 1)
	if want := `gemini-ls: unknown model "gemini-2.5-flsh" (did you mean "gemini-2.5-flash"?)`; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	r = h.run("run", "-m", "my-fst", "-p", "hi")
	r.wantExit(t, 1)
	if !strings.Contains(r.stderr, `(did you mean "my-fast"?)`) {
		t.Errorf("a slip of the user's alias: stderr = %q", r.stderr)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("the model got %d requests for a misspelt name", n)
	}
	r = h.run("run", "-m", "my-fast", "-p", "hi")
	r.wantExit(t, 0)
	if !strings.Contains(r.stdout, "Hello.") {
		t.Errorf("the user's alias did not run: %q %q", r.stdout, r.stderr)
	}
}
