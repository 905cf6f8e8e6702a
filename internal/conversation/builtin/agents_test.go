package builtin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// fakeAgents is a catalogue: List answers from all; Enable and Disable
// answer text or failWith and record the names they were given; Reload
// makes next the catalogue, if set, and reports problems;
// CredentialWithheld answers from withheld, by name.
type fakeAgents struct {
	all      []subagents.Entry
	next     []subagents.Entry
	problems []error
	text     string
	failWith error
	calls    []string
	withheld map[string]string
}

func (f *fakeAgents) CredentialWithheld(def subagents.Definition) string { return f.withheld[def.Name] }

func (f *fakeAgents) List() []subagents.Entry { return f.all }

func (f *fakeAgents) Enable(_ context.Context, name string) (string, error) {
	f.calls = append(f.calls, "enable "+name)
	return f.text, f.failWith
}

func (f *fakeAgents) Disable(_ context.Context, name string) (string, error) {
	f.calls = append(f.calls, "disable "+name)
	return f.text, f.failWith
}

func (f *fakeAgents) Reload(context.Context) []error {
	f.calls = append(f.calls, "reload")
	if f.next != nil {
		f.all, f.next = f.next, nil
	}
	return f.problems
}

func entry(name, display, description string, kind subagents.Kind, source subagents.Source, path string, enabled bool) subagents.Entry {
	return subagents.Entry{Definition: subagents.Definition{Name: name, DisplayName: display, Description: description, Kind: kind, Source: source, Path: path}, Enabled: enabled, Acknowledged: true}
}

func someAgents() []subagents.Entry {
	ext := entry("lint_fixer", "", "Fixes lint.", subagents.Local, subagents.Extension, "/ext/agents/lint_fixer.md", true)
	ext.Definition.Extension = "linty"
	return []subagents.Entry{
		entry("codebase_investigator", "Codebase Investigator Agent", "The specialized tool for codebase analysis.\nUse it for deep questions.", subagents.Local, subagents.BuiltIn, "", true),
		entry("reviewer", "reviewer", "Reviews diffs.", subagents.Local, subagents.User, "/home/u/.gemini/agents/reviewer.md", true),
		entry("pay", "Payments", "Talks to the payments service.", subagents.Remote, subagents.Project, "/p/.gemini/agents/pay.md", true),
		ext,
		entry("cli_help", "CLI Help Agent", "Answers questions about the CLI.", subagents.Local, subagents.BuiltIn, "", false),
	}
}

// runAgents runs line, an /agents command, over the catalogue a.
func runAgents(t *testing.T, a builtin.Agents, line string) (string, error) {
	t.Helper()
	inv, ok := commands.Parse(line)
	if !ok {
		t.Fatalf("%q is not a command", line)
	}
	b, ok := builtin.Find(inv.Name)
	if !ok {
		t.Fatalf("%q names no built-in", line)
	}
	reply, err := b.Run(context.Background(), builtin.Env{Agents: a}, inv.Args)
	return reply.Text, err
}

// /agents, as /agents list, lists the local agents then the remote ones
// as 0.61 does, by display name with the name when it differs, with
// their descriptions; and says where each comes from, and lists the
// disabled ones last.
func TestAgentsList(t *testing.T) {
	f := &fakeAgents{all: someAgents()}
	want := "**Local Agents**\n\n" +
		"- **Codebase Investigator Agent** (codebase_investigator) — built-in\n" +
		"  The specialized tool for codebase analysis.\n  Use it for deep questions.\n" +
		"- **reviewer** — user, `/home/u/.gemini/agents/reviewer.md`\n  Reviews diffs.\n" +
		"- **lint_fixer** — extension linty, `/ext/agents/lint_fixer.md`\n  Fixes lint.\n\n" +
		"**Remote Agents**\n\n" +
		"- **Payments** (pay) — project, `/p/.gemini/agents/pay.md`\n  Talks to the payments service.\n\n" +
		"**Disabled Agents**\n\n" +
		"- **CLI Help Agent** (cli_help) — built-in\n  Answers questions about the CLI."
	for _, line := range []string{"/agents", "/agents list"} {
		got, err := runAgents(t, f, line)
		if err != nil || got != want {
			t.Errorf("%s = %v\n%s\nwant\n%s", line, err, got, want)
		}
	}
	if got, err := runAgents(t, &fakeAgents{}, "/agents list"); err != nil || got != "No agents available." {
		t.Errorf("no agents: %q, %v", got, err)
	}
	if _, err := runAgents(t, f, "/agents list all"); err == nil || !strings.Contains(err.Error(), "usage: /agents list") {
		t.Errorf("/agents list all: %v", err)
	}
	if _, err := runAgents(t, nil, "/agents"); err == nil || err.Error() != "Agent registry not found." {
		t.Errorf("without a catalogue: %v", err)
	}
	if _, err := runAgents(t, f, "/agents forget"); err == nil || !strings.Contains(err.Error(), "usage: /agents list | reload | enable <agent-name> | disable <agent-name> | config <agent-name>") {
		t.Errorf("/agents forget: %v", err)
	}
}

