package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
)

// The protocol's own schema, pinned (testdata/acpschema/README.md), is
// what every message gemini-ls's agent writes in the tests that call
// checkAgainstSchema is held to: the line as a whole against the
// schema's root, and its params or result against the definition its
// method names. The SDK's Go types are older than the schema; the
// schema, not the SDK, says what a client may rely on.

const schemaDir = "testdata/acpschema"

// acpSchema is the pinned schema, each definition resolved when first
// needed.
type acpSchema struct {
	raw  map[string]json.RawMessage // the file's members
	defs map[string]json.RawMessage // its $defs
	// byMethod names the definition of each method's message:
	// "request session/request_permission" → RequestPermissionRequest.
	byMethod map[string]string
	resolved map[string]*jsonschema.Resolved // by definition, "" the root
}

func loadACPSchema(t testing.TB) *acpSchema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaDir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := &acpSchema{byMethod: map[string]string{}, resolved: map[string]*jsonschema.Resolved{}}
	if err := json.Unmarshal(b, &s.raw); err != nil {
		t.Fatalf("reading the schema: %v", err)
	}
	if err := json.Unmarshal(s.raw["$defs"], &s.defs); err != nil {
		t.Fatalf("reading the schema's $defs: %v", err)
	}
	for name, def := range s.defs {
		var d struct {
			Method string `json:"x-method"`
		}
		if json.Unmarshal(def, &d) != nil || d.Method == "" {
			continue
		}
		for _, kind := range []string{"Request", "Response", "Notification"} {
			if strings.HasSuffix(name, kind) {
				s.byMethod[strings.ToLower(kind)+" "+d.Method] = name
			}
		}
	}
	return s
}

// schemaOf is definition name ("" for the root) resolved.
func (s *acpSchema) schemaOf(name string) (*jsonschema.Resolved, error) {
	if r, ok := s.resolved[name]; ok {
		return r, nil
	}
	doc := map[string]json.RawMessage{"$schema": s.raw["$schema"], "$defs": s.raw["$defs"]}
	if name == "" {
		doc = s.raw
	} else {
		doc["$ref"] = json.RawMessage(fmt.Sprintf("%q", "#/$defs/"+name))
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(b, &sch); err != nil {
		return nil, fmt.Errorf("reading definition %q: %w", name, err)
	}
	r, err := sch.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving definition %q: %w", name, err)
	}
	s.resolved[name] = r
	return r, nil
}

// validate checks v (a JSON value as encoding/json decodes it into any)
// against definition name.
func (s *acpSchema) validate(name string, v any) error {
	r, err := s.schemaOf(name)
	if err != nil {
		return err
	}
	return r.Validate(v)
}

// agentLine is what checkLine reads of a line the agent wrote.
type agentLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// checkLine validates one line the agent wrote; requested is the method
// of each of the client's requests, by id, for the agent's answers.
func (s *acpSchema) checkLine(line string, requested map[string]string) error {
	var whole any
	if err := json.Unmarshal([]byte(line), &whole); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.validate("", whole); err != nil {
		return fmt.Errorf("against the schema's root: %w", err)
	}
	var m agentLine
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return err
	}
	var key string
	var part json.RawMessage
	switch {
	case m.Method != "" && len(m.ID) > 0:
		key, part = "request "+m.Method, m.Params
	case m.Method == "$/cancel_request":
		return nil // the root's ProtocolLevel member holds it
	case m.Method != "":
		key, part = "notification "+m.Method, m.Params
	case m.Error != nil:
		return nil // the root's Error holds it
	default:
		method, ok := requested[string(m.ID)]
		if !ok {
			return fmt.Errorf("an answer to id %s, which the client never sent", m.ID)
		}
		key, part = "response "+method, m.Result
	}
	name, ok := s.byMethod[key]
	if !ok {
		return fmt.Errorf("%s is no method of the pinned schema", key)
	}
	var v any
	if err := json.Unmarshal(part, &v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if err := s.validate(name, v); err != nil {
		return fmt.Errorf("%s against %s: %w", key, name, err)
	}
	return nil
}

// checkAgainstSchema validates every line the agent wrote to c against
// the pinned schema, failing t for each that breaks it; it returns how
// many it checked, by method (an answer under its request's method).
func checkAgainstSchema(t testing.TB, c *acptest.Client) map[string]int {
	t.Helper()
	s := loadACPSchema(t)
	requested := map[string]string{}
	for _, line := range c.Sent() {
		var m agentLine
		if json.Unmarshal([]byte(line), &m) == nil && m.Method != "" && len(m.ID) > 0 {
			requested[string(m.ID)] = m.Method
		}
	}
	seen := map[string]int{}
	for _, line := range c.Received() {
		if err := s.checkLine(line, requested); err != nil {
			t.Errorf("the agent wrote a message the ACP schema does not allow: %v\n%.600s", err, line)
			continue
		}
		var m agentLine
		_ = json.Unmarshal([]byte(line), &m)
		if m.Method == "" {
			m.Method = requested[string(m.ID)]
		}
		seen[m.Method]++
	}
	return seen
}

// The schema test's own test: lines the schema forbids are caught, by
// the root and by a method's definition, so a pass means something.
func TestSchemaCatchesWhatItForbids(t *testing.T) {
	s := loadACPSchema(t)
	requested := map[string]string{"1": "session/new", "2": "session/delete"}
	good := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10,"size":100}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":"T","updatedAt":"2026-01-02T03:04:05Z"}}}`,
	}
	for _, line := range good {
		if err := s.checkLine(line, requested); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	bad := []string{
		`{"jsonrpc":"1.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, // session/new's answer has no sessionId
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":7}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"session/set_title","params":{}}`,
	}
	for _, line := range bad {
		if err := s.checkLine(line, requested); err == nil {
			t.Errorf("the schema allowed %s", line)
		}
	}
}
