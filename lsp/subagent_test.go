package lsp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/tools"
)

// subagentTurn is a turn whose invoke_agent call (call_1) runs
// codebase_investigator, which reads a file and says something before
// its report comes back as the call's result.
func subagentTurn() []dialog.Event {
	sub := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	return []dialog.Event{
		{Kind: dialog.EventText, Text: "Let me delegate.\n"},
		{Kind: dialog.EventToolCall, ToolCall: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Title: "Delegate to codebase_investigator"}},
		{Kind: dialog.EventThought, Subagent: sub, Thought: dialog.Thought{Subject: "Looking", Description: "at foo.go"}},
		{Kind: dialog.EventToolCall, Subagent: sub, ToolCall: dialog.ToolCall{CallID: "call_1", Name: "read_file", Title: "ReadFile foo.go", Args: map[string]any{"file_path": "foo.go"}}},
		{Kind: dialog.EventToolResult, Subagent: sub, ToolResult: dialog.ToolResult{CallID: "call_1", Name: "read_file", Status: tools.StatusOK}},
		{Kind: dialog.EventText, Subagent: sub, Text: "foo.go holds the parser.\n"},
		{Kind: dialog.EventToolCall, Subagent: sub, ToolCall: dialog.ToolCall{CallID: "call_2", Name: "grep_search", Title: "SearchText 'parse'"}},
		{Kind: dialog.EventToolResult, Subagent: sub, ToolResult: dialog.ToolResult{CallID: "call_2", Name: "grep_search", Status: tools.StatusError, Display: "bad pattern"}},
		{Kind: dialog.EventUsage, Subagent: sub, Usage: dialog.Usage{TotalTokens: 9}},
		{Kind: dialog.EventToolResult, ToolResult: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: tools.StatusOK, Display: "The parser is in foo.go."}},
		{Kind: dialog.EventText, Text: "Found it.\n"},
	}
}

// A subagent's gemini/update names its invoke_agent call and the agent;
// the main agent's names neither.
func TestSubagentUpdatesNameTheirCall(t *testing.T) {
	for _, e := range subagentTurn() {
		b, err := json.Marshal(updateFor("s", e))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if e.Subagent.CallID == "" {
			if _, ok := got["parentCallId"]; ok {
				t.Errorf("the main agent's update %s names a parent call", b)
			}
			if _, ok := got["agentName"]; ok {
				t.Errorf("the main agent's update %s names an agent", b)
			}
			continue
		}
		if got["parentCallId"] != "call_1" || got["agentName"] != "codebase_investigator" {
			t.Errorf("the subagent's update %s does not name call_1 and codebase_investigator", b)
		}
	}
}

// A stock client sees a subagent's calls in $/progress, named by the
// agent; the subagent's text is not shown as the answer's lines.
func TestProgressShowsSubagentCalls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	s := &Server{log: zap.NewNop(), life: ctx}
	serverEnd, editorEnd := jsonrpc2.NewChannelStreamPair(64)
	s.conn = jsonrpc2.NewConn(serverEnd)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	editor := jsonrpc2.NewConn(editorEnd)
	var mu sync.Mutex
	var reports []string
	editor.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		var p struct {
			Value struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"value"`
		}
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			mu.Lock()
			reports = append(reports, p.Value.Kind+": "+p.Value.Message)
			mu.Unlock()
		}
		return nil, nil
	})
	t.Cleanup(func() { _ = s.conn.Close(); _ = editor.Close() })

	p := &progress{s: s, token: "t"}
	for _, e := range subagentTurn() {
		p.event(e)
	}
	p.end("Gemini: Found it.")
	want := []string{
		"report: Let me delegate.",
		"report: Delegate to codebase_investigator",
		"report: codebase_investigator: ReadFile foo.go",
		"report: codebase_investigator: SearchText 'parse'",
		"report: Found it.",
		"end: Gemini: Found it.",
	}
	for {
		mu.Lock()
		got := slices.Clone(reports)
		mu.Unlock()
		if len(got) >= len(want) {
			if !slices.Equal(got, want) {
				t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("progress so far:\n%s", strings.Join(got, "\n"))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// The transcript lists a subagent's calls indented under its
// invoke_agent call, and leaves the subagent's text out of the answer.
func TestTranscriptNestsSubagentCalls(t *testing.T) {
	tr := &transcript{}
	for _, e := range subagentTurn() {
		tr.event(e)
	}
	want := "Let me delegate.\n\n" +
		"- **Delegate to codebase_investigator** — ok\n" +
		"  - codebase_investigator: **ReadFile foo.go** — ok\n" +
		"  - codebase_investigator: **SearchText 'parse'** — error\n" +
		"\nFound it.\n"
	if got := tr.b.String(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// Subagents running at once number their calls each their own way: the
// transcript keeps each call's title under its own invoke_agent call.
func TestTranscriptKeepsConcurrentSubagentsApart(t *testing.T) {
	a := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	b := dialog.Subagent{CallID: "call_2", Name: "cli_help"}
	tr := &transcript{}
	for _, e := range []dialog.Event{
		{Kind: dialog.EventToolCall, ToolCall: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Title: "Delegate to codebase_investigator"}},
		{Kind: dialog.EventToolCall, Subagent: a, ToolCall: dialog.ToolCall{CallID: "call_1", Name: "read_file", Title: "ReadFile a.go"}},
		{Kind: dialog.EventToolCall, Subagent: b, ToolCall: dialog.ToolCall{CallID: "call_1", Name: "get_internal_docs", Title: "GetInternalDocs"}},
		{Kind: dialog.EventToolResult, Subagent: a, ToolResult: dialog.ToolResult{CallID: "call_1", Name: "read_file", Status: tools.StatusOK}},
		{Kind: dialog.EventToolResult, Subagent: b, ToolResult: dialog.ToolResult{CallID: "call_1", Name: "get_internal_docs", Status: tools.StatusOK}},
		{Kind: dialog.EventToolResult, ToolResult: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: tools.StatusOK}},
	} {
		tr.event(e)
	}
	want := "- **Delegate to codebase_investigator** — ok\n  - codebase_investigator: **ReadFile a.go** — ok\n\n"
	if got := tr.b.String(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
	if got, want := tr.nested["call_2"], []string{"  - cli_help: **GetInternalDocs** — ok\n"}; !slices.Equal(got, want) {
		t.Errorf("cli_help's calls %q, want %q", got, want)
	}
}
