package lsp

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/readme"
)

// The committed schema and protocol.md's table of update kinds are what
// the code makes of its types now: go generate . rewrites them.
func TestGeneratedProtocolFilesAreCurrent(t *testing.T) {
	want, err := ProtocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("docs/protocol.schema.json is not what the server's types make: run go generate .")
	}
	doc, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	current, err := readme.Replace(string(doc), UpdateKindsBegin, UpdateKindsEnd, "update kinds table", "\n"+UpdateKindsTable())
	if err != nil {
		t.Fatal(err)
	}
	if current != string(doc) {
		t.Error("docs/protocol.md's table of update kinds is not what internal/lsp/updates.go makes: run go generate .")
	}
}

// What the server sends of every event kind is valid against the schema
// the clients check themselves against, and so is each kind's example.
func TestUpdatesMatchTheSchema(t *testing.T) {
	b, err := ProtocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	var root jsonschema.Schema
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	// The root, whose $defs the references name, checks an update
	// through a reference to the union.
	root.Ref = "#/$defs/Update"
	resolved, err := root.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(what string, u any) {
		t.Helper()
		var v any
		raw, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s %s is not a valid update: %v", what, raw, err)
		}
	}
	seen := map[string]bool{}
	for _, e := range dialog.Kinds() {
		updates{"s", func(u update) {
			seen[u.kind()] = true
			validate("the update of a "+reflect.TypeOf(e).Name(), u)
		}, nil}.Show(context.Background(), dialog.Subagent{}, e)
	}
	for _, k := range updateKinds() {
		validate("the example of "+k.example.kind(), exampleOf(k.example))
		if !seen[k.example.kind()] {
			t.Errorf("no event kind is sent as a %s update: updateKinds lists a kind the server never sends", k.example.kind())
		}
	}
	// A kind the schema lacks fails: the check can fail.
	if err := resolved.Validate(map[string]any{"sessionId": "s", "kind": "plan"}); err == nil {
		t.Error("an update of a kind the schema lacks was valid")
	}
}

// Every confirmation kind is in gemini/confirm's schema, for the clients
// to word each.
func TestConfirmKindsAreInTheSchema(t *testing.T) {
	b, err := ProtocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range dialog.ConfirmKinds() {
		if !strings.Contains(string(b), `"`+string(k)+`"`) {
			t.Errorf("the schema does not list the confirmation kind %q", k)
		}
	}
}
