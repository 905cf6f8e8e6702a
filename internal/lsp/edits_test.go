package lsp

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// decide classifies what the document holds after an applyEdit exchange,
// whatever the client answered.
func TestDecideReadsTheDocument(t *testing.T) {
	const path = "/w/a.go"
	change := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: "one\n", After: "two\n"}
	reason := "version mismatch"
	applied := protocol.ApplyWorkspaceEditResult{Applied: true}
	for _, tc := range []struct {
		name    string
		text    *string // the open document; nil when closed and absent from disk
		synced  bool    // a didChange arrived since the edit went out
		res     protocol.ApplyWorkspaceEditResult
		want    dialog.Outcome
		content string
		pending bool
	}{
		{"applied", ptr("two\n"), true, applied, dialog.Applied, "two\n", false},
		{"applied though the client said no (eglot's null)", ptr("two\n"), true, protocol.ApplyWorkspaceEditResult{}, dialog.Applied, "two\n", false},
		{"declined", ptr("one\n"), true, protocol.ApplyWorkspaceEditResult{}, dialog.Declined, "", false},
		{"declined, nothing synchronised", ptr("one\n"), false, protocol.ApplyWorkspaceEditResult{}, dialog.Declined, "", false},
		{"said applied, synchronised, unchanged: the editor's doing", ptr("one\n"), true, applied, dialog.Refused, "", false},
		{"not applied for a reason the editor gave: not the user's no", ptr("one\n"), true, protocol.ApplyWorkspaceEditResult{FailureReason: &reason}, dialog.Refused, "", false},
		{"said applied, nothing synchronised yet (eglot)", ptr("one\n"), false, applied, dialog.Applied, "two\n", true},
		{"modified by the user", ptr("two, checked\n"), true, applied, dialog.Modified, "two, checked\n", false},
		{"the proposal and a blank line: modified", ptr("two\n\n"), true, applied, dialog.Modified, "two\n\n", false},
		{"the user typed first and the editor skipped the edit (Neovim)", ptr("one\nthree\n"), true, applied, dialog.Stale, "one\nthree\n", false},
		{"as far from both: not the proposal", ptr("three\n"), true, applied, dialog.Stale, "three\n", false},
		{"moved on and refused", ptr("one!\n"), true, protocol.ApplyWorkspaceEditResult{FailureReason: &reason}, dialog.Stale, "one!\n", false},
		{"applied out of sight", nil, false, applied, dialog.Applied, "two\n", false},
		{"declined out of sight", nil, false, protocol.ApplyWorkspaceEditResult{}, dialog.Declined, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{docs: workspace.NewDocuments()}
			if tc.text != nil {
				s.docs.Open(workspace.Document{Path: path, URI: "file://" + path, Version: 2, Text: *tc.text})
			}
			d, pending := (presenter{s: s}).decide(change, 1, tc.synced, tc.res)
			if d.Outcome != tc.want || d.Content != tc.content || pending != tc.pending {
				t.Errorf("decision = %+v, pending %v; want %s with content %q, pending %v", d, pending, tc.want, tc.content, tc.pending)
			}
			if (d.Outcome == dialog.Declined || d.Outcome == dialog.Refused || d.Outcome == dialog.Stale) && d.Reason == "" {
				t.Errorf("%s without a reason", d.Outcome)
			}
		})
	}
}

// A review that accepts one hunk and rejects the other leaves a document
// as far from the proposal as from the original: the hunk kept as proposed
// makes it the user's modification, not a stale edit.
func TestDecideCountsAHunkKeptAsModified(t *testing.T) {
	const path = "/w/a.go"
	before, after := "one\nx\nx\nx\ntwo\n", "ONE\nx\nx\nx\nTWO\n"
	change := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: before, After: after}
	for _, tc := range []struct {
		text string
		want dialog.Outcome
	}{
		{"one\nx\nx\nx\nTWO\n", dialog.Modified},     // second hunk kept
		{"ONE\nx\nx\nx\ntwo\n", dialog.Modified},     // first hunk kept
		{"one\nx\nx\nx\nthree\n", dialog.Stale},      // neither, as far from both
		{"typed\none\nx\nx\nx\ntwo\n", dialog.Stale}, // the user's typing only
	} {
		s := &Server{docs: workspace.NewDocuments()}
		s.docs.Open(workspace.Document{Path: path, URI: "file://" + path, Version: 2, Text: tc.text})
		d, _ := (presenter{s: s}).decide(change, 1, true, protocol.ApplyWorkspaceEditResult{Applied: true})
		if d.Outcome != tc.want {
			t.Errorf("document %q: %s, want %s", tc.text, d.Outcome, tc.want)
		}
	}
}

// Editors end a file with a line break: a proposal without one counts as
// applied with it, a proposal with one does not with another.
func TestHoldsAllowsTheFinalLineBreakAnEditorAdds(t *testing.T) {
	for _, tc := range []struct {
		text, proposal string
		want           bool
	}{
		{"x", "x", true},
		{"x\n", "x", true},
		{"x\r\n", "x", true},
		{"\n", "", true}, // Neovim's empty buffer
		{"x\n\n", "x", false},
		{"x\n\n", "x\n", false},
		{"x\n", "x\n", true},
		{"y\n", "x", false},
	} {
		if got := holds(tc.text, tc.proposal); got != tc.want {
			t.Errorf("holds(%q, %q) = %v, want %v", tc.text, tc.proposal, got, tc.want)
		}
	}
}

