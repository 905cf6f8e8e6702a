package codeintel

// One decoder reads every provider's answer: the LSP shapes each
// operation may take (a Location or an array of them or of
// LocationLinks; a Hover's three kinds of contents; hierarchical or
// flat symbols), so that the tools see one Go value per operation.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Location is a span of a file, in the Answer's encoding.
type Location struct {
	// Path is the file, absolute; "" for a URI that names no file (an
	// untitled buffer, a jar: entry), whose URI is then in URI.
	Path  string
	URI   string
	Range workspace.Range
}

// Symbol is a document's or the workspace's symbol.
type Symbol struct {
	Name, Detail string
	Kind         string // "function", "method"…; "" when unknown
	// Location is where it is: its selection range (the name) where the
	// server told one, else its whole range.
	Location Location
	// Depth is how deep it is nested in the document's outline: 0 at the
	// top.
	Depth int
	// Container names what holds it, where the server said.
	Container string
}

// Call is one caller (incoming) or callee (outgoing) of a symbol, with
// the lines of the calls.
type Call struct {
	// Symbol is the caller or callee.
	Symbol Symbol
	// Sites are the calls: in Symbol's file for an incoming call, in the
	// asked symbol's file for an outgoing one.
	Sites []Location
}

// Edit is a rename's text edits of one file.
type Edit struct {
	Path  string
	URI   string
	Edits []workspace.TextEdit
}

type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (r wireRange) toRange() workspace.Range {
	return workspace.Range{
		Start: workspace.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   workspace.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

// wireLocation is a Location or a LocationLink, or a WorkspaceSymbol's
// location without a range.
type wireLocation struct {
	URI                  string     `json:"uri"`
	Range                *wireRange `json:"range"`
	TargetURI            string     `json:"targetUri"`
	TargetRange          *wireRange `json:"targetRange"`
	TargetSelectionRange *wireRange `json:"targetSelectionRange"`
}

func (l wireLocation) toLocation() Location {
	u, r := l.URI, l.Range
	if l.TargetURI != "" {
		u, r = l.TargetURI, l.TargetSelectionRange
		if r == nil {
			r = l.TargetRange
		}
	}
	loc := Location{URI: u, Path: PathOf(u)}
	if r != nil {
		loc.Range = r.toRange()
	}
	return loc
}

// PathOf is the file a file: URI names, cleaned; "" for any other URI.
func PathOf(s string) string {
	u, err := uri.Parse(s)
	if err != nil || u.Scheme() != "file" {
		return ""
	}
	p := filepath.Clean(u.FsPath())
	if vol := filepath.VolumeName(p); len(vol) == 2 && vol[1] == ':' {
		p = strings.ToUpper(vol) + p[2:]
	}
	return p
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// Locations decodes a definition's, an implementation's or the
// references' answer.
func Locations(raw json.RawMessage) ([]Location, error) {
	if isNull(raw) {
		return nil, nil
	}
	var many []wireLocation
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if err := json.Unmarshal(raw, &many); err != nil {
			return nil, fmt.Errorf("decoding locations: %w", err)
		}
	} else {
		var one wireLocation
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("decoding a location: %w", err)
		}
		many = []wireLocation{one}
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		out = append(out, l.toLocation())
	}
	return out, nil
}

// HoverText decodes a hover's contents as Markdown; "" when there is
// none.
func HoverText(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("decoding a hover: %w", err)
	}
	return markedText(h.Contents)
}

