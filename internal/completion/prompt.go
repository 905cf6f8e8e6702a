package completion

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// cursorMarker marks the cursor in a completion prompt.
const cursorMarker = "<|cursor|>"

const completionSystem = `You are a code completion engine inside the user's editor. You are shown the file being edited, with the marker ` + cursorMarker + ` where the user's cursor is, and what the user did lately.

Answer with only the text to insert at the cursor: no explanation, no Markdown fence, nothing that is already before or after the cursor. When the cursor is in the middle of a line, complete that line only. Continue the code as the user most likely would, in the file's own style and indentation. When nothing useful should be inserted, answer with nothing at all.`

// What a prompt may hold beyond the file's windows, in bytes.
const (
	relatedFiles      = 3
	relatedSnippet    = 1200
	projectContext    = 2000
	diagnosticsAround = 10 // lines either side of the cursor
)

// prompt is the completion prompt for req at w in doc.
func (e *Engine) prompt(ctx context.Context, doc workspace.Document, w window, req Request, b Backend) string {
	var p strings.Builder
	e.writeContext(ctx, &p, doc, b)
	writeDiagnostics(&p, req.Diagnostics, w.line)
	fmt.Fprintf(&p, "<file path=%q language=%q>\n", e.display(doc.Path), doc.LanguageID)
	p.WriteString(w.prefix)
	p.WriteString(cursorMarker)
	p.WriteString(w.suffix)
	p.WriteString("\n</file>\n")
	return p.String()
}

// writeContext writes what every prompt shows before the file: the
// project's context when it is short, the recent edits and snippets of
// the related open buffers, none of a private file.
func (e *Engine) writeContext(ctx context.Context, p *strings.Builder, doc workspace.Document, b Backend) {
	if b.Project != nil {
		if text := strings.TrimSpace(b.Project()); text != "" && len(text) <= projectContext {
			fmt.Fprintf(p, "<project_context>\n%s\n</project_context>\n", text)
		}
	}
	edits := e.history.recent()
	wrote := false
	for _, ed := range edits {
		if e.private.isPrivate(ctx, ed.Path) {
			continue
		}
		if !wrote {
			p.WriteString("<recent_edits>\n")
			wrote = true
		}
		writeEdit(p, e.display(ed.Path), ed)
	}
	if wrote {
		p.WriteString("</recent_edits>\n")
	}
	for _, r := range e.related(ctx, doc, edits) {
		fmt.Fprintf(p, "<related_file path=%q>\n%s\n</related_file>\n", e.display(r.Path), r.Text)
	}
}

// writeEdit writes one edit as a diff of its lines.
func writeEdit(p *strings.Builder, path string, ed edit) {
	fmt.Fprintf(p, "--- %s:%d\n", path, ed.Line+1)
	writeLines(p, '-', ed.Old)
	writeLines(p, '+', ed.New)
}

// writeLines writes text's lines, each after sign; nothing for no text.
func writeLines(p *strings.Builder, sign byte, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		p.WriteByte(sign)
		p.WriteString(l)
		p.WriteByte('\n')
	}
}

// writeDiagnostics writes the editor's diagnostics near line.
func writeDiagnostics(p *strings.Builder, diags []Diagnostic, line int) {
	wrote := false
	for _, d := range diags {
		if d.Line < line-diagnosticsAround || d.Line > line+diagnosticsAround {
			continue
		}
		if !wrote {
			p.WriteString("<diagnostics>\n")
			wrote = true
		}
		fmt.Fprintf(p, "line %d: %s: %s\n", d.Line+1, cmp.Or(d.Severity, "error"), strings.ReplaceAll(d.Message, "\n", " "))
	}
	if wrote {
		p.WriteString("</diagnostics>\n")
	}
}

// snippet is part of a related buffer.
type snippet struct {
	Path, Text string
}

// related picks up to relatedFiles other open buffers, those the user
// edited lately first, then those they looked at lately (didFocus), then
// those of the same language, and takes a snippet of each: the lines
// around its last edit, else its start.
func (e *Engine) related(ctx context.Context, doc workspace.Document, edits []edit) []snippet {
	var out []snippet
	taken := map[string]bool{doc.Path: true}
	add := func(d workspace.Document) {
		if len(out) >= relatedFiles || taken[d.Path] || e.private.isPrivate(ctx, d.Path) {
			return
		}
		taken[d.Path] = true
		at := 0
		if ed, ok := e.history.lastIn(d.Path); ok {
			at = min(ed.Offset, len(d.Text))
		}
		out = append(out, snippet{Path: d.Path, Text: around(d.Text, at, relatedSnippet)})
	}
	for i := len(edits) - 1; i >= 0 && len(out) < relatedFiles; i-- {
		if d, ok := e.docs.Get(edits[i].Path); ok {
			add(d)
		}
	}
	for _, path := range e.viewed.recent() {
		if d, ok := e.docs.Get(path); ok {
			add(d)
		}
	}
	if len(out) < relatedFiles {
		for _, d := range e.docs.List() {
			if d.LanguageID == doc.LanguageID {
				add(d)
			}
		}
	}
	return out
}

// around is up to n bytes of text around offset at, cut at lines.
func around(text string, at, n int) string {
	start, end := aroundBounds(text, at, n)
	return text[start:end]
}

// aroundBounds are the bounds of up to n bytes of text around offset at,
// cut at lines.
func aroundBounds(text string, at, n int) (start, end int) {
	start = max(at-n/2, 0)
	if start > 0 {
		if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
			start += i + 1
		}
	}
	end = min(start+n, len(text))
	if end < len(text) {
		if i := strings.LastIndexByte(text[start:end], '\n'); i > 0 {
			end = start + i
		}
	}
	return start, end
}

// display is path as the prompt names it: relative to its root.
func (e *Engine) display(path string) string {
	if e.ws != nil {
		if root := e.ws.RootOf(path); root != "" {
			if rel, err := filepath.Rel(root, path); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.Base(path)
}

// viewed are the documents the user looked at lately, most recent first.
type viewed struct {
	mu    sync.Mutex
	paths []string
}

// focus puts path first.
func (v *viewed) focus(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.paths = slices.DeleteFunc(v.paths, func(p string) bool { return p == path })
	v.paths = slices.Insert(v.paths, 0, path)
	if len(v.paths) > relatedFiles {
		v.paths = v.paths[:relatedFiles]
	}
}

func (v *viewed) recent() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.paths)
}
