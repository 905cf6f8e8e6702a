package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/skills"
)

type exampleParams struct {
	Path    string         `json:"path" jsonschema:"Where."`
	Count   *int           `json:"count,omitempty" jsonschema:"How many."`
	Globs   []string       `json:"globs,omitempty"`
	Strict  bool           `json:"strict,omitempty"`
	Ratio   float64        `json:"ratio,omitempty"`
	Extra   map[string]any `json:"extra,omitempty"`
	Skipped int            `json:"-"`
}

func TestSchemaForDerivesTheDeclaredSchema(t *testing.T) {
	got, _ := json.Marshal(declaredSchema(reflect.TypeFor[exampleParams](), nil))
	want := `{"properties":{"count":{"description":"How many.","type":"integer"},"extra":{"type":"object"},` +
		`"globs":{"items":{"type":"string"},"type":"array"},"path":{"description":"Where.","type":"string"},` +
		`"ratio":{"type":"number"},"strict":{"type":"boolean"}},"required":["path"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}

func TestDecodeFillsParamsOrSaysWhatIsWrong(t *testing.T) {
	var p exampleParams
	err := decode(map[string]any{"path": "a", "count": 3.0, "globs": []any{"x", "y"}, "strict": true, "ratio": 0.5,
		"extra": map[string]any{"k": 1.0}, "unknown": 1.0}, &p)
	if err != nil || p.Path != "a" || p.Count == nil || *p.Count != 3 || len(p.Globs) != 2 || !p.Strict || p.Ratio != 0.5 || p.Extra["k"] != 1.0 {
		t.Fatalf("decode = %+v, %v", p, err)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'path'"},
		{map[string]any{"path": nil}, "params must have required property 'path'"},
		{map[string]any{"path": 1.0}, "params/path must be string"},
		{map[string]any{"path": "a", "count": 1.5}, "params/count must be integer"},
		{map[string]any{"path": "a", "count": "2"}, "params/count must be integer"},
		{map[string]any{"path": "a", "count": 1e300}, "params/count must be integer"},
		{map[string]any{"path": "a", "globs": "x"}, "params/globs must be array"},
		{map[string]any{"path": "a", "globs": []any{"x", 2.0}}, "params/globs/1 must be string"},
		{map[string]any{"path": "a", "strict": "yes"}, "params/strict must be boolean"},
		{map[string]any{"path": "a", "extra": []any{}}, "params/extra must be object"},
	} {
		var p exampleParams
		if err := decode(tc.args, &p); err == nil || err.Error() != tc.want {
			t.Errorf("decode(%v) = %v, want %q", tc.args, err, tc.want)
		}
	}
	var p2 exampleParams
	if err := decode(map[string]any{"path": "a", "count": nil}, &p2); err != nil || p2.Count != nil {
		t.Errorf("null optional: %+v, %v", p2, err)
	}
}

type nestedParams struct {
	Items []nestedItem `json:"items"`
}

type nestedItem struct {
	ID   string `json:"id" jsonschema:"Which."`
	Kind string `json:"kind,omitempty"`
}

func (nestedParams) extendSchema(s *jsonschema.Schema) {
	items := s.Properties["items"]
	items.MaxItems = jsonschema.Ptr(2)
	items.Items.Properties["kind"].Enum = []any{"a", "b"}
}

// Nested structs are derived and checked like the top level, with what
// extendSchema adds, in the words of Gemini CLI's validator.
func TestNestedParams(t *testing.T) {
	got, _ := json.Marshal(declaredSchema(reflect.TypeFor[nestedParams](), nil))
	want := `{"properties":{"items":{"items":{"properties":{"id":{"description":"Which.","type":"string"},"kind":{"enum":["a","b"],"type":"string"}},` +
		`"required":["id"],"type":"object"},"maxItems":2,"type":"array"}},"required":["items"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	var p nestedParams
	if err := decode(map[string]any{"items": []any{map[string]any{"id": "x", "kind": "b", "other": 1.0}}}, &p); err != nil || len(p.Items) != 1 || p.Items[0] != (nestedItem{ID: "x", Kind: "b"}) {
		t.Errorf("decode = %+v, %v", p, err)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"items": []any{map[string]any{"id": "x"}, map[string]any{"kind": "a"}}}, "params/items/1 must have required property 'id'"},
		{map[string]any{"items": []any{map[string]any{"id": "x", "kind": "c"}}}, "params/items/0/kind must be equal to one of the allowed values"},
		{map[string]any{"items": []any{"x"}}, "params/items/0 must be object"},
		{map[string]any{"items": []any{map[string]any{"id": "x"}, map[string]any{"id": "y"}, map[string]any{"id": "z"}}}, "params/items must NOT have more than 2 items"},
	} {
		var p nestedParams
		if err := decode(tc.args, &p); err == nil || err.Error() != tc.want {
			t.Errorf("decode(%v) = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// throughJSON is what declaredSchema made before it made the value
// directly: derive's schema, less the undeclared parameters, marshalled
// and decoded again, its required lists made []string.
func throughJSON(t *testing.T, typ reflect.Type, opts *jsonschema.ForOptions) map[string]any {
	t.Helper()
	s := derive(typ, opts)
	for _, f := range paramFields(typ) {
		if f.undeclared {
			delete(s.Properties, f.name)
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == f.name })
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	requiredStrings(m)
	return m
}

// The schema every tool declares is the one the JSON round trip made,
// value for value and byte for byte: built-in tools, complete_task's,
// activate_skill's with skills and without, and the test structs.
func TestDeclaredSchemaIsWhatJSONMade(t *testing.T) {
	skillOpts := func(names ...string) *jsonschema.ForOptions {
		return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[skillName](): skillNameSchema(names)}}
	}
	cases := []struct {
		typ  reflect.Type
		opts *jsonschema.ForOptions
	}{
		{reflect.TypeFor[exampleParams](), nil},
		{reflect.TypeFor[nestedParams](), nil},
		{reflect.TypeFor[completeTaskParams](), nil},
		{reflect.TypeFor[waiting](), nil},
		{reflect.TypeFor[getInternalDocsParams](), nil},
		{reflect.TypeFor[invokeAgentParams](), nil},
		{reflect.TypeFor[activateSkillParams](), skillOpts()},
		{reflect.TypeFor[activateSkillParams](), skillOpts("deploy", "review")},
	}
	tw := newTestWorkspace(t, nil)
	all := Builtin(Options{Workspace: tw.ws, Plan: PlanOptions{Enabled: true}, Skills: &skills.Catalog{}, Diagnostics: &shownDiagnostics{}})
	for _, typ := range builtinParams(t, all) {
		cases = append(cases, struct {
			typ  reflect.Type
			opts *jsonschema.ForOptions
		}{typ, nil})
	}
	for _, tc := range cases {
		got, want := declaredSchema(tc.typ, tc.opts), throughJSON(t, tc.typ, tc.opts)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: declared\n%#v\nthrough JSON\n%#v", tc.typ, got, want)
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s: sent as\n%s\nthrough JSON\n%s", tc.typ, gotJSON, wantJSON)
		}
	}
}

// A schema with a keyword jsonValue does not make itself still comes
// out as JSON would make it.
func TestJSONValueOfOtherKeywords(t *testing.T) {
	s := &jsonschema.Schema{Type: "string", Pattern: "^a", Enum: []any{1}, Properties: map[string]*jsonschema.Schema{"x": {Format: "uri"}}}
	b, _ := json.Marshal(s)
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if got := jsonValue(s); !reflect.DeepEqual(got, want) {
		t.Errorf("jsonValue = %#v, want %#v", got, want)
	}
}

// Checking a call's arguments makes no list of the schema's properties:
// a derived schema's order names them all. A schema whose order does not
// still has them all checked, the others sorted after it.
func TestPropertyOrderOfADerivedSchemaIsUsedAsItIs(t *testing.T) {
	s := enforced(reflect.TypeFor[grepParams]())
	if allocs := testing.AllocsPerRun(10, func() { propertyNames(s) }); allocs != 0 {
		t.Errorf("propertyNames of grep_search's schema made %.0f allocations, want none", allocs)
	}
	if got := propertyNames(s); !slices.Equal(got, s.PropertyOrder) || len(got) != len(s.Properties) {
		t.Errorf("propertyNames %v, want the schema's order %v", got, s.PropertyOrder)
	}
	partial := &jsonschema.Schema{PropertyOrder: []string{"b"}, Properties: map[string]*jsonschema.Schema{"c": {}, "a": {}, "b": {}}}
	if got := propertyNames(partial); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("propertyNames %v, want [b a c]", got)
	}
	twice := &jsonschema.Schema{PropertyOrder: []string{"a", "a"}, Properties: map[string]*jsonschema.Schema{"a": {}, "b": {}}}
	if got := propertyNames(twice); !slices.Equal(got, []string{"a", "a", "b"}) {
		t.Errorf("propertyNames %v, want [a a b]", got)
	}
}
