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

// A model named with a dotted Gemini 3 version is neither called a slip
// of a known model of another version (gemini-3.1-pro is not
// gemini-2.5-pro) nor promoted to another: the request goes to the model
// as written, as Gemini CLI after 0.61 sends it (#29982).
func TestRunSendsADottedGemini3ModelAsWritten(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("One."), geminitest.TextTurn("Two."))
	for i, name := range []string{"gemini-3.1-pro", "gemini-3.5-flash"} {
		r := h.run("run", "-m", name, "-p", "hi")
		r.wantExit(t, 0)
		reqs := h.model.Requests()
		if len(reqs) != i+1 || reqs[i].Model != name {
			t.Fatalf("-m %s: the requests went to %v; stderr %q", name, requestModels(reqs), r.stderr)
		}
	}
}

func requestModels(reqs []geminitest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+r.Model)
	}
	return out
}
