package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/acp/acptest"
	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/agent/sessionstore"
)

// describeFake titles a call by its tool and path, and reads and shells
// by kind.
func describeFake(name string, args map[string]any) (string, sdk.ToolKind) {
	kind := sdk.ToolKindOther
	switch name {
	case "read_file":
		kind = sdk.ToolKindRead
	case "run_shell_command":
		kind = sdk.ToolKindExecute
	}
	return fmt.Sprintf("%s %v", name, args["file_path"]), kind
}

// show is one update in a line, for comparing.
func show(u sdk.SessionUpdate) string {
	switch {
	case u.UserMessageChunk != nil:
		return "user: " + u.UserMessageChunk.Content.Text.Text
	case u.AgentMessageChunk != nil:
		return "agent: " + u.AgentMessageChunk.Content.Text.Text
	case u.ToolCall != nil:
		c := u.ToolCall
		var locs []string
		for _, l := range c.Locations {
			locs = append(locs, l.Path)
		}
		return fmt.Sprintf("tool_call %s %q %s %s %v", c.ToolCallId, c.Title, c.Kind, c.Status, locs)
	case u.ToolCallUpdate != nil:
		c := u.ToolCallUpdate
		text := ""
		for _, content := range c.Content {
			text += content.Content.Content.Text.Text
		}
		return fmt.Sprintf("tool_call_update %s %s %q", c.ToolCallId, *c.Status, text)
	}
	b, _ := json.Marshal(u)
	return string(b)
}

func user(parts ...*genai.Part) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: parts}
}

func model(parts ...*genai.Part) *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: parts}
}

func callPart(id, name string, args map[string]any) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: args}}
}

func responsePart(id, name string, response map[string]any) *genai.Part {
	return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: name, Response: response}}
}

func checkUpdates(t *testing.T, got []sdk.SessionUpdate, want ...string) {
	t.Helper()
	var lines []string
	for _, u := range got {
		lines = append(lines, show(u))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// The prompts are shown as typed (the transcript's text, not the files
// and editor state the model was sent), the model's text as it said it,
// each call with its tool's title and kind and then its result; the
// thought signatures the history keeps show nothing.
func TestReplayShowsPromptsTextAndCalls(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("[editor state]"), genai.NewPartFromText("What is in @a.go?"), genai.NewPartFromText("--- a.go ---\npackage a")),
		model(&genai.Part{ThoughtSignature: []byte("sig")}, genai.NewPartFromText("Let me look."),
			callPart("c1", "read_file", map[string]any{"file_path": "a.go"}),
			callPart("c2", "run_shell_command", map[string]any{"command": "false"})),
		user(responsePart("c1", "read_file", map[string]any{"output": "package a"}),
			responsePart("c2", "run_shell_command", map[string]any{"error": "The user declined to run this command."})),
		model(genai.NewPartFromText("It is package a.")),
		user(genai.NewPartFromText("Thanks")),
		model(), // an empty answer, recorded
	}
	exchanges := []agent.Exchange{
		{Prompt: "What is in @a.go?", Answer: "Let me look.\n\nIt is package a.", StopReason: agent.StopEndTurn},
		{Prompt: "Thanks", StopReason: agent.StopError},
	}
	checkUpdates(t, replayUpdates(history, exchanges, "/w", describeFake),
		"user: What is in @a.go?",
		"agent: Let me look.",
		`tool_call c1 "read_file a.go" read completed [/w/a.go]`,
		`tool_call_update c1 completed "package a"`,
		`tool_call c2 "run_shell_command <nil>" execute failed []`,
		`tool_call_update c2 failed "The user declined to run this command."`,
		"agent: It is package a.",
		"user: Thanks",
	)
}

// After a compression the history starts with the summary: the exchanges
// it summarised are shown from the transcript, the summary not at all.
func TestReplayAfterACompression(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("<state_snapshot>all of it</state_snapshot>")),
		model(genai.NewPartFromText("Got it. Thanks for the additional context!")),
		user(genai.NewPartFromText("third")),
		model(genai.NewPartFromText("third answer")),
	}
	exchanges := []agent.Exchange{{Prompt: "first", Answer: "first answer"}, {Prompt: "second", StopReason: agent.StopError}, {Prompt: "third", Answer: "third answer"}}
	checkUpdates(t, replayUpdates(history, exchanges, "/w", describeFake),
		"user: first", "agent: first answer", "user: second", "agent: (No answer.)", "user: third", "agent: third answer")
}

