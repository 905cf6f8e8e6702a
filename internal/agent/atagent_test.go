package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// testAgents is a catalogue whose enabled agents are named.
func testAgents(names ...string) AgentNamed {
	return func(name string) bool { return slices.Contains(names, name) }
}

func expandAgents(t *testing.T, ws *workspace.Workspace, prompt string, isAgent AgentNamed) []string {
	t.Helper()
	parts, err := ExpandReferencesAndAgents(context.Background(), ws, prompt, isAgent)
	if err != nil {
		t.Fatalf("ExpandReferencesAndAgents(%q): %v", prompt, err)
	}
	return texts(parts)
}

// note is 0.61's nudge for the agents named.
func note(names, tools string) string {
	return "\n<system_note>\nThe user has explicitly selected the following agent(s): " + names +
		". Please use the following tool(s) to delegate the task: " + tools + ".\n</system_note>\n"
}

// An @name naming an enabled agent stays in the prompt, which 0.61's note
// follows, asking the model to delegate to it; the prompt is trimmed, as
// 0.61's constructInitialQuery trims it.
func TestAtAgentAddsNote(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"a.go": "package a\n"})
	agents := testAgents("codebase_investigator", "cli_help")
	wantParts(t, expandAgents(t, ws, "  @codebase_investigator where is the parser?\n", agents), []string{
		"@codebase_investigator where is the parser?",
		note("codebase_investigator", "'codebase_investigator'"),
	})
	// Anywhere in the prompt, several, in the order named.
	wantParts(t, expandAgents(t, ws, "ask @cli_help, then (@codebase_investigator)", agents), []string{
		"ask @cli_help, then (@codebase_investigator)",
		note("cli_help, codebase_investigator", "'cli_help', 'codebase_investigator'"),
	})
	// Without a workspace too.
	wantParts(t, expandAgents(t, nil, "@cli_help how do I set the model?", agents), []string{
		"@cli_help how do I set the model?",
		note("cli_help", "'cli_help'"),
	})
}

// With files referenced too, the note comes between the prompt and the
// files' content; the agent's @name is not read as a path.
func TestAtAgentWithFiles(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"a.go": "package a\n"})
	wantParts(t, expandAgents(t, ws, "@cli_help explain @a.go", testAgents("cli_help")), []string{
		"@cli_help explain @a.go",
		note("cli_help", "'cli_help'"),
		"\n--- Content from referenced files ---",
		"\nContent from @a.go:\n", "package a",
		"\n--- End of content ---",
	})
	// A file that could not be read is still listed, after the note.
	ws, _, _ = refWorkspace(t, map[string]string{".gitignore": "secret.env\n", "secret.env": "TOKEN=x\n"})
	wantParts(t, expandAgents(t, ws, "@cli_help read @secret.env", testAgents("cli_help")), []string{
		"@cli_help read @secret.env",
		note("cli_help", "'cli_help'"),
		"\nSkipped 1 item(s):\n- @secret.env (Reason: ignored by .gitignore or .geminiignore)",
	})
}

// An agent wins over a path of the same name, as 0.61 checks the agents
// first: the file is not read.
func TestAtAgentBeforePath(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"helper": "a file\n", "helper.go": "package helper\n"})
	wantParts(t, expandAgents(t, ws, "@helper go", testAgents("helper")), []string{
		"@helper go",
		note("helper", "'helper'"),
	})
}

// A name the catalogue does not have enabled (unknown, disabled, another
// case) is a path as ever; an address is no reference at all.
func TestAtAgentOnlyEnabledNames(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"notes.md": "notes\n"})
	agents := testAgents("cli_help")
	wantParts(t, expandAgents(t, ws, "@notes.md and @CLI_HELP", agents), []string{
		"@notes.md and @CLI_HELP",
		"\n--- Content from referenced files ---",
		"\nContent from @notes.md:\n", "notes",
		skippedNote([]tools.SkippedFile{{Path: "@CLI_HELP", Reason: notFoundReason}}),
		"\n--- End of content ---",
	})
	wantParts(t, expandAgents(t, ws, "mail someone@cli_help", agents), []string{"mail someone@cli_help"})
	// A path that leads nowhere goes as typed, the model told it was not
	// attached.
	wantParts(t, expandAgents(t, ws, "  @nobody here  ", agents), []string{"  @nobody here  ", skippedNote([]tools.SkippedFile{{Path: "@nobody", Reason: notFoundReason}})})
	wantParts(t, expandAgents(t, ws, "  @cli_help  ", nil), []string{"  @cli_help  ", skippedNote([]tools.SkippedFile{{Path: "@cli_help", Reason: notFoundReason}})})
}