// markedText is MarkupContent, a MarkedString or an array of them, as
// Markdown.
func markedText(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case isNull(t):
		return "", nil
	case t[0] == '"':
		var s string
		err := json.Unmarshal(t, &s)
		return s, err
	case t[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(t, &parts); err != nil {
			return "", fmt.Errorf("decoding hover contents: %w", err)
		}
		var texts []string
		for _, p := range parts {
			s, err := markedText(p)
			if err != nil {
				return "", err
			}
			if s != "" {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n\n"), nil
	}
	var m struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if err := json.Unmarshal(t, &m); err != nil {
		return "", fmt.Errorf("decoding hover contents: %w", err)
	}
	if m.Language != "" {
		return "```" + m.Language + "\n" + m.Value + "\n```", nil
	}
	return m.Value, nil
}

type wireSymbol struct {
	Name           string        `json:"name"`
	Detail         string        `json:"detail"`
	Kind           int           `json:"kind"`
	Range          *wireRange    `json:"range"`
	SelectionRange *wireRange    `json:"selectionRange"`
	Children       []wireSymbol  `json:"children"`
	Location       *wireLocation `json:"location"`
	ContainerName  string        `json:"containerName"`
	URI            string        `json:"uri"` // a CallHierarchyItem's
}

// Symbols decodes a document's symbols (hierarchical or flat) or the
// workspace's; doc is the asked document's URI, for hierarchical ones,
// which carry none.
func Symbols(raw json.RawMessage, doc string) ([]Symbol, error) {
	if isNull(raw) {
		return nil, nil
	}
	var ws []wireSymbol
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("decoding symbols: %w", err)
	}
	var out []Symbol
	var walk func([]wireSymbol, int, string)
	walk = func(list []wireSymbol, depth int, container string) {
		for _, w := range list {
			s := w.toSymbol(doc)
			s.Depth = depth
			if s.Container == "" {
				s.Container = container
			}
			out = append(out, s)
			walk(w.Children, depth+1, w.Name)
		}
	}
	walk(ws, 0, "")
	return out, nil
}

func (w wireSymbol) toSymbol(doc string) Symbol {
	s := Symbol{Name: w.Name, Detail: w.Detail, Kind: SymbolKind(w.Kind), Container: w.ContainerName}
	switch {
	case w.Location != nil:
		s.Location = w.Location.toLocation()
	default:
		u := w.URI
		if u == "" {
			u = doc
		}
		s.Location = Location{URI: u, Path: PathOf(u)}
		if r := w.SelectionRange; r != nil {
			s.Location.Range = r.toRange()
		} else if w.Range != nil {
			s.Location.Range = w.Range.toRange()
		}
	}
	return s
}

// symbolKinds are LSP's SymbolKind names, from 1.
var symbolKinds = [...]string{"file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

// SymbolKind names LSP's SymbolKind k; "" for one it does not know.
func SymbolKind(k int) string {
	if k < 1 || k > len(symbolKinds) {
		return ""
	}
	return symbolKinds[k-1]
}

// Calls decodes incoming_calls' or outgoing_calls' answer.
func Calls(raw json.RawMessage, incoming bool, doc string) ([]Call, error) {
	if isNull(raw) {
		return nil, nil
	}
	var ws []struct {
		From       *wireSymbol `json:"from"`
		To         *wireSymbol `json:"to"`
		FromRanges []wireRange `json:"fromRanges"`
	}
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("decoding calls: %w", err)
	}
	out := make([]Call, 0, len(ws))
	for _, w := range ws {
		item := w.To
		if incoming {
			item = w.From
		}
		if item == nil {
			continue
		}
		c := Call{Symbol: item.toSymbol(doc)}
		siteURI := doc
		if incoming {
			siteURI = c.Symbol.Location.URI
		}
		for _, r := range w.FromRanges {
			c.Sites = append(c.Sites, Location{URI: siteURI, Path: PathOf(siteURI), Range: r.toRange()})
		}
		out = append(out, c)
	}
	return out, nil
}

// Edits decodes a rename's WorkspaceEdit, its text edits by file in the
// order the answer gave them. A file creation, rename or deletion is
// refused: a rename of a symbol that moves files (a module's) is not
// for an edit the user reviews as text.
func Edits(raw json.RawMessage) ([]Edit, error) {
	if isNull(raw) {
		return nil, nil
	}
	var we struct {
		Changes         map[string][]wireTextEdit `json:"changes"`
		DocumentChanges []json.RawMessage         `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("decoding the rename's edit: %w", err)
	}
	var out []Edit
	add := func(u string, edits []wireTextEdit) {
		for i := range out {
			if out[i].URI == u {
				out[i].Edits = append(out[i].Edits, toEdits(edits)...)
				return
			}
		}
		out = append(out, Edit{URI: u, Path: PathOf(u), Edits: toEdits(edits)})
	}
	if len(we.DocumentChanges) > 0 {
		for _, dc := range we.DocumentChanges {
			var c struct {
				Kind         string `json:"kind"`
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits []wireTextEdit `json:"edits"`
			}
			if err := json.Unmarshal(dc, &c); err != nil {
				return nil, fmt.Errorf("decoding the rename's edit: %w", err)
			}
			if c.Kind != "" {
				return nil, fmt.Errorf("the rename would %s a file, which rename_symbol does not do", c.Kind)
			}
			add(c.TextDocument.URI, c.Edits)
		}
		return out, nil
	}
	// A map has no order: by URI, so the same answer reads the same.
	uris := make([]string, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	for _, u := range uris {
		add(u, we.Changes[u])
	}
	return out, nil
}

type wireTextEdit struct {
	Range   wireRange `json:"range"`
	NewText string    `json:"newText"`
}

func toEdits(ws []wireTextEdit) []workspace.TextEdit {
	out := make([]workspace.TextEdit, len(ws))
	for i, w := range ws {
		out[i] = workspace.TextEdit{Range: w.Range.toRange(), NewText: w.NewText}
	}
	return out
}

// URIOf is the file: URI of path, absolute.
func URIOf(path string) string { return string(uri.File(path)) }