// A prompt cancelled before the model said anything is shown as a message
// of its own: a note on how it ended keeps it from running into the next
// prompt, as clients join consecutive user_message_chunks.
func TestReplayKeepsACancelledPromptApart(t *testing.T) {
	history := []*genai.Content{
		user(genai.NewPartFromText("first")),
		user(genai.NewPartFromText("second")),
		model(genai.NewPartFromText("second answer")),
	}
	exchanges := []agent.Exchange{{Prompt: "first", StopReason: agent.StopCancelled}, {Prompt: "second", Answer: "second answer", StopReason: agent.StopEndTurn}}
	checkUpdates(t, replayUpdates(history, exchanges, "/w", describeFake),
		"user: first", "agent: (Cancelled.)", "user: second", "agent: second answer")
}

// A history with prompts the transcript lacks shows their text; a call
// with no response failed; a long result is cut.
func TestReplayWithoutTranscriptAndLongResults(t *testing.T) {
	long := strings.Repeat("é", maxReplayedOutput)
	history := []*genai.Content{
		user(genai.NewPartFromText("old prompt")),
		model(callPart("c1", "read_file", map[string]any{"file_path": "/abs/b.go"})),
		user(responsePart("c1", "read_file", map[string]any{"output": long})),
		model(callPart("c2", "other", map[string]any{"x": []any{1.0}})),
	}
	got := replayUpdates(history, nil, "/w", describeFake)
	if len(got) != 4 {
		t.Fatalf("%d updates", len(got))
	}
	if show(got[0]) != "user: old prompt" || show(got[1]) != `tool_call c1 "read_file /abs/b.go" read completed [/abs/b.go]` {
		t.Errorf("updates %q, %q", show(got[0]), show(got[1]))
	}
	text := got[2].ToolCallUpdate.Content[0].Content.Content.Text.Text
	if !strings.HasSuffix(text, "\n…") || len(text) > maxReplayedOutput+len("\n…") || !strings.HasPrefix(text, "éé") || strings.ContainsRune(text, '\uFFFD') {
		t.Errorf("long result cut to %d bytes: %.20q…%q", len(text), text, text[len(text)-8:])
	}
	// A call without a response failed, and has no result to show.
	if show(got[3]) != `tool_call c2 "other <nil>" other failed []` {
		t.Errorf("a call without a response: %q", show(got[3]))
	}
}

func TestResultText(t *testing.T) {
	for _, c := range []struct {
		response map[string]any
		want     string
	}{
		{map[string]any{"output": "ok"}, "ok"},
		{map[string]any{"error": "no"}, "no"},
		{map[string]any{"output": map[string]any{"a": 1.0}}, `{"a":1}`},
		{map[string]any{}, ""},
	} {
		if got := resultText(c.response); got != c.want {
			t.Errorf("resultText(%v) = %q, want %q", c.response, got, c.want)
		}
	}
}

// listServer is a server whose store is under home, with n sessions of
// root saved there, one a minute.
func listServer(t *testing.T, home, root string, n int) *server {
	t.Helper()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	store, err := sessionstore.New(sessionstore.DefaultDir(getenv), nil)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute)
		meta := sessionstore.Meta{ID: fmt.Sprintf("s%03d", i), Root: root, Title: fmt.Sprintf("prompt %d", i), Created: at, Updated: at, Prompts: 1}
		if err := store.Append(context.Background(), sessionstore.Turn{Meta: meta, Exchange: &sessionstore.Exchange{Prompt: meta.Title}}); err != nil {
			t.Fatal(err)
		}
	}
	return &server{opts: Options{Getenv: getenv}, log: zap.NewNop()}
}

