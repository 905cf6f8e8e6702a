package lsp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// wireTypes are the types the server sends or reads whose fields come, in
// part, from dialog's types: the updates and the questions' params and
// answers.
func wireTypes() []reflect.Type {
	types := []reflect.Type{reflect.TypeFor[confirmParams](), reflect.TypeFor[askParams](), reflect.TypeFor[askResult]()}
	for _, k := range updateKinds() {
		types = append(types, reflect.TypeOf(k.example).Elem())
	}
	return types
}

// Every field the wire types carry, their embedded dialog types' too,
// says its name on the wire or "-": a field added to dialog.ToolCall
// without a json tag would otherwise reach the editors under its Go name.
func TestEveryWireFieldIsNamed(t *testing.T) {
	for _, typ := range wireTypes() {
		for _, path := range untaggedFields(typ, typ.Name(), map[reflect.Type]bool{}) {
			t.Errorf("%s has no json tag: name it as the wire does, or tag it `json:\"-\"`", path)
		}
	}
}

// untaggedFields are the exported fields under t, by their path from
// its name, that lack a json tag (an embedded struct needs none).
func untaggedFields(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var missing []string
	for f := range t.Fields() {
		tag, tagged := f.Tag.Lookup("json")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && !tagged:
			missing = append(missing, untaggedFields(f.Type, path, seen)...)
		case !tagged:
			missing = append(missing, path+"."+f.Name)
		default:
			missing = append(missing, untaggedFields(f.Type, path+"."+f.Name, seen)...)
		}
	}
	return missing
}

// Each update's schema has every field the encoder sends of it, and
// requires those it always sends: reflection hides a field whose Go name
// two embedded structs share, which encoding/json still sends.
func TestUpdateSchemasHaveEveryField(t *testing.T) {
	b, err := ProtocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	for _, k := range updateKinds() {
		typ := reflect.TypeOf(k.example).Elem()
		def := schema.Defs[defName(typ)]
		for _, f := range append(wireFields(typ), wireFields(reflect.TypeFor[updateHead]())...) {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if _, ok := def.Properties[name]; !ok {
				t.Errorf("the schema of a %s update lacks %q", k.example.kind(), name)
			}
			always := !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero")
			if required := slices.Contains(def.Required, name); required != always {
				t.Errorf("the schema of a %s update requires %q: %v, but the server always sends it: %v", k.example.kind(), name, required, always)
			}
		}
	}
}
