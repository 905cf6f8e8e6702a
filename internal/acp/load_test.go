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

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

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
			loc := l.Path
			if l.Line != nil {
				loc += fmt.Sprintf(":%d", *l.Line)
			}
			locs = append(locs, loc)
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

// A replayed exchange shows its prompt as a user message, then its turn
// through the live translation: text as the agent's message, a call as a
// pending tool_call with its title, kind and locations, its result as the
// tool_call_update that ends it.
func TestReplayUpdatesTranslateTheSharedReplay(t *testing.T) {
	ctx, main := t.Context(), dialog.Subagent{}
	r := &replayed{}
	r.out = appendPrompt(r.out, "What is in @a.go?", conversation.Done)
	r.Show(ctx, main, dialog.TextEvent{Text: "Let me look."})
	r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "c1", Name: "read_file", Title: "a.go", Kind: dialog.KindRead, Args: map[string]any{"file_path": "a.go", "start_line": 3.0}, Path: "/w/a.go", Line: 3}})
	r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "c1", Name: "read_file", Status: dialog.StatusOK, Display: "package a"}})
	r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "c2", Name: "run_shell_command", Title: "false", Kind: dialog.KindExecute}})
	r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "c2", Name: "run_shell_command", Status: dialog.StatusError, Display: "declined"}})
	r.Show(ctx, main, dialog.TextEvent{Text: "It is package a."})
	checkUpdates(t, r.out,
		"user: What is in @a.go?",
		"agent: Let me look.",
		`tool_call c1 "a.go" read pending [/w/a.go:3]`,
		`tool_call_update c1 completed "package a"`,
		`tool_call c2 "false" execute pending []`,
		`tool_call_update c2 failed "declined"`,
		"agent: It is package a.",
	)
}

// A prompt that got no answer is shown as a message of its own: a note on
// how it ended keeps it from running into the next prompt, as clients
// join consecutive user_message_chunks.
func TestReplayKeepsAnUnansweredPromptApart(t *testing.T) {
	exchanges := []conversation.Exchange{
		{Prompt: "first", Ending: conversation.Cancelled},
		{Prompt: "second", Ending: conversation.Failed},
		{Prompt: "third", Ending: conversation.Done},
	}
	checkUpdates(t, replayUpdates(t.Context(), exchanges),
		"user: first", "agent: (Cancelled.)", "user: second", "agent: (No answer.)", "user: third")
}

// listServer is a server whose store is under home, with n sessions of
// root saved there, one a minute.
func listServer(t *testing.T, home, root string, n int) *server {
	t.Helper()
	env := platformtest.HomeVars(map[string]string{}, home)
	getenv := func(k string) string { return env[k] }
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
	return newServer(context.Background(), Options{Getenv: getenv})
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
	s := newServer(context.Background(), Options{Getenv: func(string) string { return "" }})
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
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "test-key", "GEMINI_CLI_TRUST_WORKSPACE": "true",
		"GEMINI_MODEL": "gemini-2.5-pro"}, home)
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
	if _, err := c.Conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: id, ConfigId: "model", Value: "gemini-3-flash-preview"}}); err != nil {
		t.Fatal(err)
	}
	prompt("/stats")
	if msg := c.MessageText(id); !strings.Contains(msg, "- Model: gemini-3-flash-preview") || !strings.Contains(msg, "- Approval mode: yolo") || !strings.Contains(msg, "- Prompts: 1") {
		t.Errorf("/stats said %q", msg)
	}
	before := len(c.Updates())
	loaded, err := c.Conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// The session loaded is built anew: the model is the settings' again,
	// and the mode the one the session chose, which was saved with it.
	if loaded.Modes.CurrentModeId != "yolo" {
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
