package lsptest

import (
	"encoding/json"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// Diagnostic is a problem the editor's other language servers report in a
// buffer, as LSP's Diagnostic says it.
type Diagnostic struct {
	// Line and Character are where it starts, 0-based, in the
	// connection's position encoding; it ends at the end of that line.
	Line, Character int
	// Severity is LSP's: 1 error, 2 warning, 3 information, 4 hint.
	Severity int
	Message  string
	Source   string
	Code     any
}

// WithDiagnostics is p declaring experimental.gemini.diagnostics: the
// client answers gemini/diagnostics with what Client.Lint says of its
// buffers, as our plugins answer with the editor's diagnostics.
func (p Profile) WithDiagnostics() Profile {
	p.Capabilities = withGeminiCapability(p.Capabilities, "diagnostics")
	p.Name += " with diagnostics"
	p.Diagnostics = true
	return p
}

// diagnostics answers gemini/diagnostics: the diagnostics Lint finds in
// the buffers asked about (every open one when none is named), each
// named by its URI.
func (c *Client) diagnostics(params json.RawMessage) (any, error) {
	var p struct {
		URIs []string `json:"uris"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	type item struct {
		URI         string           `json:"uri"`
		Diagnostics []map[string]any `json:"diagnostics"`
		Pending     bool             `json:"pending,omitempty"`
	}
	c.mu.Lock()
	texts := map[string]string{}
	for path, b := range c.buffers {
		texts[path] = b.text
	}
	c.mu.Unlock()
	var paths []string
	if len(p.URIs) == 0 {
		for path := range texts {
			paths = append(paths, path)
		}
		slices.Sort(paths)
	}
	for _, u := range p.URIs {
		paths = append(paths, uri.URI(u).FsPath())
	}
	items := []item{}
	for _, path := range paths {
		it := item{URI: string(uri.File(path)), Diagnostics: []map[string]any{}}
		if text, open := texts[path]; open && c.Lint != nil {
			for _, d := range c.Lint(path, text) {
				it.Diagnostics = append(it.Diagnostics, d.wire())
			}
			it.Pending = c.Pending != nil && c.Pending(path)
		}
		items = append(items, it)
	}
	return map[string]any{"items": items}, nil
}

func (d Diagnostic) wire() map[string]any {
	w := map[string]any{
		"range": map[string]any{
			"start": map[string]int{"line": d.Line, "character": d.Character},
			"end":   map[string]int{"line": d.Line + 1, "character": 0},
		},
		"message": d.Message,
	}
	if d.Severity != 0 {
		w["severity"] = d.Severity
	}
	if d.Source != "" {
		w["source"] = d.Source
	}
	if d.Code != nil {
		w["code"] = d.Code
	}
	return w
}