// session/list pages through every session, newest first, 50 at a time,
// and filters by cwd.
func TestListSessionsPages(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	s := listServer(t, home, root, 120)
	var ids []string
	var cursor *string
	pages := 0
	for {
		res, err := s.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &root, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(res.Sessions) > listPageSize {
			t.Fatalf("page of %d", len(res.Sessions))
		}
		for _, info := range res.Sessions {
			ids = append(ids, string(info.SessionId))
			if info.Cwd != root || info.Title == nil || info.UpdatedAt == nil {
				t.Fatalf("session %+v", info)
			}
		}
		if res.NextCursor == nil {
			break
		}
		cursor = res.NextCursor
	}
	if pages != 3 || len(ids) != 120 || ids[0] != "s119" || ids[119] != "s000" {
		t.Fatalf("%d pages, %d sessions, first %s", pages, len(ids), ids[0])
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			t.Fatalf("not newest first at %d: %s after %s", i, ids[i], ids[i-1])
		}
	}
	first, _ := s.ListSessions(context.Background(), sdk.ListSessionsRequest{})
	if len(first.Sessions) != listPageSize || *first.Sessions[0].UpdatedAt != "2026-01-02T05:03:05Z" || *first.Sessions[0].Title != "prompt 119" {
		t.Errorf("first page without cwd: %d sessions, first %+v", len(first.Sessions), first.Sessions[0])
	}
	other := filepath.Join(t.TempDir(), "elsewhere")
	if res, err := s.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &other}); err != nil || len(res.Sessions) != 0 || res.NextCursor != nil {
		t.Errorf("another cwd: %+v, %v", res, err)
	}
	for _, bad := range []string{"nonsense", listCursor{}.String()} {
		if _, err := s.ListSessions(context.Background(), sdk.ListSessionsRequest{Cursor: &bad}); err == nil || !strings.Contains(err.Error(), "-32602") {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	rel := "relative"
	if _, err := s.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &rel}); err == nil {
		t.Error("a relative cwd was listed")
	}
}

// Without HOME nothing is saved, so nothing is listed.
func TestListSessionsWithoutAStore(t *testing.T) {
	s := &server{opts: Options{Getenv: func(string) string { return "" }}, log: zap.NewNop()}
	res, err := s.ListSessions(context.Background(), sdk.ListSessionsRequest{})
	if err != nil || res.Sessions == nil || len(res.Sessions) != 0 {
		t.Errorf("ListSessions = %+v, %v", res, err)
	}
}

// The server in this process (so the race detector sees it): a session
// made, prompted, its mode and model set, a command run and the session
// loaded again, while the commands are announced in the background.
func TestSessionLifeInProcess(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("Hello."), geminitest.TextTurn("Again."))
	home, root := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "test-key", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, serverIn, serverOut, Options{Getenv: func(k string) string { return env[k] }, Version: "test"})
	}()
	c := acptest.New(t, clientOut, clientIn, acptest.Config{})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionId
	prompt := func(text string) {
		t.Helper()
		if r, err := c.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v, %v", text, r, err)
		}
	}
	prompt("hi")
	if _, err := c.Conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "model", Value: "gemini-2.5-flash"}}); err != nil {
		t.Fatal(err)
	}
	prompt("/stats")
	if msg := c.MessageText(id); !strings.Contains(msg, "- Model: gemini-2.5-flash") || !strings.Contains(msg, "- Approval mode: yolo") || !strings.Contains(msg, "- Prompts: 1") {
		t.Errorf("/stats said %q", msg)
	}
	before := len(c.Updates())
	loaded, err := c.Conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// The session loaded is built anew: the mode and model are the settings' again.
	if loaded.Modes.CurrentModeId != "default" {
		t.Errorf("the loaded session's mode: %s", loaded.Modes.CurrentModeId)
	}
	prompt("again")
	// (The first session's may never come: a session replaced before its
	// announcement is not announced.)
	c.Wait(ctx, "the commands of the loaded session", func(c *acptest.Client) bool {
		return slices.ContainsFunc(c.Updates()[before:], func(u sdk.SessionNotification) bool { return u.Update.AvailableCommandsUpdate != nil })
	})
	_ = clientOut.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
