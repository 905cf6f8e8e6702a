package subagents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// A project's agent is offered only once acknowledged at its present
// content, and the acknowledgment is Gemini CLI's file:
// ~/.gemini/acknowledgments/agents.json, {root: {name: sha256}}, other
// entries kept.
func TestProjectAgentsNeedAcknowledgment(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	content := agentMD("proj", "project's")
	path := writeAgent(t, f.projectAgents(), "p.md", content)
	ackFile := filepath.Join(f.userDir, "acknowledgments", "agents.json")
	if err := os.MkdirAll(filepath.Dir(ackFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ackFile, []byte(`{"/elsewhere": {"x": "h"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := Options{UserDir: f.userDir, ProjectRoot: f.project, Trusted: true}
	c, errs := Load(ctx, opts)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if _, ok := c.Lookup("proj"); ok {
		t.Fatal("an unacknowledged project agent is offered")
	}
	pending := c.Unacknowledged()
	if len(pending) != 1 || pending[0].Definition.Name != "proj" || pending[0].Definition.Source != Project {
		t.Fatalf("unacknowledged = %+v", pending)
	}
	if _, err := c.Acknowledge(ctx, "proj"); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup("proj"); !ok {
		t.Error("the acknowledged agent is not offered")
	}
	data, err := os.ReadFile(ackFile)
	if err != nil {
		t.Fatal(err)
	}
	var acks map[string]map[string]string
	if err := json.Unmarshal(data, &acks); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(content))
	if acks[f.project]["proj"] != hex.EncodeToString(sum[:]) || acks["/elsewhere"]["x"] != "h" {
		t.Errorf("acknowledgments = %s", data)
	}
	// A new session sees it acknowledged; an edit asks again.
	if c, _ := Load(ctx, opts); len(c.Unacknowledged()) != 0 {
		t.Error("the acknowledgment did not last")
	}
	writeAgent(t, filepath.Dir(path), "p.md", agentMD("proj", "changed"))
	if c, _ := Load(ctx, opts); len(c.Unacknowledged()) != 1 {
		t.Error("an edited agent is still acknowledged")
	}
}

// A remote agent is acknowledged by its card's URL, as 0.61's
// ensureRemoteAgentHash has it: editing the rest of its file asks nothing.
func TestRemoteProjectAgentAcknowledgedByCard(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	writeAgent(t, f.projectAgents(), "r.md", "---\nname: rem\ndescription: one\nagent_card_url: http://a/card\n---\n")
	opts := Options{UserDir: f.userDir, ProjectRoot: f.project, Trusted: true}
	c, _ := Load(ctx, opts)
	if _, err := c.Acknowledge(ctx, "rem"); err != nil {
		t.Fatal(err)
	}
	writeAgent(t, f.projectAgents(), "r.md", "---\nname: rem\ndescription: two\nagent_card_url: http://a/card\n---\n")
	if c, _ := Load(ctx, opts); len(c.Unacknowledged()) != 0 {
		t.Error("a remote agent's new description asks for acknowledgment again")
	}
	data, _ := os.ReadFile(AcknowledgmentsPath(f.userDir))
	var acks map[string]map[string]string
	_ = json.Unmarshal(data, &acks)
	if acks[f.project]["rem"] != "http://a/card" {
		t.Errorf("acknowledgments = %s", data)
	}
}

// An acknowledgment waits for a fresh lock on the acknowledgments file,
// and keeps what was there.
func TestAcknowledgeWaitsForTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acknowledgments", "agents.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"/elsewhere": {"x": "h"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	locktest.Waits(t, path, func(ctx context.Context) error { return acknowledge(ctx, path, "/proj", "p", "hash") })
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"p": "hash"`) || !strings.Contains(string(data), `"x": "h"`) {
		t.Errorf("after the wait the file is\n%s", data)
	}
}

// The acknowledgments are rewritten as 0.61's JSON.stringify(…, null, 2)
// writes them: the file's key order kept (not sorted), entries of other
// shapes kept, U+2028 written as it is, no final line break; a file that
// does not parse is left alone.
func TestAcknowledgmentsAreWrittenAsGeminiCLIWritesThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acknowledgments", "agents.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	before := "{\"/z\": {\"b\": \"1\", \"a\": \"2\"}, \"/odd\": [1, \"x\u2028y\"], \"/proj\": {\"old\": \"h0\"}}"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := acknowledge(t.Context(), path, "/proj", "new", "h1"); err != nil {
		t.Fatal(err)
	}
	if err := acknowledge(t.Context(), path, "/a", "p", "h2"); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"/z\": {\n    \"b\": \"1\",\n    \"a\": \"2\"\n  },\n  \"/odd\": [\n    1,\n    \"x\u2028y\"\n  ],\n" +
		"  \"/proj\": {\n    \"old\": \"h0\",\n    \"new\": \"h1\"\n  },\n  \"/a\": {\n    \"p\": \"h2\"\n  }\n}"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("agents.json:\n%s\nwant:\n%s", got, want)
	}
	acks, err := readAcks(path)
	if err != nil || acks["/proj"]["new"] != "h1" || acks["/z"]["a"] != "2" || len(acks) != 3 {
		t.Errorf("read back, with an entry of another shape: %v, %v", acks, err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := acknowledge(t.Context(), path, "/proj", "x", "h"); err == nil || !strings.Contains(err.Error(), "does not parse, and is left alone") {
		t.Errorf("a file that does not parse: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{not json" {
		t.Errorf("the file that does not parse was changed: %q", got)
	}
}
