package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// filesEditor is an editor holding open documents, which it changes as
// each workspace/applyEdit says (the whole document becomes what the
// test proposed for it) and whose user answers showMessageRequest with
// choose; it records what it was sent.
type filesEditor struct {
	s *Server
	// after is the proposed text of each path; skip are paths the user
	// leaves out of a previewed edit.
	after map[string]string
	skip  map[string]bool
	// choose picks a showMessageRequest's action; nil answers
	// MethodNotFound, as Helix does.
	choose func(message string, actions []string) string

	mu        sync.Mutex
	edits     []json.RawMessage
	questions []string
	// shown are window/showMessage's messages, which may come after
	// LandFiles returned: they are notifications.
	shown chan string
}

func (e *filesEditor) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	params := append(json.RawMessage(nil), req.Params()...)
	switch req.Method() {
	case "workspace/applyEdit":
		e.mu.Lock()
		e.edits = append(e.edits, params)
		e.mu.Unlock()
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					TextDocument struct{ URI string } `json:"textDocument"`
				} `json:"documentChanges"`
				Changes map[string]json.RawMessage `json:"changes"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		uris := slices.Collect(func(yield func(string) bool) {
			for _, dc := range p.Edit.DocumentChanges {
				yield(dc.TextDocument.URI)
			}
			for u := range p.Edit.Changes {
				yield(u)
			}
		})
		for _, u := range uris {
			path, _ := uriToPath(u)
			if e.skip[path] {
				continue
			}
			doc, _ := e.s.docs.Get(path)
			if err := e.s.docs.Change(path, doc.Version+1, []workspace.ContentChange{{Text: e.after[path]}}, workspace.UTF16); err != nil {
				return nil, err
			}
		}
		return map[string]bool{"applied": true}, nil
	case "window/showMessageRequest":
		var p struct {
			Message string
			Actions []struct{ Title string }
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		e.mu.Lock()
		e.questions = append(e.questions, p.Message+" "+jsonString(titles))
		e.mu.Unlock()
		if e.choose == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method())
		}
		return map[string]string{"title": e.choose(p.Message, titles)}, nil
	case "window/showMessage":
		var p struct{ Message string }
		_ = json.Unmarshal(params, &p)
		e.shown <- p.Message
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method())
}

func jsonString(v any) string { return string(mustJSON(v)) }

// renameInEditor is a rename of greet to hello across two files open in
// an editor with features f: the server, the editor, the request.
func renameInEditor(t *testing.T, f clientFeatures) (*Server, *filesEditor, dialog.LandFilesRequest) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	t.Cleanup(cancel)
	root := t.TempDir()
	s := &Server{docs: workspace.NewDocuments(), log: zap.NewNop(), life: ctx, edits: newEditQueue(),
		opts: Options{ConfirmWait: 50 * time.Millisecond}}
	f.ApplyEdit = true
	s.features.set(f)
	ws, err := workspace.New([]string{root}, s.docs)
	if err != nil {
		t.Fatal(err)
	}
	s.agentState.setWorkspace(ws)
	req := dialog.LandFilesRequest{Title: "Rename greet to hello", CallID: "call_1"}
	e := &filesEditor{s: s, after: map[string]string{}, skip: map[string]bool{}, shown: make(chan string, 8)}
	for _, name := range []string{"a.go", "b.go"} {
		path := filepath.Join(root, name)
		before := "package main\n\nfunc greet() {}\n"
		after := "package main\n\nfunc hello() {}\n"
		s.docs.Open(workspace.Document{Path: path, URI: string(uri.File(path)), Version: 1, Text: before})
		e.after[path] = after
		req.Changes = append(req.Changes, dialog.RevertChange{FileChange: workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: before, After: after}})
	}
	serverEnd, editorEnd := jsonrpc2.NewChannelStreamPair(16)
	s.conn = jsonrpc2.NewConn(serverEnd)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	editor := jsonrpc2.NewConn(editorEnd)
	editor.Go(ctx, e.handle)
	t.Cleanup(func() {
		_ = s.conn.Close()
		_ = editor.Close()
	})
	return s, e, req
}

var previewing = clientFeatures{DocumentChanges: true, ChangeAnnotations: true}

func outcomes(ds []dialog.Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Outcome)+": "+d.Reason)
	}
	return out
}

func wantAll(t *testing.T, ds []dialog.Decision, err error, want dialog.Decision) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Outcome != want.Outcome || d.Reason != want.Reason {
			t.Fatalf("decisions %q, want each %s: %s", outcomes(ds), want.Outcome, want.Reason)
		}
	}
}

// An edit call the approval service allowed lands as one plain applyEdit
// of every file, asking nobody, even where the client could preview it.
func TestLandFilesOfAnAllowedEditCallAsksNobody(t *testing.T) {
	s, e, req := renameInEditor(t, previewing)
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Applied})
	if len(e.edits) != 1 || len(e.questions) != 0 {
		t.Fatalf("the editor was sent %d edits and asked %q; want one edit and no question", len(e.edits), e.questions)
	}
	var p struct {
		Label string
		Edit  struct {
			ChangeAnnotations map[string]any `json:"changeAnnotations"`
			DocumentChanges   []any          `json:"documentChanges"`
		}
	}
	if err := json.Unmarshal(e.edits[0], &p); err != nil {
		t.Fatal(err)
	}
	if p.Edit.ChangeAnnotations != nil || len(p.Edit.DocumentChanges) != 2 || p.Label != "Gemini: Rename greet to hello" {
		t.Errorf("applyEdit %s; want both files, labelled with the title, without annotations", e.edits[0])
	}
}

// An edit call that must be asked about is previewed where the client
// can, in the edit's words, not a revert's.
func TestLandFilesPreviewsAnEditCallToAsk(t *testing.T) {
	s, e, req := renameInEditor(t, previewing)
	req.Ask = true
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Applied})
	if len(e.edits) != 1 || len(e.questions) != 0 {
		t.Fatalf("the editor was sent %d edits and asked %q; want one previewed edit", len(e.edits), e.questions)
	}
	var p struct {
		Edit struct {
			ChangeAnnotations map[string]struct {
				Label             string
				NeedsConfirmation bool
				Description       string
			} `json:"changeAnnotations"`
		}
	}
	if err := json.Unmarshal(e.edits[0], &p); err != nil {
		t.Fatal(err)
	}
	a := p.Edit.ChangeAnnotations[annotationID]
	if !a.NeedsConfirmation || a.Label != "Gemini: Rename greet to hello" || a.Description != "Review the change before it is applied." {
		t.Errorf("annotation %+v; want the title, needing confirmation, reviewing the change", a)
	}
}

// A file the user leaves out of the preview is declined, the others
// applied.
func TestLandFilesFileLeftOutOfThePreviewIsDeclined(t *testing.T) {
	s, e, req := renameInEditor(t, previewing)
	req.Ask = true
	e.skip[req.Changes[1].Path] = true
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Outcome != dialog.Applied || ds[1].Outcome != dialog.Declined || ds[1].Reason != "the user left this file out of the edit" {
		t.Errorf("decisions %q; want the first applied, the second left out", outcomes(ds))
	}
}

// Without a preview, an edit call is asked about with showMessageRequest
// naming its files, Apply or Reject; Reject declines it as an edit.
func TestLandFilesAsksAboutAnEditCallWithApplyOrReject(t *testing.T) {
	for _, choice := range []string{actionApply, actionReject} {
		t.Run(choice, func(t *testing.T) {
			s, e, req := renameInEditor(t, clientFeatures{})
			req.Ask = true
			e.choose = func(string, []string) string { return choice }
			ds, err := presenter{s: s}.LandFiles(t.Context(), req)
			want := `Gemini wants to rename greet to hello: a.go (+1 −1), b.go (+1 −1)? ["Apply","Reject"]`
			if len(e.questions) != 1 || e.questions[0] != want {
				t.Errorf("questions %q, want %q", e.questions, want)
			}
			if choice == actionReject {
				wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the edit"})
				if len(e.edits) != 0 {
					t.Errorf("a rejected edit was sent: %s", e.edits)
				}
				return
			}
			wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Applied})
		})
	}
}

// A client with no way to ask refuses an edit call that must be asked
// about (the model is told how to allow edits), where a revert the user
// asked for is declined.
func TestLandFilesRefusesAnEditCallNobodyCanConfirm(t *testing.T) {
	s, e, req := renameInEditor(t, clientFeatures{})
	req.Ask = true
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Refused, Reason: noWayToAskEdits})
	if len(e.edits) != 0 {
		t.Errorf("sent %d edits, want none", len(e.edits))
	}
	select {
	case shown := <-e.shown:
		if shown != "Gemini: "+noWayToAskEdits {
			t.Errorf("showed %q, want the way to allow edits", shown)
		}
	case <-time.After(time.Minute): // hang guard
		t.Fatal("the user was never shown the way to allow edits")
	}
	// Known now not to ask: refused without asking again.
	ds, err = presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Refused, Reason: noWayToAskEdits})
	if len(e.questions) != 1 {
		t.Errorf("asked %d times, want once", len(e.questions))
	}

	req.CallID, req.Ask, req.Title = "", false, "Revert the changes of prompt 1"
	ds, err = presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Declined, Reason: noWayToAskEdits})
}

// A revert is still asked about as one: Revert or Cancel.
func TestLandFilesAsksAboutARevert(t *testing.T) {
	s, e, req := renameInEditor(t, clientFeatures{})
	req.CallID, req.Title = "", "Revert the changes of prompt 1"
	e.choose = func(string, []string) string { return actionKeepChange }
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	wantAll(t, ds, err, dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined the revert"})
	if want := `Gemini: Revert the changes of prompt 1? ["Revert","Cancel"]`; len(e.questions) != 1 || e.questions[0] != want {
		t.Errorf("questions %q, want %q", e.questions, want)
	}
}

// gemini.prompt's transcript records the user's answer to an edit call
// asked about after the call's line, in the edit's words; an edit call
// nobody was asked about records no answer.
func TestTranscriptRecordsTheAnswerToAnEditCallOfSeveralFiles(t *testing.T) {
	for ask, want := range map[bool]string{true: "- **Rename greet to hello**\n  → Apply\n\n", false: "- **Rename greet to hello**\n\n"} {
		s, e, req := renameInEditor(t, clientFeatures{})
		e.choose = func(string, []string) string { return actionApply }
		req.Ask = ask
		tr := &transcript{}
		v := commandView{presenter: presenter{s}, tr: tr, prog: &progress{}}
		v.Show(t.Context(), dialog.Subagent{}, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "call_1", Name: "rename_symbol", Title: "Rename greet to hello"}})
		if _, err := v.LandFiles(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := tr.render(); got != want {
			t.Errorf("asked %v: transcript %q, want %q", ask, got, want)
		}
	}
}

// A document that moves on while the user answers is stale, and left
// out of the edit, which goes against what the editor holds then.
func TestLandFilesLeavesOutADocumentChangedWhileTheUserAnswered(t *testing.T) {
	s, e, req := renameInEditor(t, clientFeatures{})
	req.Ask = true
	typed := req.Changes[1].Path
	e.choose = func(string, []string) string {
		if err := s.docs.Change(typed, 2, []workspace.ContentChange{{Text: "package main\n\nfunc greet() { typing }\n"}}, workspace.UTF16); err != nil {
			t.Error(err)
		}
		return actionApply
	}
	ds, err := presenter{s: s}.LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Outcome != dialog.Applied || ds[1].Outcome != dialog.Stale {
		t.Errorf("decisions %q; want the first applied, the one typed in stale", outcomes(ds))
	}
	if len(e.edits) != 1 || bytes.Contains(e.edits[0], []byte(filepath.Base(typed))) {
		t.Errorf("edits %s; want one, without %s", e.edits, typed)
	}
}
