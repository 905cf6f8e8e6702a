package frontmatter

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// FuzzParse: whatever the front matter, Parse returns a well-formed
// Value or a *SyntaxError; Split finds front matter only at the start and
// a body that ends the file; and a string written as YAML writes it,
// double-quoted with escapes or single-quoted, reads back as itself.
// The properties hold whatever reads the YAML underneath.
//
//	go test -run '^$' -fuzz FuzzParse ./internal/frontmatter/
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"tools: [read_file, 'grep_search', \"glob\"]",
		"tools:\n  - read_file\n  - glob\nname: a",
		"tools:\n- read_file\n- glob\nname: a",
		"temperature: 0.2\nmax_turns: 10\nhex: 0x10\nok: true\nno: False\nnothing:\ntilde: ~",
		"a: '1'\nb: \"true\"",
		"auth:\n  type: http\n  scheme: Bearer\n  token: \"abc\"\n",
		"auth: {type: apiKey, key: k1}",
		"- name: a\n  agent_card_url: http://x/card\n- name: b\n  agent_card_json: '{}'",
		"x:\n  - - 1\n    - 2\n  - [3]",
		"a: |\n  one\n  two\nb: >-\n  one\n  two\n",
		"# head\nname: a # tail\ntools: # list\n  # inside\n  - x\n",
		"agent_card_url: https://example.com:8080/card",
		"\"name\": a\n'max_turns': 3",
		"a: &x 1",
		"a: \"multi\n  line\"\nb: 'it''s'",
		"a: [{b: [c, {d: e}]}, 'f']",
		"- - - -\n",
		"a: |+\n\n  x\n\n",
	} {
		f.Add("---\n"+s+"\n---\nbody", "it's \"quoted\" \\ é \u2603 \t end")
	}
	f.Fuzz(func(t *testing.T, content, s string) {
		front, body, ok := Split(content)
		if ok {
			if !strings.HasPrefix(content, "---") || !strings.Contains(content, front) || !strings.HasSuffix(content, body) {
				t.Fatalf("Split(%q) = %q, %q", content, front, body)
			}
		} else {
			front = content
		}
		v, err := Parse(front)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Parse(%q): %T %v, want a *SyntaxError", front, err, err)
			}
		} else {
			checkWellFormed(t, front, v, 0)
		}

		if !utf8Printable(s) {
			return
		}
		for _, doc := range []string{"k: " + strconv.Quote(s), "k: '" + strings.ReplaceAll(s, "'", "''") + "'"} {
			v, err := Parse(doc)
			if err != nil {
				t.Fatalf("Parse(%q): %v", doc, err)
			}
			if got, ok := v.Get("k"); v.Kind != Map || !ok || got.Kind != String || got.Text != s {
				t.Fatalf("Parse(%q) = %+v, want the string %q", doc, v, s)
			}
		}
	})
}

// utf8Printable reports whether s is text YAML lets a quoted scalar hold
// on one line: printable characters, spaces and tabs, no line break.
func utf8Printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || r == '\u2028' || r == '\u2029' || r == '\u0085' || (!unicode.IsPrint(r) && r != ' ' && r != '\t') {
			return false
		}
	}
	return true
}

func checkWellFormed(t *testing.T, text string, v Value, depth int) {
	t.Helper()
	if depth > 1000 {
		t.Fatalf("Parse(%q): a value nested over 1000 deep", text)
	}
	switch v.Kind {
	case Map:
		if len(v.Keys) != len(v.Fields) {
			t.Fatalf("Parse(%q): %d keys for %d fields", text, len(v.Keys), len(v.Fields))
		}
		for _, k := range v.Keys {
			f, ok := v.Fields[k]
			if !ok {
				t.Fatalf("Parse(%q): key %q has no field", text, k)
			}
			checkWellFormed(t, text, f, depth+1)
		}
	case List:
		for _, x := range v.List {
			checkWellFormed(t, text, x, depth+1)
		}
	case Null, String, Number, Bool, Date, Other:
		if v.Keys != nil || v.Fields != nil || v.List != nil {
			t.Fatalf("Parse(%q): a %v holding a list or fields: %+v", text, v.Kind, v)
		}
	default:
		t.Fatalf("Parse(%q): kind %d", text, v.Kind)
	}
}
