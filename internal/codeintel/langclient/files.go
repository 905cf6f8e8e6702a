package langclient

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// lspDiagnostic is the part of LSP's Diagnostic the tools show.
type lspDiagnostic struct {
	Range struct {
		Start lspPosition `json:"start"`
	} `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

// severityName is LSP's DiagnosticSeverity s as the tools name it.
func severityName(s int) string {
	switch s {
	case 1:
		return "error"
	case 2:
		return "warning"
	case 3:
		return "information"
	case 4:
		return "hint"
	}
	return ""
}

// Diagnostics are the diagnostics the servers already running for the
// files at paths published, of each file's current text (sent them
// first); with no paths, every file's they published. It never starts a
// server: a file whose server is not running is left out. It is
// dialog.DiagnosticsReader's Diagnostics.
func (m *Manager) Diagnostics(ctx context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	if len(paths) == 0 {
		return m.allDiagnostics(), nil
	}
	var out []dialog.FileDiagnostics
	for _, path := range paths {
		srv, languageID := m.running(path)
		if srv == nil {
			continue
		}
		f, err := m.ws.ReadFile(ctx, path, maxSyncedFile)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			continue
		}
		items, ok, err := srv.diagnosticsOf(ctx, docSync{path: path, languageID: languageID, text: string(f.Content)}, m.diagnosticsWait)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, dialog.FileDiagnostics{Path: path, Diagnostics: convertDiagnostics(items)})
		}
	}
	return out, nil
}

// allDiagnostics are what every running server last published.
func (m *Manager) allDiagnostics() []dialog.FileDiagnostics {
	var out []dialog.FileDiagnostics
	for _, srv := range m.runningIn("", "") {
		srv.dmu.Lock()
		for path, p := range srv.diags {
			if len(p.items) > 0 {
				out = append(out, dialog.FileDiagnostics{Path: path, Diagnostics: convertDiagnostics(p.items)})
			}
		}
		srv.dmu.Unlock()
	}
	slices.SortFunc(out, func(a, b dialog.FileDiagnostics) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// diagnosticsOf sends the server doc's text, then waits, at most bound,
// for its diagnostics of that text; ok is false when it published none.
func (s *server) diagnosticsOf(ctx context.Context, doc docSync, bound time.Duration) (items []lspDiagnostic, ok bool, err error) {
	s.dmu.Lock()
	before := s.diagSeq
	s.dmu.Unlock()
	s.mu.Lock()
	version, _, err := s.syncLocked(ctx, doc)
	s.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		s.dmu.Lock()
		p, have := s.diags[doc.path]
		changed := s.diagsChanged
		s.dmu.Unlock()
		// Of this text: published for this version or later, or, from a
		// server that names no versions, after the text was sent.
		if have && (p.version != nil && *p.version >= version || p.version == nil && p.seq > before) {
			return p.items, true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return p.items, have, nil // the last published, if any
		case <-s.conn.done:
			return p.items, have, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

func convertDiagnostics(items []lspDiagnostic) []dialog.EditorDiagnostic {
	out := make([]dialog.EditorDiagnostic, 0, len(items))
	for _, d := range items {
		code := strings.TrimSpace(string(d.Code))
		if unquoted, err := strconv.Unquote(code); err == nil {
			code = unquoted
		} else if code == "null" {
			code = ""
		}
		out = append(out, dialog.EditorDiagnostic{
			Line:     d.Range.Start.Line + 1,
			Column:   d.Range.Start.Character + 1,
			Severity: severityName(d.Severity),
			Message:  d.Message,
			Source:   d.Source,
			Code:     code,
		})
	}
	return out
}

// File change types of workspace/didChangeWatchedFiles.
const (
	fileChanged = 2
	fileDeleted = 3
)

// Changed tells the running servers that the files at paths changed on
// disk (the agent wrote or removed them): workspace/didChangeWatchedFiles
// to the servers whose roots hold them, and the new text of those a
// server has open.
func (m *Manager) Changed(ctx context.Context, paths []string) error {
	type current struct {
		text   string
		exists bool
	}
	texts := make(map[string]current, len(paths))
	for _, path := range paths {
		f, err := m.ws.ReadFile(ctx, path, maxSyncedFile)
		switch {
		case err == nil:
			texts[path] = current{text: string(f.Content), exists: true}
		case errors.Is(err, workspace.ErrNotExist):
			texts[path] = current{}
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
	var errs []error
	for _, srv := range m.runningIn("", "") {
		var changes []map[string]any
		srv.mu.Lock()
		for _, path := range paths {
			cur, known := texts[path]
			if !known || !workspace.Within(srv.root, path) && srv.docs[path] == nil {
				continue
			}
			kind := fileChanged
			if !cur.exists {
				kind = fileDeleted
			}
			changes = append(changes, map[string]any{"uri": fileURI(path), "type": kind})
			doc := srv.docs[path]
			switch {
			case doc == nil:
			case !cur.exists:
				errs = append(errs, srv.closeLocked(ctx, path))
			default:
				_, _, err := srv.syncLocked(ctx, docSync{path: path, languageID: doc.languageID, text: cur.text})
				errs = append(errs, err)
			}
		}
		if len(changes) > 0 {
			errs = append(errs, srv.conn.notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes}))
		}
		srv.mu.Unlock()
	}
	return errors.Join(errs...)
}

// ErrNotRunning: no server gemini-ls started runs for the files asked
// about, so it can tell nothing of their diagnostics.
var ErrNotRunning = errors.New("no language server runs for these files")

// EditDiagnostics is Diagnostics for the errors an edit brought
// (tools.WatchEdit): failing with ErrNotRunning, at once, when no
// running server serves any of paths, so that an edit in a language no
// server was started for waits for nothing.
func (m *Manager) EditDiagnostics() dialog.DiagnosticsReader { return editDiagnostics{m} }

type editDiagnostics struct{ m *Manager }

// DiagnosticsSource: the model is told these come from the language
// server, not an editor.
func (editDiagnostics) DiagnosticsSource() string { return "The language server" }

func (e editDiagnostics) Diagnostics(ctx context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	for _, p := range paths {
		if srv, _ := e.m.running(p); srv != nil {
			return e.m.Diagnostics(ctx, paths)
		}
	}
	return nil, ErrNotRunning
}
