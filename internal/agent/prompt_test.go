package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The system prompt tells the model that its calls run at once and how
// to order one after the others, as Gemini CLI 0.61's does ("Parallelism
// & Sequencing"): the argument it names is the one the scheduler reads.
func TestSystemPromptTellsOfParallelCalls(t *testing.T) {
	for _, want := range []string{"run in parallel by default", "`" + tools.WaitForPrevious + "` parameter to `true`"} {
		if !strings.Contains(DefaultSystemPrompt, want) {
			t.Errorf("the system prompt does not say %q", want)
		}
	}
}

// On Windows the system prompt names the shell and 0.61's Windows
// commands for reading files and listing trees; a bash prompt is as it
// was, and a user's own prompt gets nothing added.
func TestSystemPromptNamesTheShell(t *testing.T) {
	a := &Agent{cfg: Config{SystemPrompt: "base", Shell: osshell.PowerShell}}
	got := a.basePrompt()
	for _, want := range []string{"`powershell.exe -NoProfile -Command <command>`", "'Get-Content' or 'Select-String'", "`Get-ChildItem -Recurse`"} {
		if !strings.Contains(got, want) {
			t.Errorf("the PowerShell prompt does not say %q:\n%s", want, got)
		}
	}
	a.cfg.Shell = osshell.Cmd
	if got := a.basePrompt(); !strings.Contains(got, "`cmd.exe /d /s /c <command>`") || !strings.Contains(got, "`dir /s`") {
		t.Errorf("the cmd.exe prompt: %s", got)
	}
	a.cfg.Shell = osshell.Bash
	if got := a.basePrompt(); got != "base" {
		t.Errorf("the bash prompt became %q", got)
	}
	a.cfg = Config{SystemPrompt: "mine", SystemPromptOverride: true, Shell: osshell.PowerShell}
	if got := a.basePrompt(); got != "mine" {
		t.Errorf("the user's prompt became %q", got)
	}
}

// The system prompt tells the model when navigate_code beats grep only
// where the tool is declared.
func TestSystemPromptTellsOfCodeIntelligence(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	with := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws, CodeIntel: codeintel.Chain(noServer{})})...)
	a := &Agent{cfg: Config{SystemPrompt: "base", Tools: with}}
	got := a.basePrompt()
	for _, want := range []string{"# Code Intelligence", "use `navigate_code` rather than `grep_search`", "use `rename_symbol` rather than editing each use"} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt does not say %q:\n%s", want, got)
		}
	}
	a.cfg.Tools = tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...)
	if got := a.basePrompt(); got != "base" {
		t.Errorf("with no language server the prompt became %q", got)
	}
}

type noServer struct{}

func (noServer) Ask(context.Context, codeintel.Request) (codeintel.Answer, error) {
	return codeintel.Answer{}, &codeintel.NoServerError{Language: "Go"}
}
