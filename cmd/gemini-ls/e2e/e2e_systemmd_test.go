package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

const customSystemMD = "You are Captain Prompt.\nTools:\n${AvailableTools}\nRead with ${read_file_ToolName}."

// GEMINI_SYSTEM_MD=true in a trusted folder's .gemini/.env makes the
// project's .gemini/system.md the whole system instruction of `run`, its
// variables filled; the GEMINI.md memory is given in the first user
// content, as with the built-in prompt (0.61 ends its system instruction
// with the global and private memory, and gives the project's GEMINI.md
// in its first message).
func TestRunSystemMDReplacesTheSystemInstruction(t *testing.T) {
	h := newHeadless(t, map[string]string{
		".gemini/.env":      "GEMINI_SYSTEM_MD=true\n",
		".gemini/system.md": customSystemMD,
		"GEMINI.md":         "Project memory rule.",
	}, geminitest.TextTurn("aye"))
	r := h.run("run", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	got := systemText(t, h.model.Requests(), 0)
	if !strings.HasPrefix(got, "You are Captain Prompt.\nTools:\n- ") {
		t.Errorf("the system instruction does not start with system.md:\n%s", got)
	}
	for _, want := range []string{"\n- read_file\n", "Read with read_file."} {
		if !strings.Contains(got, want) {
			t.Errorf("the system instruction lacks %q:\n%s", want, got)
		}
	}
	if memory := firstMemory(h.model.Requests()[0]); !strings.Contains(memory, "Project memory rule.") {
		t.Errorf("the first user content does not give the GEMINI.md memory:\n%s", memory)
	}
	if strings.Contains(got, "coding agent") || strings.Contains(got, "${") {
		t.Errorf("the built-in prompt or an unfilled variable remains:\n%s", got)
	}
}

// A GEMINI_SYSTEM_MD file that does not exist stops `run` before any
// request, with 0.61's words and the path, ~ expanded.
func TestRunSystemMDMissingFails(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("never"))
	var home string
	for _, kv := range h.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	r := h.runIn(h.root, append(h.env, "GEMINI_SYSTEM_MD=~/prompts/none.md"), "run", "-p", "hi")
	want := "missing system prompt file '" + filepath.Join(home, "prompts", "none.md") + "'"
	if r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want a failure saying %q", r.code, r.stderr, want)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// GEMINI_WRITE_SYSTEM_MD=1 writes the system instruction the model got
// to the project's .gemini/system.md; a path writes it there.
func TestRunWriteSystemMD(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	if r := h.runIn(h.root, append(h.env, "GEMINI_WRITE_SYSTEM_MD=1"), "run", "-p", "hi"); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	written, err := os.ReadFile(filepath.Join(h.root, ".gemini", "system.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := systemText(t, h.model.Requests(), 0); string(written) != got || got == "" {
		t.Errorf("written %q, the model got %q", written, got)
	}
	if r := h.runIn(h.root, append(h.env, "GEMINI_WRITE_SYSTEM_MD=out/prompt.md"), "run", "-p", "again"); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	if written, err := os.ReadFile(filepath.Join(h.root, "out", "prompt.md")); err != nil || string(written) != systemText(t, h.model.Requests(), 1) {
		t.Errorf("the path given was not written with the system instruction: %v", err)
	}
}

// Over the LSP, GEMINI_SYSTEM_MD replaces the system instruction too; a
// missing file is told in the prompt's answer, never a fallback.
func TestLSPSystemMD(t *testing.T) {
	h := start(t, setup{
		profile: lsptest.Plugin(),
		env:     []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_SYSTEM_MD=custom.md"},
		files:   map[string]string{"custom.md": customSystemMD},
	}, geminitest.TextTurn("aye"))
	h.prompt(map[string]any{"prompt": "hi"})
	if got := systemText(t, h.model.Requests(), 0); !strings.HasPrefix(got, "You are Captain Prompt.") || strings.Contains(got, "coding agent") {
		t.Errorf("system instruction:\n%s", got)
	}

	missing := start(t, setup{
		profile: lsptest.Plugin(),
		env:     []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_SYSTEM_MD=1"},
	}, geminitest.TextTurn("never"))
	var res promptResult
	err := missing.client.Call(missing.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, &res)
	want := "missing system prompt file '" + missing.path(".gemini/system.md") + "'"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("prompt without the file: %v, %+v; want %q", err, res, want)
	}
	if n := len(missing.model.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}
