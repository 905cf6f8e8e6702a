package jsjson_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// FuzzDecode: Decode reads a probe as a reference does, by exact names
// over Parse's tree (JSON.parse's: the last of a name wins), member by
// member as encoding/json sets a field; it fails where the reference
// meets a value of the wrong type or a text that is not JSON, and only
// there.
func FuzzDecode(f *testing.F) {
	for _, doc := range namedDocs {
		f.Add(doc)
	}
	f.Add(`[]`)
	f.Add(`null`)
	f.Add(`{"mcpServers":{"s":null,"t":{"args":[null,"x"]}}}`)
	f.Add(`{"hookSpecificOutput":{"tool_input":{"n":1e400}}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := goReads(doc)
		tree, perr := jsjson.Parse([]byte(doc))
		if perr != nil {
			if err == nil {
				t.Fatalf("Decode(%q) read %v; Parse: %v", doc, got, perr)
			}
			return
		}
		want, ok := refProbe(tree)
		switch {
		case !ok && err == nil:
			t.Fatalf("Decode(%q) read %v; the reference meets a value of the wrong type", doc, got)
		case ok && err != nil:
			t.Fatalf("Decode(%q): %v; the reference reads %v", doc, err, want)
		case ok && !reflect.DeepEqual(got, want):
			t.Fatalf("Decode(%q) reads\n%v\nthe reference\n%v", doc, got, want)
		}
	})
}

// refProbe is what a probe holds after decoding v, in the shape goReads
// gives, or false where encoding/json refuses a value's type.
func refProbe(v any) (any, bool) {
	if v == nil {
		v = jsjson.NewObject()
	}
	o, isObj := v.(*jsjson.Object)
	if !isObj {
		return nil, false
	}
	out := map[string]any{}
	ok := true
	field := func(name string, read func(any) (any, bool), zero any) {
		val, has := o.Get(name)
		if !has || val == nil {
			out[name] = zero
			return
		}
		r, fine := read(val)
		ok = ok && fine
		out[name] = r
	}
	field("decision", refString, nil)
	field("continue", refBool, nil)
	field("reason", refString, nil)
	field("excludeTools", refStrings, nil)
	field("hookSpecificOutput", func(v any) (any, bool) {
		h, isObj := v.(*jsjson.Object)
		if !isObj {
			return nil, false
		}
		out := map[string]any{"additionalContext": nil, "tool_input": nil}
		fine := true
		if c, has := h.Get("additionalContext"); has && c != nil {
			out["additionalContext"], fine = refString(c)
		}
		if in, has := h.Get("tool_input"); has && in != nil {
			m, isObj := in.(*jsjson.Object)
			if !isObj {
				return nil, false
			}
			r, plainOK := plain(m)
			out["tool_input"], fine = r, fine && plainOK
		}
		return out, fine
	}, nil)
	field("mcpServers", func(v any) (any, bool) {
		m, isObj := v.(*jsjson.Object)
		if !isObj {
			return nil, false
		}
		out := map[string]any{}
		fine := true
		for _, k := range m.Keys() {
			s, _ := m.Get(k)
			r, sOK := refServer(s)
			out[k], fine = r, fine && sOK
		}
		return out, fine
	}, nil)
	return out, ok
}

func refServer(v any) (any, bool) {
	out := map[string]any{"command": nil, "args": nil, "trust": nil}
	if v == nil {
		return out, true // a struct in a map: its zero value
	}
	s, isObj := v.(*jsjson.Object)
	if !isObj {
		return nil, false
	}
	fine := true
	for name, read := range map[string]func(any) (any, bool){"command": refString, "args": refStrings, "trust": refBool} {
		if val, has := s.Get(name); has && val != nil {
			r, ok := read(val)
			out[name], fine = r, fine && ok
		}
	}
	return out, fine
}

func refString(v any) (any, bool) { s, ok := v.(string); return s, ok }
func refBool(v any) (any, bool)   { b, ok := v.(bool); return b, ok }

func refStrings(v any) (any, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := []any{}
	for _, e := range list {
		switch e := e.(type) {
		case nil:
			out = append(out, "") // null leaves a string as it was
		case string:
			out = append(out, e)
		default:
			return nil, false
		}
	}
	return out, true
}

// plain is an object as encoding/json decodes it into an any, or false
// for a number a double cannot hold.
func plain(v any) (any, bool) {
	switch v := v.(type) {
	case *jsjson.Object:
		out := map[string]any{}
		fine := true
		for _, k := range v.Keys() {
			e, _ := v.Get(k)
			r, ok := plain(e)
			out[k], fine = r, fine && ok
		}
		return out, fine
	case []any:
		out := []any{}
		fine := true
		for _, e := range v {
			r, ok := plain(e)
			out, fine = append(out, r), fine && ok
		}
		return out, fine
	case float64:
		return v, !math.IsInf(v, 0)
	}
	return v, true
}