// A new file lands with its content whatever the client, so the edit is
// the same for every client: all of it, over the empty document's line.
func TestNewFileEditCoversTheEmptyDocument(t *testing.T) {
	e := newFileEdit("# Changes\n")
	if e.Range != (workspace.Range{End: workspace.Position{Line: 1}}) || e.NewText != "# Changes\n" {
		t.Errorf("newFileEdit = %+v", e)
	}
}

// An edit taken on the client's word before any didChange showed it
// (eglot) is checked when the didChange comes: a document that then
// disagrees is a warning, one that agrees is not.
func TestPendingEditIsReconciledWithTheLateDidChange(t *testing.T) {
	const path = "/w/a.go"
	change := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: "one\n", After: "two\n"}
	for _, tc := range []struct {
		name, late string
		warns      bool
	}{
		{"agrees", "two\n", false},
		{"disagrees", "two, and more\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &Server{docs: workspace.NewDocuments(), log: zap.New(core), life: ctx, opts: Options{ConfirmWait: 50 * time.Millisecond}}
			s.docs.Open(workspace.Document{Path: path, URI: "file://" + path, Version: 1, Text: "one\n"})

			d, err := (presenter{s: s}).outcome(ctx, change, 1, protocol.ApplyWorkspaceEditResult{Applied: true})
			if err != nil || d.Outcome != dialog.Applied || d.Content != "two\n" {
				t.Fatalf("outcome = %+v, %v; want applied on the client's word", d, err)
			}
			if err := s.docs.Change(path, 2, []workspace.ContentChange{{Text: tc.late}}, workspace.UTF16); err != nil {
				t.Fatal(err)
			}
			want := "a late didChange confirmed an applied edit"
			if tc.warns {
				want = "the document it synchronised later does not hold it"
			}
			deadline := time.Now().Add(5 * time.Second)
			for logs.FilterMessageSnippet(want).Len() == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if logs.FilterMessageSnippet(want).Len() != 1 {
				t.Fatalf("logs = %v, want one %q", messages(logs), want)
			}
			if warned := logs.FilterLevelExact(zapcore.WarnLevel).Len() > 0; warned != tc.warns {
				t.Errorf("warned %v, want %v: %v", warned, tc.warns, messages(logs))
			}
		})
	}
}

func messages(logs *observer.ObservedLogs) string {
	var out []string
	for _, e := range logs.All() {
		out = append(out, e.Level.String()+": "+e.Message)
	}
	return strings.Join(out, "; ")
}

func ptr(s string) *string { return &s }

// A change taken as applied on the editor's word before its didChange came
// (eglot) lets the next proposal go at once. A change to the same document
// prepared from the text before it is then stale at once: never shown
// against text the editor no longer holds, nor held back for a didChange
// that may never come. Once the didChange comes, changes prepared from the
// document go ahead.
func TestChangeAfterAnUnsyncedEditIsStaleAtOnce(t *testing.T) {
	const path = "/w/a.go"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	s := &Server{docs: workspace.NewDocuments(), log: zap.NewNop(), life: ctx, edits: newEditQueue(),
		opts:     Options{ConfirmWait: 50 * time.Millisecond},
		features: negotiated{features: clientFeatures{ApplyEdit: true, DocumentChanges: true, EditPreview: true}}}
	asked := editorAnswering(ctx, t, s)
	s.docs.Open(workspace.Document{Path: path, URI: "file://" + path, Version: 1, Text: "one\n"})
	p := presenter{s: s}

	first := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: "one\n", After: "two\n"}
	d, err := p.outcome(ctx, first, 1, protocol.ApplyWorkspaceEditResult{Applied: true})
	if err != nil || d.Outcome != dialog.Applied {
		t.Fatalf("first outcome = %+v, %v; want applied on the editor's word", d, err)
	}
	second := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: "one\n", After: "three\n"}
	landing, err := p.Land(ctx, dialog.LandRequest{Change: second, Ask: true})
	d = landing.Decision
	if err != nil || d.Outcome != dialog.Stale || d.Reason != unsyncedReason {
		t.Errorf("second = %+v, %v; want stale: %s", d, err, unsyncedReason)
	}
	if m := asked(); len(m) > 0 {
		t.Errorf("the editor was asked %q about a change prepared from text it no longer holds", m)
	}

	if err := s.docs.Change(path, 2, []workspace.ContentChange{{Text: "two\n"}}, workspace.UTF16); err != nil {
		t.Fatal(err)
	}
	third := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 2, Before: "two\n", After: "four\n"}
	if reason := p.staleReason(third); reason != "" {
		t.Errorf("a change prepared from the synchronised document is stale: %s", reason)
	}
}

// editorAnswering connects s to an editor that declines every request;
// asked returns the methods it was sent.
func editorAnswering(ctx context.Context, t *testing.T, s *Server) (asked func() []string) {
	serverEnd, editorEnd := jsonrpc2.NewChannelStreamPair(16)
	s.conn = jsonrpc2.NewConn(serverEnd)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	editor := jsonrpc2.NewConn(editorEnd)
	var mu sync.Mutex
	var methods []string
	editor.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		mu.Lock()
		methods = append(methods, req.Method())
		mu.Unlock()
		return protocol.ApplyWorkspaceEditResult{}, nil
	})
	t.Cleanup(func() {
		_ = s.conn.Close()
		_ = editor.Close()
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(methods)
	}
}
