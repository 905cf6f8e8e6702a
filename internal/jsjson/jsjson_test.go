package jsjson

import (
	"strings"
	"testing"
)

// Parsed and written again, each text is what node's
// JSON.stringify(JSON.parse(text), null, 2) writes (node 20): keys in
// JavaScript's order, numbers and strings as JavaScript writes them.
func TestParseStringifyAsJavaScript(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{
			`{"b":1,"a":[],"c":{},"2":"x","10":true,"01":null,"1":-0,"a":2}`,
			"{\n  \"1\": 0,\n  \"2\": \"x\",\n  \"10\": true,\n  \"b\": 1,\n  \"a\": 2,\n  \"c\": {},\n  \"01\": null\n}",
		},
		{
			`[1e21, 1.5e-7, 123456789012345678901234, 0.1, 1e400, -1e-400, 5e-324, 100, 1.0, 2.50]`,
			"[\n  1e+21,\n  1.5e-7,\n  1.2345678901234569e+23,\n  0.1,\n  null,\n  0,\n  5e-324,\n  100,\n  1,\n  2.5\n]",
		},
		{
			`"q\"b\\ \b\f\n\r\t \u0001 \u001f \u007f \u2028 é <>&/ \u00e9 \ud83d\ude00"`,
			"\"q\\\"b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u001f \u007f \u2028 é <>&/ é 😀\"",
		},
		{
			`{"4294967294":1,"4294967295":2,"0":3}`,
			"{\n  \"0\": 3,\n  \"4294967294\": 1,\n  \"4294967295\": 2\n}",
		},
		{` [ [ ], { "x" : [ { } ] } ] `, "[\n  [],\n  {\n    \"x\": [\n      {}\n    ]\n  }\n]"},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Errorf("Parse(%s): %v", tc.in, err)
			continue
		}
		if got := string(Stringify(v)); got != tc.want {
			t.Errorf("Stringify(Parse(%s)) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

// What JSON.parse refuses, Parse refuses.
func TestParseRefuses(t *testing.T) {
	for _, in := range []string{``, `{}x`, `{} {}`, `{"a":1,}`, `01`, "\ufeff{}", `{a:1}`, `"tab	in"`, `[1,]`} {
		if v, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, v)
		}
	}
}

// A key set again keeps its place; Spread sets an object's keys and an
// array's indexes, as {...o, ...v}.
func TestObjectSetAndSpread(t *testing.T) {
	o := NewObject()
	o.Set("b", 1)
	o.Set("a", 2)
	o.Set("b", 3)
	other := NewObject()
	other.Set("c", "x")
	other.Set("a", nil)
	o.Spread(other)
	o.Spread([]any{true})
	o.Spread("ignored")
	if got := strings.Join(o.Keys(), ","); got != "0,b,a,c" {
		t.Errorf("keys %s", got)
	}
	if v, _ := o.Get("b"); v != 3 {
		t.Errorf("b = %v", v)
	}
	if v, ok := o.Get("a"); !ok || v != nil {
		t.Errorf("a = %v, %v", v, ok)
	}
}

// An invalid UTF-8 byte is written as U+FFFD, as a JavaScript string
// decoded from it holds it.
func TestStringifyInvalidUTF8(t *testing.T) {
	if got := string(Stringify("a\xffb")); got != "\"a\ufffdb\"" {
		t.Errorf("got %q", got)
	}
}
