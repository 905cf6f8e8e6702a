package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// subagentRun is a run whose invoke_agent call (call_1) runs
// codebase_investigator, which says something, reads a file and fails a
// search before its report comes back as the call's result.
func subagentRun(r *report) {
	ctx, main := context.Background(), dialog.Subagent{}
	sub := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	r.begin("s1", "gemini-test", "where is the parser?")
	r.Show(ctx, main, dialog.TextEvent{Text: "Let me look.\n"})
	r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Title: "Delegate to codebase_investigator"}})
	r.Show(ctx, sub, dialog.TextEvent{Text: "Reading foo.go."})
	r.Show(ctx, sub, dialog.ThoughtEvent{Thought: dialog.Thought{Subject: "Looking", Description: "at foo.go"}})
	r.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "sub_1", Name: "read_file", Title: "ReadFile foo.go", Args: map[string]any{"file_path": "foo.go"}}})
	r.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "sub_1", Name: "read_file", Status: dialog.StatusOK}})
	r.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "sub_2", Name: "grep_search", Title: "SearchText '('"}})
	r.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "sub_2", Name: "grep_search", Status: dialog.StatusError, Display: "bad pattern"}})
	r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: dialog.StatusOK, Display: "The parser is in foo.go."}})
	r.Show(ctx, main, dialog.TextEvent{Text: "In foo.go."})
	r.end(conversation.Outcome{Ending: conversation.Done, Text: "Let me look.\nIn foo.go."}, stats{})
}

// stream-json marks each of a subagent's events with the invoke_agent
// call that runs it and the agent's name, and none of the main agent's.
func TestStreamJSONMarksSubagentEvents(t *testing.T) {
	var stdout, stderr bytes.Buffer
	r, err := newReport("stream-json", &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	subagentRun(r)
	var marked []string
	for line := range strings.SplitSeq(strings.TrimSpace(stdout.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		parent, hasParent := ev["parent_tool_id"]
		agent, hasAgent := ev["agent_name"]
		if hasParent != hasAgent || hasParent && (parent != "call_1" || agent != "codebase_investigator") {
			t.Errorf("event %s: parent_tool_id %v, agent_name %v", line, parent, agent)
		}
		if hasParent {
			marked = append(marked, ev["type"].(string))
		}
	}
	if want := "message thought tool_use tool_result tool_use tool_result"; strings.Join(marked, " ") != want {
		t.Errorf("the subagent's events are %q, want %q", marked, want)
	}
}

// text prints only the main agent's answer; a subagent's calls are told
// on stderr as the main agent's are, named by its agent.
func TestTextLeavesOutSubagentText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	r, err := newReport("text", &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	subagentRun(r)
	if got, want := stdout.String(), "Let me look.\nIn foo.go.\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got, want := stderr.String(), "gemini-ls: \u2713 codebase_investigator: read_file (ReadFile foo.go)\n"+
		"gemini-ls: codebase_investigator: grep_search (SearchText '(') failed: bad pattern\n"+
		"gemini-ls: \u2713 invoke_agent (Delegate to codebase_investigator)\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// A subagent numbers its calls its own way: its call_1 is not the main
// agent's call_1; stderr names each by its own title.
func TestSubagentCallIDsAreItsOwn(t *testing.T) {
	var stdout, stderr bytes.Buffer
	r, err := newReport("text", &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	sub := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	r.begin("s1", "gemini-test", "p")
	ctx, main := t.Context(), dialog.Subagent{}
	r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Title: "Delegate to codebase_investigator"}})
	r.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "read_file", Title: "ReadFile foo.go"}})
	r.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "read_file", Status: dialog.StatusOK}})
	r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: dialog.StatusError, Display: "the subagent failed"}})
	if got, want := stderr.String(), "gemini-ls: \u2713 codebase_investigator: read_file (ReadFile foo.go)\n"+
		"gemini-ls: invoke_agent (Delegate to codebase_investigator) failed: the subagent failed\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
