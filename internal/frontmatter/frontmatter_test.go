package frontmatter

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// plain turns a Value into Go values, for comparison.
func plain(v Value) any {
	switch v.Kind {
	case String:
		return v.Text
	case Number:
		return v.Num
	case Bool:
		return v.Bool
	case List:
		out := []any{}
		for _, x := range v.List {
			out = append(out, plain(x))
		}
		return out
	case Map:
		out := map[string]any{}
		for _, k := range v.Keys {
			out[k] = plain(v.Fields[k])
		}
		return out
	case Other:
		return "<other>"
	}
	return nil
}

func TestParseReadsWhatAgentsWrite(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       any
	}{
		{"flow list", "tools: [read_file, 'grep_search', \"glob\"]", map[string]any{"tools": []any{"read_file", "grep_search", "glob"}}},
		{"block list", "tools:\n  - read_file\n  - glob\nname: a", map[string]any{"tools": []any{"read_file", "glob"}, "name": "a"}},
		{"list at the key's indentation", "tools:\n- read_file\n- glob\nname: a", map[string]any{"tools": []any{"read_file", "glob"}, "name": "a"}},
		{"numbers and booleans", "temperature: 0.2\nmax_turns: 10\nhex: 0x10\nok: true\nno: False\nnothing:\ntilde: ~", map[string]any{"temperature": 0.2, "max_turns": 10.0, "hex": 16.0, "ok": true, "no": false, "nothing": nil, "tilde": nil}},
		{"quoted numbers stay strings", "a: '1'\nb: \"true\"", map[string]any{"a": "1", "b": "true"}},
		{"nested map", "auth:\n  type: http\n  scheme: Bearer\n  token: \"abc\"\n", map[string]any{"auth": map[string]any{"type": "http", "scheme": "Bearer", "token": "abc"}}},
		{"flow map", "auth: {type: apiKey, key: k1}", map[string]any{"auth": map[string]any{"type": "apiKey", "key": "k1"}}},
		{"list of maps at the top", "- name: a\n  agent_card_url: http://x/card\n- name: b\n  agent_card_json: '{}'", []any{map[string]any{"name": "a", "agent_card_url": "http://x/card"}, map[string]any{"name": "b", "agent_card_json": "{}"}}},
		{"list of lists", "x:\n  - - 1\n    - 2\n  - [3]", map[string]any{"x": []any{[]any{1.0, 2.0}, []any{3.0}}}},
		{"block scalars", "a: |\n  one\n  two\nb: >-\n  one\n  two\n", map[string]any{"a": "one\ntwo\n", "b": "one two"}},
		{"comments", "# head\nname: a # tail\ntools: # list\n  # inside\n  - x\n", map[string]any{"name": "a", "tools": []any{"x"}}},
		{"url with colon", "agent_card_url: https://example.com:8080/card", map[string]any{"agent_card_url": "https://example.com:8080/card"}},
		{"quoted keys", "\"name\": a\n'max_turns': 3", map[string]any{"name": "a", "max_turns": 3.0}},
		{"empty", "", nil},
		{"anchors are beyond the subset", "a: &x 1", map[string]any{"a": "<other>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse(tc.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := plain(v); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestParseRefusesWhatYAMLRefuses(t *testing.T) {
	for _, text := range []string{
		"a: 1\na: 2",         // duplicate key
		"a: b: c",            // a second mapping value
		"a: [1, 2",           // unterminated flow
		"a: 'x",              // unterminated quote
		"a:\n    - x\n  - y", // bad indentation
		"a: 1\n- b",          // a sequence item in a mapping
		"a: {x: 1, x: 2}",    // duplicate key in flow
		"a: [1] trailing",    // text after a flow collection
		"- a\nb: 1",          // a mapping entry in a sequence
	} {
		if v, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = %#v, want an error", text, plain(v))
		}
	}
}

func TestSyntaxErrorNamesTheLine(t *testing.T) {
	_, err := Parse("name: a\ndescription: b\ntools: [x\n")
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err = %v, want one naming line 3", err)
	}
}

func TestSplit(t *testing.T) {
	front, body, ok := Split("---\r\nname: a\r\n---\r\nbody\n")
	if !ok || front != "name: a" || body != "body\n" {
		t.Errorf("Split = %q, %q, %v", front, body, ok)
	}
	if _, _, ok := Split("name: a\n---\n"); ok {
		t.Error("Split found front matter that does not start the file")
	}
}

func TestParseIsLinear(t *testing.T) {
	nested := func(unit string) func(int) string {
		return func(size int) string {
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				b.WriteString(strings.Repeat(" ", i%512) + unit)
			}
			return b.String()
		}
	}
	after := func(head, unit string) func(int) string {
		return func(size int) string { return head + lineartest.Repeat(unit)(size) }
	}
	for name, input := range map[string]func(int) string{
		"list markers on a line":  lineartest.Repeat("- "),
		"list markers on lines":   lineartest.Repeat("-\n"),
		"nested lists":            nested("- x\n"),
		"nested maps":             nested("a:\n"),
		"flow brackets":           lineartest.Repeat("["),
		"flow maps":               lineartest.Repeat("{a: "),
		"keys":                    lineartest.Repeat("a: b\n"),
		"a folded plain scalar":   after("a: ", "x\n "),
		"quotes":                  after("a: '", "''"),
		"a block scalar":          after("a: |\n", "  x\n"),
		"aliases":                 after("a: &a [x]\nb: [", "*a, "),
		"list markers and spaces": lineartest.Repeat("- - - -\n  "),
	} {
		lineartest.Linear(t, name, input, func(s string) { Parse(s) })
	}
}

func TestBlockScalarEndingTheInputKeepsItsLineBreak(t *testing.T) {
	v, err := Parse("a: |\n  one\n  two")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Fields["a"].Text; got != "one\ntwo\n" {
		t.Errorf("a = %q, want %q as js-yaml reads it", got, "one\ntwo\n")
	}
}

// Split agrees with Gemini CLI's FRONTMATTER_REGEX on every text made of
// the pieces that matter to it.
func TestSplitAgreesWithTheRegex(t *testing.T) {
	re := regexp.MustCompile(`(?s)^---\r?\n(.*?)\r?\n---(?:\r?\n(.*))?`)
	pieces := []string{"---", "-", "\n", "\r", "\r\n", "a", " "}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString("---\n")
		}
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		front, body, ok := Split(text)
		m := re.FindStringSubmatch(text)
		if ok != (m != nil) || ok && (front != m[1] || body != m[2]) {
			t.Fatalf("Split(%q) = %q, %q, %v; the regex finds %q", text, front, body, ok, m)
		}
	}
}

func TestSplitIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"a long body":      func(size int) string { return "---\na: b\n---\n" + lineartest.Repeat("---\n")(size) },
		"never closed":     func(size int) string { return "---\n" + lineartest.Repeat("\n--")(size) },
		"carriage returns": func(size int) string { return "---\r\n" + lineartest.Repeat("\r\r\n-")(size) },
	} {
		lineartest.Linear(t, name, input, func(text string) { Split(text) })
	}
}
