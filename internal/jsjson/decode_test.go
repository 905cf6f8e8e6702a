package jsjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/jsjson/jsjsontest"
)

// probe is a shape like the files Gemini CLI reads: a hook's output, a
// settings file's members, an MCP server; nested structs, a promoted
// field, a slice, maps of structs and of anything.
type probe struct {
	Decision *string           `json:"decision"`
	Continue *bool             `json:"continue"`
	Specific *specific         `json:"hookSpecificOutput"`
	Tools    []string          `json:"excludeTools"`
	Servers  map[string]server `json:"mcpServers"`
	Promoted
}

type specific struct {
	Context *string        `json:"additionalContext"`
	Input   map[string]any `json:"tool_input"`
}

type server struct {
	Command *string  `json:"command"`
	Args    []string `json:"args"`
	Trust   *bool    `json:"trust"`
}

// Promoted's field is probe's, as encoding/json promotes it.
type Promoted struct {
	Reason *string `json:"reason"`
}

// project is what Gemini CLI reads of a probe's members after
// JSON.parse: each member by its exact name, as JSON.stringify writes
// it (a missing one null). The Go side's json.Marshal of a decoded probe
// has the same shape.
const project = `
const s = v => v === undefined ? null : v;
const list = v => Array.isArray(v) ? v : null;
const obj = v => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
function server(v) {
  if (!obj(v)) return null;
  return {command: s(own(v, 'command')), args: list(own(v, 'args')), trust: s(own(v, 'trust'))};
}
function probe(v) {
  const h = own(v, 'hookSpecificOutput');
  const m = own(v, 'mcpServers');
  let servers = null;
  if (obj(m)) {
    servers = {};
    for (const k of Object.keys(m)) servers[k] = server(m[k]);
  }
  return {
    decision: s(own(v, 'decision')),
    continue: s(own(v, 'continue')),
    hookSpecificOutput: obj(h) ? {additionalContext: s(own(h, 'additionalContext')), tool_input: obj(own(h, 'tool_input')) ? own(h, 'tool_input') : null} : null,
    excludeTools: list(own(v, 'excludeTools')),
    mcpServers: servers,
    reason: s(own(v, 'reason')),
  };
}
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(docs.map(d => probe(JSON.parse(d)))));
`

// nodeReads is what node's JSON.parse, read member by member as Gemini
// CLI reads them, makes of each document.
func nodeReads(t *testing.T, docs []string) []any {
	t.Helper()
	return jsjsontest.NodeReads(t, project, docs)
}

// goReads is Decode's probe of doc, in the shape nodeReads has.
func goReads(doc string) (any, error) {
	var p probe
	if err := jsjson.Decode([]byte(doc), &p); err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var v any
	return v, json.Unmarshal(b, &v)
}

// The documents, and the ways a name can be spelled: Decode
// reads each as node's JSON.parse does, by exact names, the last of a
// name whole.
var namedDocs = []string{
	`{"decision":"deny","Decision":"allow"}`,
	`{"continue":false,"CONTINUE":true}`,
	`{"Decision":"block"}`,
	`{"excludeTools":["run_shell_command"],"excludetools":[]}`,
	`{"excludeTools":["a"],"excludeTools":null}`,
	`{"\u0064ecision":"deny","decision":"allow","decisi\u006fn":"block"}`,
	`{"hookSpecificOutput":{"additionalContext":"x","tool_input":{"a":1}},"hookSpecificOutput":{"tool_input":{"b":2}}}`,
	`{"hookSpecificOutput":{"AdditionalContext":"x","tool_input":{"A":1,"a":2,"a":3}}}`,
	`{"mcpServers":{"s":{"command":"rm","Command":"ls","TRUST":true}},"mcpServers":{"t":{"args":["1"],"args":["2"]}}}`,
	`{"mcpServers":{"s":{"command":"a"},"S":{"command":"b"},"s":{"trust":false}}}`,
	`{"reason":"r","Reason":5,"REASON":{}}`,
	`{"Promoted":{"reason":"x"}}`,
	`{"decision":5e400,"decision":"ok","Continue":"not a bool"}`,
	`{"mcpServers":{"s":{"Args":7,"args":null}},"hookSpecificOutput":null}`,
	` { "decision" : "deny" , "decision" : null } `,
	`{"ｄecision":"fullwidth","decİsion":"dotted","decision\u0000":"nul"}`,
	`{"decision":"\ud800"}`,
}

func TestDecodeReadsAsNode(t *testing.T) {
	docs := append([]string(nil), namedDocs...)
	r := rand.New(rand.NewPCG(95, 1))
	for range 400 {
		docs = append(docs, randomDoc(r))
	}
	want := nodeReads(t, docs)
	for i, doc := range docs {
		got, err := goReads(doc)
		if err != nil {
			t.Errorf("Decode(%s): %v", doc, err)
			continue
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("Decode(%s) reads\n%v\nnode's JSON.parse reads\n%v", doc, got, want[i])
		}
	}
}

