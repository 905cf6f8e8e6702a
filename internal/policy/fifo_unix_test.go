//go:build unix

package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// A FIFO among a directory's policies, or given as a policy file or
// directory, does not block loading: it is skipped and named, and the
// other files load. A
// symlink in a directory is skipped as Gemini CLI skips it, and named.
func TestLoadSkipsFIFOs(t *testing.T) {
	dir := writeDir(t, map[string]string{"deny.toml": `
[[rule]]
toolName = "write_file"
decision = "deny"
priority = 1
`})
	inDir := fifotest.Make(t, filepath.Join(dir, "pipe.toml"))
	given := fifotest.Make(t, filepath.Join(t.TempDir(), "given.toml"))
	asDir := fifotest.Make(t, filepath.Join(t.TempDir(), "policies"))
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(filepath.Join(dir, "deny.toml"), link); err != nil {
		t.Fatal(err)
	}
	var e *policy.Engine
	fifotest.Returns(t, "loading policies", func() {
		e = policy.Load([]policy.Source{{Tier: policy.TierUser, Path: dir}, {Tier: policy.TierAdmin, Path: given}, {Tier: policy.TierWorkspace, Path: asDir}}, true)
	})
	if rules := fromFiles(e); len(rules) != 1 || rules[0].ToolName != "write_file" {
		t.Errorf("rules %v, want deny.toml's one", rules)
	}
	var problems []string
	for _, p := range e.Problems() {
		problems = append(problems, p.String())
	}
	all := strings.Join(problems, "\n")
	for _, fifo := range []string{inDir, given, asDir} {
		if !fifotest.Named(all, fifo) {
			t.Errorf("%s not named as a named pipe; problems:\n%s", fifo, all)
		}
	}
	if !strings.Contains(all, link+": Failed to read policy file: it is a symbolic link") {
		t.Errorf("the symlink skipped is not named; problems:\n%s", all)
	}
}
