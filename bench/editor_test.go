package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// perEditEditor applies a workspace/applyEdit the way VS Code does: each
// text edit goes into the buffer as received, and the one didChange sent
// before the answer carries one content change per edit, last first.
// (lsptest's editor instead reports a whole applied edit as a single
// change spanning the first to the last difference, so that its position
// math stays independent of the server's; for 50 edits spread over
// 20,000 lines that is a 1.1 MB change.) It declares our plugin's
// capabilities and accepts every edit at once.
type perEditEditor struct {
	conn jsonrpc2.Conn

	mu   sync.Mutex
	enc  workspace.Encoding
	docs map[uri.URI]*perEditDoc
}

type perEditDoc struct {
	path    string
	version int32
	text    string
}

func newPerEditEditor(b *testing.B, rwc io.ReadWriteCloser) *perEditEditor {
	e := &perEditEditor{conn: jsonrpc2.NewConn(jsonrpc2.NewStream(rwc)), enc: workspace.UTF16, docs: map[uri.URI]*perEditDoc{}}
	e.conn.Go(context.Background(), e.handle)
	b.Cleanup(func() { _ = e.conn.Close() })
	return e
}

func (e *perEditEditor) Initialize(ctx context.Context, roots []string, opts map[string]any) (map[string]any, error) {
	folders := make([]map[string]string, len(roots))
	for i, r := range roots {
		folders[i] = map[string]string{"uri": string(uri.File(r)), "name": filepath.Base(r)}
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]string{"name": "per-edit bench editor"},
		"workspaceFolders":      folders,
		"capabilities":          lsptest.Plugin().Capabilities,
		"initializationOptions": opts,
	}
	var raw map[string]any
	if err := e.Call(ctx, "initialize", params, &raw); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("initialize result: %w", err)
	}
	e.mu.Lock()
	switch res.Capabilities.PositionEncoding {
	case "utf-8":
		e.enc = workspace.UTF8
	case "utf-32":
		e.enc = workspace.UTF32
	}
	e.mu.Unlock()
	return raw, e.Notify(ctx, "initialized", map[string]any{})
}

func (e *perEditEditor) Open(ctx context.Context, path, text string) error {
	u := uri.File(path)
	e.mu.Lock()
	e.docs[u] = &perEditDoc{path: path, version: 1, text: text}
	e.mu.Unlock()
	return e.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": text},
	})
}

func (e *perEditEditor) Buffer(path string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[uri.File(path)]
	if !ok {
		return "", false
	}
	return d.text, true
}

func (e *perEditEditor) Call(ctx context.Context, method string, params, result any) error {
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

func (e *perEditEditor) Notify(ctx context.Context, method string, params any) error {
	return e.conn.Notify(ctx, method, params)
}

type wirePosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type wireRange struct {
	Start wirePosition `json:"start"`
	End   wirePosition `json:"end"`
}

type wireTextEdit struct {
	Range   wireRange `json:"range"`
	NewText string    `json:"newText"`
}

func (x wireTextEdit) edit() workspace.TextEdit {
	return workspace.TextEdit{
		Range: workspace.Range{
			Start: workspace.Position{Line: x.Range.Start.Line, Character: x.Range.Start.Character},
			End:   workspace.Position{Line: x.Range.End.Line, Character: x.Range.End.Character},
		},
		NewText: x.NewText,
	}
}

func (e *perEditEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil
	}
	switch req.Method() {
	case "workspace/applyEdit":
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					Kind         string `json:"kind"`
					TextDocument struct {
						URI     uri.URI `json:"uri"`
						Version *int32  `json:"version"`
					} `json:"textDocument"`
					Edits []wireTextEdit `json:"edits"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		for _, dc := range p.Edit.DocumentChanges {
			if dc.Kind != "" {
				return refused("resource operations are not expected here"), nil
			}
			if err := e.apply(ctx, dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits); err != nil {
				return refused(err.Error()), nil
			}
		}
		return map[string]any{"applied": true}, nil
	case "gemini/confirm":
		return map[string]string{"outcome": "proceed_once"}, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method())
}

func refused(reason string) map[string]any {
	return map[string]any{"applied": false, "failureReason": reason}
}

// apply puts edits into the open document u and tells the server.
func (e *perEditEditor) apply(ctx context.Context, u uri.URI, version *int32, edits []wireTextEdit) error {
	e.mu.Lock()
	d, ok := e.docs[u]
	if !ok {
		e.mu.Unlock()
		return fmt.Errorf("%s is not open", u)
	}
	if version != nil && *version != d.version {
		e.mu.Unlock()
		return fmt.Errorf("edit for version %d, buffer at %d", *version, d.version)
	}
	te := make([]workspace.TextEdit, len(edits))
	for i, x := range edits {
		te[i] = x.edit()
	}
	order := lastFirst(edits)
	changes := make([]map[string]any, len(order))
	for i, x := range order {
		changes[i] = map[string]any{"range": x.Range, "text": x.NewText}
	}
	text, err := workspace.ApplyEdits(d.text, te, e.enc)
	if err != nil {
		e.mu.Unlock()
		return fmt.Errorf("applying edits to %s: %w", d.path, err)
	}
	d.text = text
	d.version++
	params := map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": d.version},
		"contentChanges": changes,
	}
	e.mu.Unlock()
	return e.Notify(ctx, "textDocument/didChange", params)
}

// lastFirst orders edits for a didChange, whose changes apply one after
// another: last first, so each range is valid in the text the one before
// left. Reversing before the stable sort keeps insertions at one place in
// their order.
func lastFirst(edits []wireTextEdit) []wireTextEdit {
	order := slices.Clone(edits)
	slices.Reverse(order)
	slices.SortStableFunc(order, func(a, b wireTextEdit) int {
		return -cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	return order
}

func TestLastFirstChangesApplyInTurnLikeTheEdit(t *testing.T) {
	at := func(line, char int) wirePosition { return wirePosition{Line: line, Character: char} }
	edits := []wireTextEdit{
		{Range: wireRange{at(0, 1), at(0, 1)}, NewText: "A"},
		{Range: wireRange{at(0, 1), at(0, 1)}, NewText: "B"},
		{Range: wireRange{at(2, 0), at(2, 3)}, NewText: "three"},
		{Range: wireRange{at(0, 2), at(1, 1)}, NewText: "-"},
	}
	text := "abc\ndef\nghi\n"
	all := make([]workspace.TextEdit, len(edits))
	for i, e := range edits {
		all[i] = e.edit()
	}
	want, err := workspace.ApplyEdits(text, all, workspace.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	got := text
	for _, e := range lastFirst(edits) {
		if got, err = workspace.ApplyEdits(got, []workspace.TextEdit{e.edit()}, workspace.UTF16); err != nil {
			t.Fatal(err)
		}
	}
	if got != want {
		t.Errorf("changes applied in turn give %q, the edit gives %q", got, want)
	}
}