// /agents enable and disable hand the name to the catalogue, which
// writes the choice, finds the agents again and words the answer
// (agents/toggle_test.go holds its words to 0.61's); its answer and its
// error reach the user as they are, and a line without one name never
// reaches it.
func TestAgentsEnableDisable(t *testing.T) {
	for _, c := range []struct{ line, calls string }{
		{"/agents enable cli_help", "enable cli_help"},
		{"/agents disable reviewer", "disable reviewer"},
	} {
		f := &fakeAgents{all: someAgents(), text: "what the catalogue said"}
		got, err := runAgents(t, f, c.line)
		if err != nil || got != "what the catalogue said" || strings.Join(f.calls, ",") != c.calls {
			t.Errorf("%s = %q, %v; calls %v; want the catalogue's answer, calls %s", c.line, got, err, f.calls, c.calls)
		}
	}
	f := &fakeAgents{all: someAgents()}
	for line, want := range map[string]string{
		"/agents enable":      "usage: /agents enable <agent-name>",
		"/agents disable a b": "usage: /agents disable <agent-name>",
	} {
		if _, err := runAgents(t, f, line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	if len(f.calls) != 0 {
		t.Errorf("refused commands called the catalogue: %v", f.calls)
	}
	if _, err := runAgents(t, nil, "/agents enable reviewer"); err == nil || err.Error() != "Agent registry not found." {
		t.Errorf("without a catalogue: %v", err)
	}
	f = &fakeAgents{all: someAgents(), failWith: errors.New("Agent 'nobody' not found.")}
	if _, err := runAgents(t, f, "/agents disable nobody"); err == nil || err.Error() != "Agent 'nobody' not found." {
		t.Errorf("the catalogue's error: %v", err)
	}
}

// /agents reload (or refresh) says what changed among the enabled agents
// in 0.61's words: the total, local and remote, new, updated and deleted
// ones, and the errors, which gemini-ls lists.
func TestAgentsReload(t *testing.T) {
	before := someAgents()
	after := someAgents()
	after[1].Definition.Description = "Reviews diffs, harder." // reviewer updated
	after = append(after[:2], after[3:]...)                    // pay deleted
	after[3].Enabled = true                                    // cli_help now enabled: new
	after = append(after, entry("scout", "", "Scouts.", subagents.Remote, subagents.User, "/home/u/.gemini/agents/scout.md", true))
	f := &fakeAgents{all: before, next: after}
	got, err := runAgents(t, f, "/agents reload")
	want := "Agents reloaded successfully:\n- Total: 5 (4 local, 1 remote)\n- New: cli_help, scout\n- Updated: reviewer\n- Deleted: pay\n\nRun /agents list to see all available agents."
	if err != nil || got != want {
		t.Errorf("/agents reload = %v\n%s\nwant\n%s", err, got, want)
	}

	f = &fakeAgents{all: someAgents(), problems: []error{errors.New("/p/.gemini/agents/bad.md: no name")}}
	got, err = runAgents(t, f, "/agents refresh")
	want = "Agents reloaded with errors:\n- Total: 4 (3 local, 1 remote)\n- Errors: 1 encountered during reload\n  - /p/.gemini/agents/bad.md: no name\n\nRun /agents list to see all available agents."
	if err != nil || got != want {
		t.Errorf("/agents refresh = %v\n%s\nwant\n%s", err, got, want)
	}
}

// /agents config shows an agent's configuration, disabled ones too.
func TestAgentsConfig(t *testing.T) {
	all := someAgents()
	all[1].Definition.Model = "gemini-2.5-flash"
	all[1].Definition.Tools = []string{"read_file", "mcp_*"}
	all[1].Definition.MaxTurns = 7
	all[1].Definition.Timeout = 3 * time.Minute
	all[1].Definition.Input = subagents.InputParam{Name: "request"}
	all[2].Definition.CardURL = "https://pay.example/.well-known/agent-card.json"
	f := &fakeAgents{all: all}
	got, err := runAgents(t, f, "/agents config reviewer")
	want := "**reviewer**\n\nReviews diffs.\n\n- Enabled: yes\n- Kind: local\n- Source: user, `/home/u/.gemini/agents/reviewer.md`\n- Input: `request`\n" +
		"- Model: `gemini-2.5-flash`\n- Tools: `read_file`, `mcp_*`\n- Max turns: 7\n- Time limit: 3m0s"
	if err != nil || got != want {
		t.Errorf("/agents config reviewer = %v\n%s\nwant\n%s", err, got, want)
	}
	got, err = runAgents(t, f, "/agents config cli_help")
	if err != nil || !strings.Contains(got, "- Enabled: no\n") || !strings.Contains(got, "- Model: `inherit (the main agent's)`") || !strings.Contains(got, "- Tools: all of the main agent's but invoke_agent") {
		t.Errorf("/agents config cli_help = %v\n%s", err, got)
	}
	got, err = runAgents(t, f, "/agents config pay")
	if err != nil || !strings.Contains(got, "- Kind: remote\n") || !strings.Contains(got, "- Agent card: https://pay.example/.well-known/agent-card.json") || strings.Contains(got, "Model") {
		t.Errorf("/agents config pay = %v\n%s", err, got)
	}
	if _, err := runAgents(t, f, "/agents config nobody"); err == nil || err.Error() != "Agent 'nobody' not found." {
		t.Errorf("/agents config nobody: %v", err)
	}
}

// A remote agent whose credential is withheld (its card redirected to
// another origin) says so in /agents list and /agents config.
func TestAgentsSayTheCredentialIsWithheld(t *testing.T) {
	const note = "The credential is withheld: the agent card URL https://pay.example/card redirected to https://elsewhere.example/card, on another origin; set agent_card_url to that URL to trust it."
	f := &fakeAgents{all: someAgents(), withheld: map[string]string{"pay": note}}
	got, err := runAgents(t, f, "/agents list")
	if want := "- **Payments** (pay) — project, `/p/.gemini/agents/pay.md`\n  Talks to the payments service.\n  " + note + "\n\n"; err != nil || !strings.Contains(got, want) {
		t.Errorf("/agents list = %v\n%s\nwant in it\n%s", err, got, want)
	}
	got, err = runAgents(t, f, "/agents config pay")
	if want := "\n- Credential: " + note; err != nil || !strings.HasSuffix(got, want) {
		t.Errorf("/agents config pay = %v\n%s\nwant it to end\n%s", err, got, want)
	}
}
