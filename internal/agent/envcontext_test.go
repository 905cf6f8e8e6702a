package agent_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// contextConfig is an agent's config with the session context on, its
// clock at now, its temporary directory tmp, its tools over a workspace
// holding a.txt (the root returned).
func contextConfig(t *testing.T, now *time.Time, tmp string) (agent.Config, string) {
	t.Helper()
	reg, ws, root := realTools(t)
	return agent.Config{
		Tools: reg, Workspace: ws, SessionContext: true, DirectoryTree: true,
		Now:            func() time.Time { return *now },
		ProjectTempDir: func() (string, error) { return tmp, nil },
	}, root
}

// A main session's first user content begins with Gemini CLI 0.61's
// <session_context>, in its words and layout (the date, the system, the
// project's temporary directory, the workspace drawn), then the prompt,
// as 0.61 joins them. The context is the session's from its first
// request on: a later prompt, a day later, sends the same first content.
func TestSessionContextBeginsTheFirstUserContent(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	tmp := filepath.Join(t.TempDir(), "tmp", "project")
	cfg, root := contextConfig(t, &now, tmp)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	a, _ := newAgent(t, srv, cfg)
	s := a.NewSession()
	prompt(t, s, "first")
	now = now.Add(24 * time.Hour)
	prompt(t, s, "second")

	reqs := srv.Requests()
	first := reqs[0].Contents
	if len(first) != 1 || len(first[0].Parts) != 2 || first[0].Parts[1].Text != "first" {
		t.Fatalf("the first request: %s", toJSON(first))
	}
	platform := runtime.GOOS
	if platform == "windows" {
		platform = "win32"
	}
	want := "<session_context>\nThis is gemini-ls. We are setting up the context for our chat.\n" +
		"Today's date is Saturday, November 28, 2026.\n" +
		"My operating system is: " + platform + "\n" +
		"The project's temporary directory is: " + tmp + "\n" +
		"- **Workspace Directories:**\n  - " + root + "\n" +
		"- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n" + root + string(filepath.Separator) + "\n└───a.txt" +
		"\n\n\n</session_context>"
	if got := first[0].Parts[0].Text; got != want {
		t.Errorf("the session context:\n%q\nwant\n%q", got, want)
	}
	second := reqs[1].Contents
	if len(second) != 3 || toJSON(second[0]) != toJSON(first[0]) || second[2].Parts[0].Text != "second" {
		t.Errorf("the second prompt's request does not begin as the first's: %s", toJSON(second))
	}
	// The history, and so the saved session, holds the prompts alone.
	history, err := s.History()
	if err != nil || len(history) != 4 || history[0].Parts[0].Text != "first" {
		t.Errorf("history %s, %v", toJSON(history), err)
	}
}

// Cleared, a session begins a new chat with a context of its own (today's
// date); without DirectoryTree the workspace is not drawn; without
// SessionContext nothing comes before the prompt.
func TestSessionContextAfterClearAndOff(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.Local)
	cfg, root := contextConfig(t, &now, t.TempDir())
	cfg.DirectoryTree = false
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	a, _ := newAgent(t, srv, cfg)
	s := a.NewSession()
	prompt(t, s, "first")
	if err := s.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	now = now.Add(24 * time.Hour)
	prompt(t, s, "again")
	got := srv.Requests()[1].Contents
	if len(got) != 1 || !strings.Contains(got[0].Parts[0].Text, "Today's date is Sunday, November 29, 2026.") {
		t.Errorf("after Clear: %s", toJSON(got))
	}
	if text := got[0].Parts[0].Text; strings.Contains(text, root) || strings.Contains(text, "Directory Structure") {
		t.Errorf("the workspace was drawn without DirectoryTree:\n%s", text)
	}

	cfg.SessionContext = false
	srv = geminitest.NewTestServer(t, geminitest.TextTurn("one"))
	a, _ = newAgent(t, srv, cfg)
	prompt(t, a.NewSession(), "plain")
	if c := srv.Requests()[0].Contents; len(c) != 1 || len(c[0].Parts) != 1 || c[0].Parts[0].Text != "plain" {
		t.Errorf("without a session context: %s", toJSON(c))
	}
}

// A subagent gets its environment in its system instruction, as in 0.61,
// not a session context: its first request is its task alone.
func TestSubagentHasNoSessionContext(t *testing.T) {
	now := time.Now()
	cfg, _ := contextConfig(t, &now, t.TempDir())
	cfg.Agents = catalog{investigator()}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(invoke("inv1", "investigator", "where is alpha")),
		geminitest.CallTurn(call("c1", tools.CompleteTaskName, map[string]any{"result": "in a.txt"})),
		geminitest.TextTurn("done"),
	)
	a, _ := newAgent(t, srv, cfg)
	prompt(t, a.NewSession(), "find alpha")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.HasPrefix(reqs[0].Contents[0].Parts[0].Text, "<session_context>") {
		t.Errorf("the main agent's request: %s", toJSON(reqs[0].Contents))
	}
	if sub := reqs[1].Contents; len(sub) != 1 || len(sub[0].Parts) != 1 || sub[0].Parts[0].Text != "Investigate: where is alpha" {
		t.Errorf("the subagent's first request: %s", toJSON(sub))
	}
}

// The last chunk of a stream that holds only an empty text is not kept:
// the model's turn goes back as it came, without an empty part ({}),
// as 0.61 sends it; an empty text that carries a thought signature is
// kept for the signature (here on the text before it).
func TestEmptyTextPartIsNotSentBack(t *testing.T) {
	reg, ws, root := realTools(t)
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Call: call("r1", tools.ReadFileName, map[string]any{"file_path": filepath.Join(root, "a.txt")})},
			{Text: ""},
		}},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "It says alpha."}, {Text: "", ThoughtSignature: []byte("sig")}}},
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: reg, Workspace: ws})
	s := a.NewSession()
	prompt(t, s, "read a.txt")
	prompt(t, s, "thanks")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if model := reqs[1].Contents[1]; len(model.Parts) != 1 || model.Parts[0].FunctionCall == nil {
		t.Errorf("the model's call went back as %s", toJSON(model))
	}
	if model := reqs[2].Contents[3]; len(model.Parts) != 1 || model.Parts[0].Text != "It says alpha." || string(model.Parts[0].ThoughtSignature) != "sig" {
		t.Errorf("the model's answer went back as %s", toJSON(model))
	}
}