// The examples, hard-checked: what node reads of them.
func TestDecodeExactNames(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want func(p probe) bool
	}{
		{`{"decision":"deny","Decision":"allow"}`, func(p probe) bool { return *p.Decision == "deny" }},
		{`{"continue":false,"CONTINUE":true}`, func(p probe) bool { return !*p.Continue }},
		{`{"Decision":"block"}`, func(p probe) bool { return p.Decision == nil }},
		{`{"excludeTools":["run_shell_command"],"excludetools":[]}`, func(p probe) bool { return len(p.Tools) == 1 }},
		{`{"hookSpecificOutput":{"tool_input":{"a":1}},"hookSpecificOutput":{"tool_input":{"b":2}}}`, func(p probe) bool {
			return len(p.Specific.Input) == 1 && p.Specific.Input["b"] == 2.0
		}},
	} {
		var p probe
		if err := jsjson.Decode([]byte(tc.doc), &p); err != nil {
			t.Errorf("Decode(%s): %v", tc.doc, err)
		} else if !tc.want(p) {
			got, _ := json.Marshal(p)
			t.Errorf("Decode(%s) = %s", tc.doc, got)
		}
	}
}

// Errors are encoding/json's, with what a caller shows: a syntax error's
// offset in the text given, a type error's field.
func TestDecodeErrors(t *testing.T) {
	var p probe
	err := jsjson.Decode([]byte(`{"decision": "x",}`), &p)
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) || syntax.Offset != 18 {
		t.Errorf("Decode of a trailing comma: %v, want a syntax error at 18", err)
	}
	if p.Decision != nil {
		t.Errorf("a text that is not JSON set %q", *p.Decision)
	}
	err = jsjson.Decode([]byte(`{"Decision": 5, "mcpServers": {"s": {"args": "rm"}}}`), &p)
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || typ.Field != "mcpServers.args" {
		t.Errorf("Decode of args as text: %v, want a type error in mcpServers.args", err)
	}
}

// randomDoc is an object of probe's members, their names spelled as
// they are, in other cases, escaped, given twice, among unknown ones.
func randomDoc(r *rand.Rand) string {
	return randomObject(r, []string{"decision", "continue", "hookSpecificOutput", "excludeTools", "mcpServers", "reason"}, 0)
}

func randomObject(r *rand.Rand, names []string, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range r.IntN(6) {
		if i > 0 {
			b.WriteString(",")
		}
		name := names[r.IntN(len(names))]
		typed := true
		switch r.IntN(5) {
		case 0: // another case: JavaScript reads another member
			name = otherCase(r, name)
			typed = false
		case 1:
			name = "other"
			typed = false
		}
		fmt.Fprintf(&b, "%s %s: ", quoteName(r, name), spaces(r))
		if typed {
			b.WriteString(typedValue(r, name, depth))
		} else {
			b.WriteString(anyValue(r, depth))
		}
	}
	b.WriteString("}")
	return b.String()
}

func otherCase(r *rand.Rand, name string) string {
	out := []byte(name)
	for {
		i := r.IntN(len(out))
		if c := out[i]; c >= 'a' && c <= 'z' {
			out[i] = c - 'a' + 'A'
		} else if c >= 'A' && c <= 'Z' {
			out[i] = c - 'A' + 'a'
		} else {
			continue
		}
		return string(out)
	}
}

// quoteName quotes name, now and then with a letter escaped.
func quoteName(r *rand.Rand, name string) string {
	if r.IntN(4) == 0 {
		i := r.IntN(len(name))
		return fmt.Sprintf(`"%s\u%04x%s"`, name[:i], name[i], name[i+1:])
	}
	return `"` + name + `"`
}

func spaces(r *rand.Rand) string { return []string{"", " ", "\n\t", "\r\n "}[r.IntN(4)] }

func typedValue(r *rand.Rand, name string, depth int) string {
	if r.IntN(8) == 0 {
		return "null"
	}
	switch name {
	case "decision", "reason", "additionalContext", "command":
		return []string{`"deny"`, `"allow"`, `"block"`, `""`, `"é\n"`}[r.IntN(5)]
	case "continue", "trust":
		return []string{"true", "false"}[r.IntN(2)]
	case "excludeTools", "args":
		return []string{`[]`, `["run_shell_command"]`, `["a","b"]`}[r.IntN(3)]
	case "hookSpecificOutput":
		return randomObject(r, []string{"additionalContext", "tool_input"}, depth+1)
	case "tool_input":
		return anyObject(r, depth+1)
	case "mcpServers":
		var b strings.Builder
		b.WriteString("{")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", []string{"s", "S", "t"}[r.IntN(3)], randomObject(r, []string{"command", "args", "trust"}, depth+1))
		}
		b.WriteString("}")
		return b.String()
	}
	return "null"
}

// anyValue is a JSON value of any type, numbers that a double holds.
func anyValue(r *rand.Rand, depth int) string {
	n := 7
	if depth > 3 {
		n = 5
	}
	switch r.IntN(n) {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[r.IntN(2)]
	case 2:
		return []string{"0", "-1.5", "1e3", "123456789"}[r.IntN(4)]
	case 3:
		return []string{`"x"`, `"\"}"`, `"\u00e9"`}[r.IntN(3)]
	case 4:
		return `"deny"`
	case 5:
		return "[" + anyValue(r, depth+1) + "," + anyValue(r, depth+1) + "]"
	}
	return anyObject(r, depth+1)
}

func anyObject(r *rand.Rand, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range r.IntN(4) {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", []string{"a", "A", "b"}[r.IntN(3)], anyValue(r, depth))
	}
	b.WriteString("}")
	return b.String()
}
