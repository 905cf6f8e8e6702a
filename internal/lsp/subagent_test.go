package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// subagentTurn shows through v a turn whose invoke_agent call (call_1)
// runs codebase_investigator, which reads a file and says something
// before its report comes back as the call's result.
func subagentTurn(ctx context.Context, v interface {
	Show(context.Context, dialog.Subagent, dialog.Event)
}) {
	main, sub := dialog.Subagent{}, dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	v.Show(ctx, main, dialog.TextEvent{Text: "Let me delegate.\n"})
	v.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Kind: dialog.KindAgent, Title: "Delegate to codebase_investigator"}})
	v.Show(ctx, sub, dialog.ThoughtEvent{Thought: dialog.Thought{Subject: "Looking", Description: "at foo.go"}})
	v.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "read_file", Title: "ReadFile foo.go", Args: map[string]any{"file_path": "foo.go"}}})
	v.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "read_file", Status: dialog.StatusOK}})
	v.Show(ctx, sub, dialog.TextEvent{Text: "foo.go holds the parser.\n"})
	v.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_2", Name: "grep_search", Title: "SearchText 'parse'"}})
	v.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_2", Name: "grep_search", Status: dialog.StatusError, Display: "bad pattern"}})
	v.Show(ctx, sub, dialog.UsageEvent{Usage: dialog.UsageReport{Response: dialog.Usage{TotalTokens: 9}}})
	v.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: dialog.StatusOK, Display: "The parser is in foo.go."}})
	v.Show(ctx, main, dialog.TextEvent{Text: "Found it.\n"})
}

// A subagent's gemini/update names its invoke_agent call and the agent;
// the main agent's names neither.
func TestSubagentUpdatesNameTheirCall(t *testing.T) {
	var got []string
	subagentTurn(t.Context(), updates{"s", func(u update) {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		parent, hasParent := fields["parentCallId"]
		agent, hasAgent := fields["agentName"]
		if hasParent != hasAgent {
			t.Errorf("update %s names a parent call or an agent without the other", b)
		}
		got = append(got, fmt.Sprintf("%s %v %v", u.kind(), parent, agent))
	}, nil})
	want := []string{
		"text <nil> <nil>",
		"toolCall <nil> <nil>",
		"thought call_1 codebase_investigator",
		"toolCall call_1 codebase_investigator",
		"toolResult call_1 codebase_investigator",
		"text call_1 codebase_investigator",
		"toolCall call_1 codebase_investigator",
		"toolResult call_1 codebase_investigator",
		"usage call_1 codebase_investigator",
		"toolResult <nil> <nil>",
		"text <nil> <nil>",
	}
	if !slices.Equal(got, want) {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
	subagentTurn(ctx, commandView{presenter: presenter{s}, tr: &transcript{}, prog: p})
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
// invoke_agent call, each by its title, then the subagent's report, and
// leaves the subagent's text out of the answer.
func TestTranscriptNestsSubagentCalls(t *testing.T) {
	tr := &transcript{}
	subagentTurn(t.Context(), commandView{presenter: presenter{&Server{}}, tr: tr, prog: &progress{}})
	want := "Let me delegate.\n\n" +
		"- **Delegate to codebase_investigator** — ok\n" +
		"  - **ReadFile foo.go** — ok\n" +
		"  - **SearchText 'parse'** — error\n" +
		"\n  The parser is in foo.go.\n" +
		"\nFound it.\n"
	if got := tr.render(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// Subagents running at once number their calls each their own way, and
// calls run at once end in any order: the transcript keeps each call's
// line whole, in the order of the calls, each subagent's calls under its
// own invoke_agent call.
func TestTranscriptKeepsConcurrentCallsApart(t *testing.T) {
	main := dialog.Subagent{}
	a := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	b := dialog.Subagent{CallID: "call_2", Name: "cli_help"}
	tr := &transcript{}
	tr.toolCall(main, dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Kind: dialog.KindAgent, Title: "Delegating to agent 'codebase_investigator'"})
	tr.toolCall(main, dialog.ToolCall{CallID: "call_2", Name: "invoke_agent", Kind: dialog.KindAgent, Title: "Delegating to agent 'cli_help'"})
	tr.toolCall(a, dialog.ToolCall{CallID: "call_1", Name: "read_file", Title: "ReadFile a.go"})
	tr.toolCall(b, dialog.ToolCall{CallID: "call_1", Name: "get_internal_docs", Title: "GetInternalDocs"})
	tr.toolResult(a, dialog.ToolResult{CallID: "call_1", Name: "read_file", Status: dialog.StatusOK})
	tr.toolResult(b, dialog.ToolResult{CallID: "call_1", Name: "get_internal_docs", Status: dialog.StatusOK})
	tr.toolResult(main, dialog.ToolResult{CallID: "call_2", Name: "invoke_agent", Status: dialog.StatusOK, Display: "Read the docs."})
	tr.toolResult(main, dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: dialog.StatusError})
	want := "- **Delegating to agent 'codebase_investigator'** — error\n  - **ReadFile a.go** — ok\n\n" +
		"- **Delegating to agent 'cli_help'** — ok\n  - **GetInternalDocs** — ok\n\n  Read the docs.\n\n"
	if got := tr.render(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}
