package conversation

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// methods is a view that names the method each event reached.
type methods struct{ called []string }

func (m *methods) Text(context.Context, dialog.Subagent, string) { m.add("Text") }
func (m *methods) Thought(context.Context, dialog.Subagent, dialog.Thought) {
	m.add("Thought")
}
func (m *methods) ToolCall(context.Context, dialog.Subagent, dialog.ToolCall) {
	m.add("ToolCall")
}
func (m *methods) ToolResult(context.Context, dialog.Subagent, dialog.ToolResult) {
	m.add("ToolResult")
}
func (m *methods) Usage(context.Context, dialog.Subagent, dialog.UsageReport) { m.add("Usage") }
func (m *methods) Error(context.Context, dialog.Subagent, error)              { m.add("Error") }
func (m *methods) Retry(context.Context, dialog.Subagent, dialog.RetryInfo)   { m.add("Retry") }
func (m *methods) Compressed(context.Context, dialog.Subagent, dialog.CompressionInfo) {
	m.add("Compressed")
}
func (m *methods) Notice(context.Context, dialog.Subagent, string) { m.add("Notice") }
func (m *methods) Mode(context.Context, dialog.Subagent, dialog.ApprovalMode) {
	m.add("Mode")
}
func (m *methods) Model(context.Context, dialog.Subagent, string)       { m.add("Model") }
func (m *methods) Topic(context.Context, dialog.Subagent, dialog.Topic) { m.add("Topic") }
func (m *methods) Commands(context.Context, dialog.Subagent)            { m.add("Commands") }

func (m *methods) add(name string) { m.called = append(m.called, name) }

// Every kind of event the agent can emit (dialog.Kinds, which dialog's
// own test holds to every kind it declares) reaches a view method of its
// own, and every method of a view shows one kind: a kind added to dialog
// without its case in Show fails this test, and a method added to Events
// fails to compile in every front end until it shows or ignores it.
func TestShowCoversEveryKind(t *testing.T) {
	kinds := dialog.Kinds()
	shownBy := make(map[string]dialog.Event) // the kind each method shows
	for _, k := range kinds {
		var m methods
		if unhandled := showRecovering(&m, k); unhandled != nil {
			t.Errorf("an event of kind %T is shown by no method: %v", k, unhandled)
			continue
		}
		if len(m.called) != 1 {
			t.Errorf("an event of kind %T reached %q, want one method", k, m.called)
			continue
		}
		if other, ok := shownBy[m.called[0]]; ok {
			t.Errorf("kinds %T and %T both reach %s", other, k, m.called[0])
		}
		shownBy[m.called[0]] = k
	}
	if n := reflect.TypeFor[Events]().NumMethod(); len(kinds) != n || len(shownBy) != n {
		t.Errorf("dialog declares %d kinds, %d reach a method of their own; Events has %d methods", len(kinds), len(shownBy), n)
	}
}

// showRecovering shows e through v, and is what Show panicked with if it
// found no method for e's kind.
func showRecovering(v Events, e dialog.Event) (unhandled any) {
	defer func() { unhandled = recover() }()
	Show(context.Background(), v, e)
	return nil
}

// Each event reaches the view with the subagent it is of.
func TestShowPassesTheSubagent(t *testing.T) {
	sub := dialog.Subagent{CallID: "call_1", Name: "codebase_investigator"}
	var got dialog.Subagent
	Show(context.Background(), subagentOf{got: &got}, dialog.NoticeEvent{Origin: dialog.Origin{Subagent: sub}, Text: "x"})
	if got != sub {
		t.Errorf("the notice reached the view from %+v, want %+v", got, sub)
	}
}

type subagentOf struct {
	ignoreAll
	got *dialog.Subagent
}

func (s subagentOf) Notice(_ context.Context, from dialog.Subagent, _ string) { *s.got = from }

// ignoreAll shows nothing, for a test's view to show the one kind it
// looks at.
type ignoreAll struct {
	IgnoreText
	IgnoreThought
	IgnoreToolCall
	IgnoreToolResult
	IgnoreUsage
	IgnoreError
	IgnoreRetry
	IgnoreCompressed
	IgnoreNotice
	IgnoreMode
	IgnoreModel
	IgnoreTopic
	IgnoreCommands
}

// A usage event reaches the view with its sums and the model that
// answered.
func TestShowUsage(t *testing.T) {
	var got dialog.UsageReport
	want := dialog.UsageReport{Response: dialog.Usage{TotalTokens: 1}, Prompt: dialog.Usage{TotalTokens: 2}, Session: dialog.Usage{TotalTokens: 3}, Model: "m"}
	Show(context.Background(), usageOf{got: &got}, dialog.UsageEvent{Usage: want})
	if got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
}

type usageOf struct {
	ignoreAll
	got *dialog.UsageReport
}

func (u usageOf) Usage(_ context.Context, _ dialog.Subagent, r dialog.UsageReport) { *u.got = r }

// questions are Questions that record which turn was asked.
type questions struct {
	name  string
	asked *[]string
}

func (q questions) Land(context.Context, dialog.LandRequest) (dialog.Landing, error) {
	*q.asked = append(*q.asked, q.name+": land")
	return dialog.Landing{}, nil
}

func (q questions) LandFiles(context.Context, dialog.LandFilesRequest) ([]dialog.Decision, error) {
	*q.asked = append(*q.asked, q.name+": land files")
	return nil, nil
}

func (q questions) Confirm(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	*q.asked = append(*q.asked, q.name+": confirm")
	return dialog.ProceedOnce, nil
}

func (q questions) Ask(context.Context, dialog.AskRequest) (dialog.Answer, error) {
	*q.asked = append(*q.asked, q.name+": ask")
	return dialog.Answer{}, nil
}

func (q questions) AskTrust(context.Context, dialog.TrustRequest) (string, error) {
	*q.asked = append(*q.asked, q.name+": trust")
	return "", nil
}

// A question goes to the turn running in the session that asks it, and
// to no other; with no turn running there, nobody can answer it.
func TestQuestionsReachTheirTurn(t *testing.T) {
	var ts Turns
	a, _ := ts.Begin(context.Background(), "a")
	b, _ := ts.Begin(context.Background(), "b")
	var asked []string
	a.ask(questions{"a", &asked})
	b.ask(questions{"b", &asked})
	door := asking{&ts}
	ctx := context.Background()
	_, _ = door.Confirm(ctx, dialog.ConfirmRequest{SessionID: "b"})
	_, _ = door.Land(ctx, dialog.LandRequest{SessionID: "a"})
	_, _ = door.Ask(ctx, dialog.AskRequest{SessionID: "b"})
	_, _ = door.LandFiles(ctx, dialog.LandFilesRequest{SessionID: "a"})
	if want := []string{"b: confirm", "a: land", "b: ask", "a: land files"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}

	b.End()
	outcome, err := door.Confirm(ctx, dialog.ConfirmRequest{SessionID: "b"})
	if !errors.Is(err, dialog.ErrCannotAsk) || outcome != dialog.Cancel {
		t.Errorf("a question of a session whose turn ended: %v, %v; want Cancel and ErrCannotAsk", outcome, err)
	}
	if _, err := door.Ask(ctx, dialog.AskRequest{SessionID: "none"}); !errors.Is(err, dialog.ErrCannotAsk) {
		t.Errorf("a question of no session: %v, want ErrCannotAsk", err)
	}
	a.End()
}
