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
// method names. A stable method's message is held to the stable file and
// to the unstable one (which types the unstable capabilities and fields
// a stable message may carry); an unstable method's to the unstable
// file. The SDK's Go types are older than the schema; the schema, not
// the SDK, says what a client may rely on.

const schemaDir = "testdata/acpschema"

// outsideSchema are the methods gemini-ls answers that neither schema
// file has, each with why; their messages are checked as JSON-RPC 2.0
// and named in the test's log, never passed in silence.
var outsideSchema = map[string]string{
	"session/set_model": "Gemini CLI 0.61's unstable_setSessionModel (its ACP agent answers it, and clients written for it call it); " +
		"the schema dropped it for session/set_config_option's model option, which gemini-ls offers too",
}

// acpSchema is the pinned schema: the stable file and the unstable one.
type acpSchema struct {
	stable, unstable *schemaFile
}

// schemaFile is one pinned file, each definition resolved when first
// needed.
type schemaFile struct {
	name string
	raw  map[string]json.RawMessage // the file's members
	defs map[string]json.RawMessage // its $defs
	// byMethod names the definition of each method's message:
	// "request session/request_permission" → RequestPermissionRequest.
	byMethod map[string]string
	resolved map[string]*jsonschema.Resolved // by definition, "" the root
}

func loadACPSchema(t testing.TB) *acpSchema {
	t.Helper()
	return &acpSchema{stable: loadSchemaFile(t, "schema.json"), unstable: loadSchemaFile(t, "schema.unstable.json")}
}

func loadSchemaFile(t testing.TB, name string) *schemaFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaDir, name))
	if err != nil {
		t.Fatal(err)
	}
	s := &schemaFile{name: name, byMethod: map[string]string{}, resolved: map[string]*jsonschema.Resolved{}}
	if err := json.Unmarshal(b, &s.raw); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	if err := json.Unmarshal(s.raw["$defs"], &s.defs); err != nil {
		t.Fatalf("reading the $defs of %s: %v", name, err)
	}
	for def, body := range s.defs {
		var d struct {
			Method string `json:"x-method"`
		}
		if json.Unmarshal(body, &d) != nil || d.Method == "" {
			continue
		}
		for _, kind := range []string{"Request", "Response", "Notification"} {
			if strings.HasSuffix(def, kind) {
				s.byMethod[strings.ToLower(kind)+" "+d.Method] = def
			}
		}
	}
	return s
}

// schemaOf is definition name ("" for the root) resolved.
func (s *schemaFile) schemaOf(name string) (*jsonschema.Resolved, error) {
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
func (s *schemaFile) validate(name string, v any) error {
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
// of each of the client's requests, by id, for the agent's answers. It
// returns the line's method, and why that method is outside the schema
// when it is (outsideSchema).
func (s *acpSchema) checkLine(line string, requested map[string]string) (method, outside string, err error) {
	var whole any
	if err := json.Unmarshal([]byte(line), &whole); err != nil {
		return "", "", fmt.Errorf("not JSON: %w", err)
	}
	var m agentLine
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return "", "", err
	}
	var key string
	var part json.RawMessage
	switch {
	case m.Method != "" && len(m.ID) > 0:
		key, part = "request "+m.Method, m.Params
	case m.Method == "$/cancel_request":
		key = "" // the root's ProtocolLevel member holds it
	case m.Method != "":
		key, part = "notification "+m.Method, m.Params
	case m.Error != nil:
		key = "" // the root's Error holds it
	default:
		var ok bool
		if m.Method, ok = requested[string(m.ID)]; !ok {
			return "", "", fmt.Errorf("an answer to id %s, which the client never sent", m.ID)
		}
		key, part = "response "+m.Method, m.Result
	}
	if why, ok := outsideSchema[m.Method]; ok {
		var envelope struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if json.Unmarshal([]byte(line), &envelope) != nil || envelope.JSONRPC != "2.0" {
			return m.Method, why, fmt.Errorf("%s (outside the schema) is not JSON-RPC 2.0", key)
		}
		return m.Method, why, nil
	}
	files := []*schemaFile{s.stable, s.unstable}
	if _, stable := s.stable.byMethod[key]; key != "" && !stable {
		files = files[1:] // an unstable method: the stable root has no place for it
	}
	for _, f := range files {
		if err := f.checkPart(whole, key, part); err != nil {
			return m.Method, "", err
		}
	}
	return m.Method, "", nil
}

// checkPart validates a line (whole) against f's root and, unless key
// is "", its part against the definition key names.
func (f *schemaFile) checkPart(whole any, key string, part json.RawMessage) error {
	if err := f.validate("", whole); err != nil {
		return fmt.Errorf("against the root of %s: %w", f.name, err)
	}
	if key == "" {
		return nil
	}
	name, ok := f.byMethod[key]
	if !ok {
		return fmt.Errorf("%s is no method of %s", key, f.name)
	}
	var v any
	if err := json.Unmarshal(part, &v); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if err := f.validate(name, v); err != nil {
		return fmt.Errorf("%s against %s of %s: %w", key, name, f.name, err)
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
	said := map[string]bool{}
	for _, line := range c.Received() {
		method, outside, err := s.checkLine(line, requested)
		if err != nil {
			t.Errorf("the agent wrote a message the ACP schema does not allow: %v\n%.600s", err, line)
			continue
		}
		if outside != "" && !said[method] {
			said[method] = true
			t.Logf("%s is outside the ACP schema, checked as JSON-RPC 2.0 only: %s", method, outside)
		}
		seen[method]++
	}
	return seen
}

// The schema test's own test: lines the schema forbids are caught, by
// the root and by a method's definition, in either file, so a pass means
// something; a method outside the schema is said to be, and one of no
// file and no list is refused.
func TestSchemaCatchesWhatItForbids(t *testing.T) {
	s := loadACPSchema(t)
	requested := map[string]string{"1": "session/new", "2": "session/delete", "3": "session/set_title", "4": "session/status",
		"5": "session/set_model", "6": "session/frobnicate", "7": "initialize"}
	good := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"title":"T"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"status":"open"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10,"size":100}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":"T","updatedAt":"2026-01-02T03:04:05Z"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"warning","title":"T"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"Read a","name":"read_file"}}}`,
	}
	for _, line := range good {
		if _, _, err := s.checkLine(line, requested); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	bad := []string{
		`{"jsonrpc":"1.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, // session/new's answer has no sessionId
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":10}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":7}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"warning","title":""}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"compaction_update","compactionId":"c"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"session/set_title","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,              // set_title's answer says the title stored
		`{"jsonrpc":"2.0","id":4,"result":{"status":true}}`, // an unstable answer, wrong
		`{"jsonrpc":"2.0","id":6,"result":{}}`,              // a method of no file and no list
		`{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"title":5}}}}`,
	}
	for _, line := range bad {
		if _, _, err := s.checkLine(line, requested); err == nil {
			t.Errorf("the schema allowed %s", line)
		}
	}
	method, why, err := s.checkLine(`{"jsonrpc":"2.0","id":5,"result":{}}`, requested)
	if err != nil || method != "session/set_model" || why == "" {
		t.Errorf("session/set_model's answer: method %q, outside %q, %v; want it said to be outside the schema", method, why, err)
	}
	if _, _, err := s.checkLine(`{"jsonrpc":"1.0","id":5,"result":{}}`, requested); err == nil {
		t.Error("an answer outside the schema that is not JSON-RPC 2.0 passed")
	}
}
