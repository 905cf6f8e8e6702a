package lsp

import (
	"context"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A completion request answers for its document as it was when the
// request arrived: the version is pinned on the read loop, before a
// didChange that follows the request on the wire is applied.
func TestCompletionRequestsPinTheirDocument(t *testing.T) {
	s := &Server{docs: workspace.NewDocuments(), methods: newHandledMethods()}
	path := filepath.Join(t.TempDir(), "a.go")
	s.docs.Open(workspace.Document{Path: path, Version: 4, Text: "x := \n"})
	for _, name := range []string{"textDocument/inlineCompletion", "textDocument/completion"} {
		if m := s.methods.lookup(requestKind, name); m == nil || !m.pin {
			t.Errorf("%s is not pinned", name)
		}
	}
	params := []byte(`{"textDocument": {"uri": "` + string(uri.File(path)) + `"}, "position": {"line": 0, "character": 5}}`)
	ctx := s.pinDocument(context.Background(), params)
	if err := s.docs.Change(path, 5, []workspace.ContentChange{{Text: "x := 1\n"}}, workspace.UTF16); err != nil {
		t.Fatal(err)
	}
	req, err := s.completionRequest(ctx, inlineCompletionParams{TextDocument: struct {
		URI string `json:"uri"`
	}{string(uri.File(path))}})
	if err != nil {
		t.Fatal(err)
	}
	if req.Version == nil || *req.Version != 4 {
		t.Errorf("the request's version is %v, want 4, the document's when it arrived", req.Version)
	}
	if req, _ := s.completionRequest(context.Background(), inlineCompletionParams{TextDocument: struct {
		URI string `json:"uri"`
	}{string(uri.File(path))}}); req.Version != nil {
		t.Errorf("an unpinned request's version is %d, want none (the current one)", *req.Version)
	}
}
