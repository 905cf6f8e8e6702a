package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// languageEditor connects a server speaking enc to an editor whose
// language servers answer gemini/languageFeature with answer; it returns
// the server and the params of each request, as they arrive.
func languageEditor(t *testing.T, enc workspace.Encoding, answer func(ctx context.Context, params json.RawMessage) (any, error)) (*Server, <-chan json.RawMessage, <-chan json.RawMessage) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{docs: workspace.NewDocuments(), log: zap.NewNop()}
	s.features.set(clientFeatures{Encoding: enc, LanguageFeatures: true})
	serverEnd, editorEnd := jsonrpc2.NewChannelStreamPair(16)
	s.conn = jsonrpc2.NewConn(serverEnd)
	s.conn.Go(ctx, func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	asked := make(chan json.RawMessage, 8)
	cancelled := make(chan json.RawMessage, 8)
	editor := jsonrpc2.NewConn(editorEnd)
	editor.Go(ctx, func(rq context.Context, req *jsonrpc2.Request) (any, error) {
		params := append(json.RawMessage(nil), req.Params()...)
		switch req.Method() {
		case "gemini/languageFeature":
			asked <- params
			jsonrpc2.Async(rq)
			return answer(ctx, params)
		case "$/cancelRequest":
			cancelled <- params
			return nil, nil
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method())
	})
	t.Cleanup(func() {
		cancel()
		_ = s.conn.Close()
		_ = editor.Close()
	})
	return s, asked, cancelled
}

func answering(result string) func(context.Context, json.RawMessage) (any, error) {
	return func(context.Context, json.RawMessage) (any, error) { return json.RawMessage(result), nil }
}

