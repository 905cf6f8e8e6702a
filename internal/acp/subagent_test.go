package acp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// connectedSession is a session of an in-process server connected to an
// acptest client.
func connectedSession(t *testing.T) (*session, *acptest.Client) {
	t.Helper()
	return connectedSessionAnswering(t, nil)
}

// connectedSessionAnswering is connectedSession whose client answers
// permission requests with answer (AllowOnce when nil).
func connectedSessionAnswering(t *testing.T, answer func(sdk.RequestPermissionRequest) acptest.Answer) (*session, *acptest.Client) {
	t.Helper()
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	t.Cleanup(func() { toAgent.Close(); toClient.Close() })
	s := newServer(t.Context(), Options{})
	s.connect(toAgent, fromAgent)
	client := acptest.New(t, fromClient, toClient, acptest.Config{Answer: answer})
	sess := &session{srv: s, id: "s1", cwd: t.TempDir(), log: zap.NewNop(), attached: map[string][]sdk.ToolCallContent{}, shown: map[string]dialog.ToolCall{}}
	return sess, client
}

// A subagent's calls are tool_calls of their own whose _meta names the
// invoke_agent call and the agent, and are asked about as any call, named
// so too; the invoke_agent call shows the subagent's text and calls as
// they go, and keeps them above its report. Nothing of the subagent is
// the agent's message or thoughts.
func TestSubagentUnderItsCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // hang guard
	defer cancel()
	sess, client := connectedSession(t)
	sub := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	v, main := sess.newTurn(), dialog.Subagent{}

	v.Show(ctx, main, dialog.TextEvent{Text: "Let me delegate."})
	v.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "invoke_agent", Title: "Delegate to codebase_investigator"}})
	v.Show(ctx, sub, dialog.ThoughtEvent{Thought: dialog.Thought{Subject: "Looking", Description: "around"}})
	v.Show(ctx, sub, dialog.TextEvent{Text: "I'll run "})
	v.Show(ctx, sub, dialog.TextEvent{Text: "the tests."})
	v.Show(ctx, sub, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "sub_1", Name: tools.ShellName, Title: "Shell go test", Kind: dialog.KindExecute, Args: map[string]any{"command": "go test"}}})
	outcome, err := v.Confirm(ctx, asked("s1", "sub_1", shellRequest("go test")))
	if err != nil || outcome != dialog.ProceedOnce {
		t.Fatalf("confirm = %v, %v", outcome, err)
	}
	v.Show(ctx, sub, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "sub_1", Name: tools.ShellName, Status: dialog.StatusOK, Display: "ok"}})
	v.Show(ctx, sub, dialog.UsageEvent{Usage: dialog.UsageReport{Response: dialog.Usage{TotalTokens: 5}}})
	v.Show(ctx, sub, dialog.ErrorEvent{Err: errors.New("out of turns")})
	v.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "call_1", Name: "invoke_agent", Status: dialog.StatusOK, Display: "The tests pass."}})

	client.Wait(ctx, "the invoke_agent call's end", func(c *acptest.Client) bool {
		for _, u := range c.ToolCallUpdates("call_1") {
			if u.Status != nil && *u.Status == sdk.ToolCallStatusCompleted {
				return true
			}
		}
		return false
	})

	wantMeta := func(what string, meta map[string]any) {
		t.Helper()
		if meta["parentToolCallId"] != "call_1" || meta["agentName"] != "codebase_investigator" {
			t.Errorf("%s's _meta = %v, want the invoke_agent call and the agent", what, meta)
		}
	}
	var subCall *sdk.SessionUpdateToolCall
	for _, c := range client.ToolCalls() {
		switch c.ToolCallId {
		case "sub_1":
			subCall = &c
		case "call_1":
			if c.Meta != nil {
				t.Errorf("the invoke_agent call has _meta %v", c.Meta)
			}
		}
	}
	if subCall == nil {
		t.Fatal("the subagent's call was not sent as a tool_call")
	}
	wantMeta("the subagent's tool_call", subCall.Meta)
	subUpdates := client.ToolCallUpdates("sub_1")
	if len(subUpdates) != 1 || subUpdates[0].Status == nil || *subUpdates[0].Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("the subagent's call's updates: %+v", subUpdates)
	}
	wantMeta("the subagent's tool_call_update", subUpdates[0].Meta)
	if p := client.Permissions(); len(p) != 1 || p[0].ToolCall.ToolCallId != "sub_1" {
		t.Fatalf("permission requests %+v, want one about sub_1", p)
	} else {
		wantMeta("the subagent's permission request", p[0].ToolCall.Meta)
	}

	var progress []string
	var final []string
	for _, u := range client.ToolCallUpdates("call_1") {
		var texts []string
		for _, c := range u.Content {
			if c.Content == nil || c.Content.Content.Text == nil {
				t.Fatalf("the invoke_agent call's content %+v is not text", c)
			}
			texts = append(texts, c.Content.Content.Text.Text)
		}
		if *u.Status == sdk.ToolCallStatusInProgress {
			progress = append(progress, strings.Join(texts, "|"))
		} else {
			final = texts
		}
	}
	for _, want := range []string{
		"I'll run",
		"I'll run the tests.",
		"I'll run the tests.\n\n- Shell go test",
		"I'll run the tests.\n\n- Shell go test — ok",
	} {
		found := false
		for _, p := range progress {
			found = found || p == want
		}
		if !found {
			t.Errorf("the invoke_agent call never showed %q; it showed %q", want, progress)
		}
	}
	if want := []string{"I'll run the tests.\n\n- Shell go test — ok\n\nError: out of turns", "The tests pass."}; strings.Join(final, "|") != strings.Join(want, "|") {
		t.Errorf("the invoke_agent call ended with %q, want %q", final, want)
	}
	if got := client.MessageText("s1"); got != "Let me delegate." {
		t.Errorf("the agent's message is %q, want the main agent's alone", got)
	}
	for _, u := range client.Updates() {
		if u.Update.AgentThoughtChunk != nil {
			t.Errorf("the subagent's thought was sent as the agent's: %+v", u.Update.AgentThoughtChunk)
		}
	}
}

// asked is req as the agent puts it about call callID of session id.
func asked(id, callID string, req *dialog.ConfirmRequest) dialog.ConfirmRequest {
	req.SessionID, req.CallID, req.Tool = id, callID, "run_shell_command"
	return *req
}
