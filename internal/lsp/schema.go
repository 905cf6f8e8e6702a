package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The wire schema: docs/protocol.schema.json, generated (go generate .)
// from the Go types the server encodes and decodes: protocolMethods, the
// update kinds, serverCommands. The editor clients' tests read it; a test
// here holds the committed file to the code.

// exampleSession is the session id of the examples, protocol.md's.
const exampleSession = "KDETU2ENOYKKBHEMUBS6RVHMLT"

// ProtocolSchema is docs/protocol.schema.json's text.
func ProtocolSchema() ([]byte, error) {
	defs := map[string]*jsonschema.Schema{}
	opts := &jsonschema.ForOptions{IgnoreInvalidTypes: true, TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[update]():             {Ref: "#/$defs/Update"},
		reflect.TypeFor[json.RawMessage]():    {},
		reflect.TypeFor[dialog.ConfirmKind](): {Type: "string", Enum: confirmKindWords()},
		reflect.TypeFor[errorKind]():          {Type: "string", Enum: errorKindWords()},
	}}
	if err := updateDefs(defs, opts); err != nil {
		return nil, err
	}
	methods := map[string]any{}
	for _, m := range protocolMethods() {
		entry, err := methodEntry(m, defs, opts)
		if err != nil {
			return nil, fmt.Errorf("the schema of %s: %w", m.name, err)
		}
		methods[m.name] = entry
	}
	commands := map[string]any{}
	for _, c := range serverCommands() {
		entry := map[string]any{}
		setRef(entry, "result", typeRef(c.result, defs, opts))
		commands[c.name] = entry
	}
	doc := map[string]any{
		"$schema":           "https://json-schema.org/draft/2020-12/schema",
		"title":             "gemini-ls protocol",
		"description":       "The messages of docs/protocol.md, generated from the server's Go types by `go generate .`; do not edit.",
		"x-protocolVersion": ProtocolVersion,
		"x-methods":         methods,
		"x-commands":        commands,
		"x-builtinCommands": builtinCommands(),
		"$defs":             defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the protocol schema: %w", err)
	}
	return b.Bytes(), nil
}

// builtinCommands are the built-in slash commands, as gemini/commands
// lists them before the user's: the editors' tests hold their completion
// to this list rather than to one of their own.
func builtinCommands() []commandInfo {
	var list []commandInfo
	for _, b := range builtin.Table() {
		list = append(list, commandInfo{Name: b.Name, Description: b.Description, Hint: b.Hint, Source: b.Source.String()})
	}
	return list
}

// updateDefs adds Update, the union of the kinds, and each kind's
// schema: its fields, its kind word as a constant, what it means and an
// example.
func updateDefs(defs map[string]*jsonschema.Schema, opts *jsonschema.ForOptions) error {
	union := &jsonschema.Schema{Description: "gemini/update's params: one of the kinds, told apart by `kind`."}
	for _, k := range updateKinds() {
		t := reflect.TypeOf(k.example).Elem()
		s, err := jsonschema.ForType(t, opts)
		if err != nil {
			return fmt.Errorf("the schema of a %s update: %w", k.example.kind(), err)
		}
		s.Properties["kind"] = &jsonschema.Schema{Const: jsonschema.Ptr[any](k.example.kind())}
		s.Description = k.meaning
		s.Examples = []any{exampleOf(k.example)}
		name := defName(t)
		defs[name] = s
		union.OneOf = append(union.OneOf, &jsonschema.Schema{Ref: "#/$defs/" + name})
	}
	defs["Update"] = union
	return nil
}

// exampleOf is u with protocol.md's session id, as the wire has it.
func exampleOf(u update) any {
	*u.head() = updateHead{SessionID: exampleSession, UpdateKind: u.kind()}
	b, err := json.Marshal(u)
	if err != nil {
		panic(err) // the examples are plain data
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		panic(err)
	}
	return v
}

