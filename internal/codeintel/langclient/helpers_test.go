package langclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient/langservertest"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeEnv); mode != "" {
		os.Exit(runFakeServer(mode))
	}
	os.Exit(m.Run())
}

// langserver returns the path of the pinned language server name
// (langservertest.Find).
func langserver(t *testing.T, name string) string {
	t.Helper()
	return langservertest.Find(t, name)
}

// writeTree writes files (slash paths relative to dir → content) under
// dir, which it returns with its symlinks resolved.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newManager(t *testing.T, root string, servers map[string]ServerConfig) *Manager {
	t.Helper()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := New(ws, servers, spawn.NewDoor(spawn.Rules{Roots: ws.Roots}), nil)
	allowAll(t, m)
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// allowAll has the user say yes, for m's session, to every server m
// may start that is not confined: these tests are of what the servers
// answer, not of the question (confine_test.go).
func allowAll(t *testing.T, m *Manager) {
	t.Helper()
	yes := func(context.Context, spawn.Question) (bool, error) { return true, nil }
	for _, s := range m.specs {
		if err := m.door.Allow(context.Background(), spawn.LanguageServer{Name: s.name, Risk: "a test's code"}, yes); err != nil {
			t.Fatal(err)
		}
	}
}

// at is a request of op about the n-th (0-based) occurrence of symbol
// in the file at path, on the first line holding lineHas.
func at(t *testing.T, op codeintel.Op, path, lineHas, symbol string) codeintel.Request {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, lineHas) {
			continue
		}
		col := strings.Index(line, symbol)
		if col < 0 {
			t.Fatalf("%q not on the line %q", symbol, line)
		}
		return codeintel.Request{Op: op, Path: path, Text: text, Position: workspace.Position{Line: i, Character: col}}
	}
	t.Fatalf("no line of %s holds %q", path, lineHas)
	return codeintel.Request{}
}

// location is an LSP Location or LocationLink, read as a Location.
type location struct {
	URI   string `json:"uri"`
	Range struct {
		Start lspPosition `json:"start"`
	} `json:"range"`
	TargetURI   string `json:"targetUri"`
	TargetRange struct {
		Start lspPosition `json:"start"`
	} `json:"targetSelectionRange"`
}

// where is a location as "file:line" (1-based line, file relative to root).
func (l location) where(root string) string {
	u, start := l.URI, l.Range.Start
	if l.TargetURI != "" {
		u, start = l.TargetURI, l.TargetRange.Start
	}
	rel, err := filepath.Rel(root, uriPath(u))
	if err != nil {
		rel = u
	}
	return filepath.ToSlash(rel) + ":" + strconv.Itoa(start.Line+1)
}

// locations reads a Location[] | LocationLink[] | Location answer as
// "file:line"s.
func locations(t *testing.T, root string, raw json.RawMessage) []string {
	t.Helper()
	var many []location
	if err := json.Unmarshal(raw, &many); err != nil {
		var one location
		if err := json.Unmarshal(raw, &one); err != nil {
			t.Fatalf("not locations: %s", raw)
		}
		many = []location{one}
	}
	var out []string
	for _, l := range many {
		out = append(out, l.where(root))
	}
	return out
}

// lineOf is the 1-based line of path (relative to root) holding s.
func lineOf(t *testing.T, root, rel, s string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, s) {
			return rel + ":" + strconv.Itoa(i+1)
		}
	}
	t.Fatalf("no line of %s holds %q", rel, s)
	return ""
}

// applyWorkspaceEdit writes a WorkspaceEdit's text edits (changes or
// documentChanges) to the files, and returns the files it changed.
func applyWorkspaceEdit(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	type textEdit struct {
		Range struct {
			Start lspPosition `json:"start"`
			End   lspPosition `json:"end"`
		} `json:"range"`
		NewText string `json:"newText"`
	}
	var edit struct {
		Changes         map[string][]textEdit `json:"changes"`
		DocumentChanges []struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []textEdit `json:"edits"`
		} `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &edit); err != nil {
		t.Fatalf("not a WorkspaceEdit: %v: %s", err, raw)
	}
	byURI := edit.Changes
	if byURI == nil {
		byURI = map[string][]textEdit{}
	}
	for _, dc := range edit.DocumentChanges {
		byURI[dc.TextDocument.URI] = append(byURI[dc.TextDocument.URI], dc.Edits...)
	}
	var changed []string
	for u, edits := range byURI {
		path := uriPath(u)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wsEdits []workspace.TextEdit
		for _, e := range edits {
			wsEdits = append(wsEdits, workspace.TextEdit{
				Range: workspace.Range{
					Start: workspace.Position{Line: e.Range.Start.Line, Character: e.Range.Start.Character},
					End:   workspace.Position{Line: e.Range.End.Line, Character: e.Range.End.Character},
				},
				NewText: e.NewText,
			})
		}
		text, err := workspace.ApplyEdits(string(data), wsEdits, workspace.UTF16)
		if err != nil {
			t.Fatalf("applying the edits to %s: %v", path, err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		changed = append(changed, path)
	}
	return changed
}