// The position goes out in the connection's encoding, counted in the
// text the tool read: the non-ASCII text before the symbol is fewer
// UTF-16 units and fewer code points than bytes.
func TestLanguageFeatureSendsThePositionInTheNegotiatedEncoding(t *testing.T) {
	const text = "package main\n\nvar s = \"ü😀\" + greet()\n"
	col := strings.Index("var s = \"ü😀\" + greet()", "greet")
	req := codeintel.Request{Op: codeintel.References, Path: "/w/main.go", LanguageID: "go", Text: text, Position: workspace.Position{Line: 2, Character: col}}
	for _, tc := range []struct {
		enc  workspace.Encoding
		want int
	}{
		{workspace.UTF8, 19},
		{workspace.UTF16, 16},
		{workspace.UTF32, 15},
	} {
		t.Run(encodingName(tc.enc), func(t *testing.T) {
			const result = `[{"uri":"file:///w/main.go","range":{"start":{"line":2,"character":1},"end":{"line":2,"character":2}}}]`
			s, asked, _ := languageEditor(t, tc.enc, answering(result))
			a, err := languageFeatures{s}.Ask(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(<-asked, &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{
				"operation":    "references",
				"textDocument": map[string]any{"uri": "file:///w/main.go"},
				"position":     map[string]any{"line": float64(2), "character": float64(tc.want)},
			}
			if g, w := mustJSON(got), mustJSON(want); string(g) != string(w) {
				t.Errorf("params = %s, want %s", g, w)
			}
			if string(a.Result) != result || a.Encoding != tc.enc || a.Source != "the editor's language servers" {
				t.Errorf("answer = %s in %v from %q, want %s in %v from the editor's language servers", a.Result, a.Encoding, a.Source, result, tc.enc)
			}
		})
	}
}

// The symbol listings name no position; workspace_symbols carries its
// query, rename its new name; an open document goes by the editor's URI.
func TestLanguageFeatureParamsOfEachOperation(t *testing.T) {
	const text = "package main\n\nfunc greet() {}\n"
	for _, tc := range []struct {
		req  codeintel.Request
		want string
	}{
		{codeintel.Request{Op: codeintel.DocumentSymbols, Path: "/w/main.go", Text: text},
			`{"operation":"document_symbols","textDocument":{"uri":"file:///w/main.go"}}`},
		{codeintel.Request{Op: codeintel.WorkspaceSymbols, Path: "/w", Query: "greet"},
			`{"operation":"workspace_symbols","textDocument":{"uri":"file:///w"},"query":"greet"}`},
		{codeintel.Request{Op: codeintel.Rename, Path: "/w/main.go", Text: text, Position: workspace.Position{Line: 2, Character: 5}, NewName: "hello"},
			`{"operation":"rename","textDocument":{"uri":"file:///w/main.go"},"position":{"line":2,"character":5},"newName":"hello"}`},
		{codeintel.Request{Op: codeintel.Hover, Path: "/w/open.go", Text: text, Position: workspace.Position{Line: 2, Character: 5}},
			`{"operation":"hover","textDocument":{"uri":"file:///W/open.go"},"position":{"line":2,"character":5}}`},
	} {
		t.Run(string(tc.req.Op), func(t *testing.T) {
			s, asked, _ := languageEditor(t, workspace.UTF16, answering("null"))
			s.docs.Open(workspace.Document{Path: "/w/open.go", URI: "file:///W/open.go", Version: 1, Text: text})
			if _, err := (languageFeatures{s}).Ask(t.Context(), tc.req); err != nil {
				t.Fatal(err)
			}
			if got := string(<-asked); got != tc.want {
				t.Errorf("params = %s, want %s", got, tc.want)
			}
		})
	}
}

// -32001 says the editor has no server for the file: a NoServerError
// naming its language, so Chain asks gemini-ls's own servers.
func TestLanguageFeatureNoServerIsNoServerError(t *testing.T) {
	s, _, _ := languageEditor(t, workspace.UTF16, func(context.Context, json.RawMessage) (any, error) {
		return nil, jsonrpc2.NewError(-32001, "no language server for this file")
	})
	for _, tc := range []struct {
		req  codeintel.Request
		want string
	}{
		{codeintel.Request{Op: codeintel.Definition, Path: "/w/main.zig", LanguageID: "zig", Text: "x\n"}, "zig"},
		{codeintel.Request{Op: codeintel.Definition, Path: "/w/Makefile.weird", Text: "x\n"}, "Makefile.weird"},
	} {
		_, err := languageFeatures{s}.Ask(t.Context(), tc.req)
		var ns *codeintel.NoServerError
		if !errors.As(err, &ns) || !strings.HasSuffix(err.Error(), "for "+tc.want+" files") && !strings.HasSuffix(err.Error(), "for "+tc.want) {
			t.Errorf("%s: error %v, want a NoServerError for %q", tc.req.Path, err, tc.want)
		}
	}
}

// Any other error is the servers' own answer, passed on word for word.
func TestLanguageFeatureErrorIsTheEditorsWords(t *testing.T) {
	const refusal = "cannot rename a built-in"
	s, _, _ := languageEditor(t, workspace.UTF16, func(context.Context, json.RawMessage) (any, error) {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, refusal)
	})
	_, err := languageFeatures{s}.Ask(t.Context(), codeintel.Request{Op: codeintel.Rename, Path: "/w/main.go", Text: "x\n", NewName: "y"})
	if err == nil || err.Error() != refusal || codeintel.IsNoServer(err) {
		t.Errorf("error = %v, want exactly %q", err, refusal)
	}
}

// Cancelling the prompt withdraws the request: the editor is sent
// $/cancelRequest with its id.
func TestLanguageFeatureCancelWithdrawsTheRequest(t *testing.T) {
	s, asked, cancelled := languageEditor(t, workspace.UTF16, func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done() // the servers are still indexing when the test ends
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(t.Context())
	errs := make(chan error, 1)
	go func() {
		_, err := languageFeatures{s}.Ask(ctx, codeintel.Request{Op: codeintel.References, Path: "/w/main.go", Text: "x\n"})
		errs <- err
	}()
	hang, stop := context.WithTimeout(t.Context(), time.Minute) // hang guard
	defer stop()
	select {
	case <-asked:
	case <-hang.Done():
		t.Fatal("gemini/languageFeature never arrived")
	}
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	select {
	case p := <-cancelled:
		var got struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(p, &got); err != nil || len(got.ID) == 0 {
			t.Errorf("$/cancelRequest params %s name no id", p)
		}
	case <-hang.Done():
		t.Fatal("the editor was never sent $/cancelRequest")
	}
}

// The capability is read from experimental.gemini.languageFeatures.
func TestLanguageFeaturesCapability(t *testing.T) {
	for _, tc := range []struct {
		caps string
		want bool
	}{
		{`{}`, false},
		{`{"experimental":{"gemini":{"diagnostics":true}}}`, false},
		{`{"experimental":{"gemini":{"languageFeatures":true}}}`, true},
	} {
		var p initializeParams
		if err := json.Unmarshal([]byte(`{"capabilities":`+tc.caps+`}`), &p); err != nil {
			t.Fatal(err)
		}
		if got := p.features().LanguageFeatures; got != tc.want {
			t.Errorf("%s: LanguageFeatures = %v, want %v", tc.caps, got, tc.want)
		}
	}
}