// methodEntry is a method's line in x-methods: who sends it, whether it
// is answered, and its params' and result's schemas, by reference.
func methodEntry(m method, defs map[string]*jsonschema.Schema, opts *jsonschema.ForOptions) (map[string]any, error) {
	e := map[string]any{"direction": m.dir.String(), "type": m.sig.kind.String()}
	if m.sig.params != nil && m.sig.params != reflect.TypeFor[noParams]() {
		ref := typeRef(m.sig.params, defs, opts)
		if m.dir == clientToServer && ref != "" {
			// What a client sends may leave out what the handler does
			// without; the handler names a missing field it needs.
			optional(defs[strings.TrimPrefix(ref, "#/$defs/")])
		}
		setRef(e, "params", ref)
	}
	if m.sig.result != nil && m.sig.result != reflect.TypeFor[nothing]() {
		setRef(e, "result", typeRef(m.sig.result, defs, opts))
	}
	return e, nil
}

// setRef sets e[key] to ref, unless ref is "" (a type LSP defines).
func setRef(e map[string]any, key, ref string) {
	if ref != "" {
		e[key] = ref
	}
}

// optional drops s's required fields, and its properties'.
func optional(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Required = nil
	for _, p := range s.Properties {
		optional(p)
	}
	optional(s.Items)
}

// typeRef is a reference to t's schema, which it adds to defs, for a type
// of this package (or a slice or pointer of one); "" for another's (LSP's
// own, which the LSP specification defines).
func typeRef(t reflect.Type, defs map[string]*jsonschema.Schema, opts *jsonschema.ForOptions) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[update]() {
		return "#/$defs/Update"
	}
	if t.PkgPath() != reflect.TypeFor[updateHead]().PkgPath() {
		return ""
	}
	name := defName(t)
	if _, ok := defs[name]; !ok {
		s, err := jsonschema.ForType(t, opts)
		if err != nil || s == nil {
			return ""
		}
		defs[name] = s
	}
	return "#/$defs/" + name
}

// defName is a type's name in $defs: its Go name, capitalised.
func defName(t reflect.Type) string {
	name := []rune(t.Name())
	name[0] = unicode.ToUpper(name[0])
	return string(name)
}

func errorKindWords() []any {
	var words []any
	for _, k := range conversation.ErrorKinds() {
		words = append(words, k)
	}
	return words
}

func confirmKindWords() []any {
	var words []any
	for _, k := range dialog.ConfirmKinds() {
		words = append(words, string(k))
	}
	return words
}

func (d direction) String() string {
	switch d {
	case clientToServer:
		return "client-to-server"
	case serverToClient:
		return "server-to-client"
	case bothWays:
	}
	return "both"
}

func (k kind) String() string {
	if k == notificationKind {
		return "notification"
	}
	return "request"
}

// The markers of UpdateKindsTable in docs/protocol.md.
const (
	UpdateKindsBegin = "<!-- update kinds: made by `go generate .` from internal/lsp/updates.go; do not edit -->"
	UpdateKindsEnd   = "<!-- end of the update kinds -->"
)

// UpdateKindsTable is docs/protocol.md's table of the update kinds (6):
// each kind's fields, read from its type (a field that may be absent
// marked ?), and what it means.
func UpdateKindsTable() string {
	var b strings.Builder
	b.WriteString("| `kind` | Fields | Meaning |\n| --- | --- | --- |\n")
	for _, k := range updateKinds() {
		var fields []string
		for _, f := range wireFields(reflect.TypeOf(k.example).Elem()) {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			field := "`" + name + "`"
			if strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
				field = "`" + name + "?`"
			}
			fields = append(fields, field)
		}
		if len(fields) == 0 {
			fields = []string{"none"}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.example.kind(), strings.Join(fields, ", "), strings.ReplaceAll(k.meaning, "|", `\|`))
	}
	return b.String()
}

// wireFields are the fields an update sends of its own, in order: those
// of the dialog type it embeds included, the header and what is tagged
// "-" left out. (reflect.VisibleFields would hide a field whose Go name
// the header shares, as dialog.ToolCall's Kind, sent as toolKind.)
func wireFields(t reflect.Type) []reflect.StructField {
	var fields []reflect.StructField
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Type == reflect.TypeFor[updateHead]() || name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			fields = append(fields, wireFields(f.Type)...)
		default:
			fields = append(fields, f)
		}
	}
	return fields
}
