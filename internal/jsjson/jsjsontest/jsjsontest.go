// Package jsjsontest runs node on JSON documents, for the tests that hold
// gemini-ls's readers to what Gemini CLI's JSON.parse makes of them.
package jsjsontest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// NodeReads is what node makes of each of docs: script reads them, a JSON
// array of strings, from its standard input and writes its answers, one
// JSON value each, as an array on its standard output.
func NodeReads(t *testing.T, script string, docs []string) []any {
	t.Helper()
	node := platformtest.Tool(t, "node")
	file := filepath.Join(t.TempDir(), "reads.js")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, file)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node's answer %q: %v", out, err)
	}
	return got
}
