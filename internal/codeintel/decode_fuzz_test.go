package codeintel

import (
	"encoding/json"
	"testing"
)

// Whatever a language server (or an editor) answers, the decoders
// return values or an error, never panic; a rename's edits name files
// only by what the answer said, and a file operation is always refused.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`null`, `[]`, `{}`, `"x"`,
		`[{"uri": "file:///a.go", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 3}}}]`,
		`[{"targetUri": "file:///a.go", "targetSelectionRange": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}]`,
		`{"contents": [{"language": "go", "value": "x"}, "y", {"kind": "markdown", "value": "z"}]}`,
		`[{"name": "T", "kind": 23, "children": [{"name": "M", "kind": 6, "children": [{"name": "N"}]}]}]`,
		`[{"from": {"name": "f", "uri": "file:///b.go"}, "fromRanges": [{"start": {"line": 3}}]}]`,
		`{"changes": {"file:///a.go": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "newText": "b"}]}}`,
		`{"documentChanges": [{"kind": "delete", "uri": "file:///a.go"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := json.RawMessage(data)
		_, _ = Locations(raw)
		_, _ = HoverText(raw)
		_, _ = Symbols(raw, "file:///doc.go")
		_, _ = Calls(raw, true, "file:///doc.go")
		_, _ = Calls(raw, false, "file:///doc.go")
		edits, err := Edits(raw)
		if err != nil {
			return
		}
		var we struct {
			DocumentChanges []struct {
				Kind string `json:"kind"`
			} `json:"documentChanges"`
		}
		if json.Unmarshal(data, &we) == nil {
			for _, dc := range we.DocumentChanges {
				if dc.Kind != "" {
					t.Fatalf("a %q file operation decoded as %d edits", dc.Kind, len(edits))
				}
			}
		}
		for _, e := range edits {
			if e.Path != "" && e.Path != PathOf(e.URI) {
				t.Fatalf("edit path %q for URI %q", e.Path, e.URI)
			}
		}
	})
}
