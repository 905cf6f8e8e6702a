package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// With context.fileName unset, AGENTS.md is read beside GEMINI.md in
// every tier and below the root (Discover), each file once, GEMINI.md
// first in a folder holding both; the heading names AGENTS.md once one
// was read.
func TestAgentsFileReadByDefaultInEveryTier(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "AGENTS.md"), "global agents")
	write(t, filepath.Join(tr.repo, "AGENTS.md"), "repo agents")
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root agents")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root gemini")
	write(t, filepath.Join(tr.root, "c", "AGENTS.md"), "c agents")
	l := tr.loader(t)

	got := systemMemory(t, l)
	if !strings.HasPrefix(got, "# Contextual Instructions (GEMINI.md, AGENTS.md)\n") {
		t.Errorf("heading does not name AGENTS.md:\n%s", got)
	}
	inOrder(t, got,
		block(filepath.Join(tr.userDir, "AGENTS.md"), "global agents"),
		block(filepath.Join(tr.repo, "AGENTS.md"), "repo agents"),
		block(filepath.Join(tr.root, "GEMINI.md"), "root gemini"),
		block(filepath.Join(tr.root, "AGENTS.md"), "root agents"))
	for _, text := range []string{"root agents", "root gemini", "repo agents", "global agents"} {
		if n := strings.Count(got, "\n"+text+"\n"); n != 1 {
			t.Errorf("%q is in the memory %d times, want once:\n%s", text, n, got)
		}
	}
	if strings.Contains(got, "c agents") {
		t.Errorf("a subdirectory's AGENTS.md is in the system memory:\n%s", got)
	}
	if jit := l.Discover(context.Background(), "s", filepath.Join(tr.root, "c", "x.go")); jit != block(filepath.Join(tr.root, "c", "AGENTS.md"), "c agents") {
		t.Errorf("the subdirectory's AGENTS.md was not discovered: %q", jit)
	}
	if !l.NamesDefaulted() {
		t.Error("NamesDefaulted is false with context.fileName unset")
	}
}

// An AGENTS.md that is a symlink to the folder's GEMINI.md (a common way
// of keeping one file for every agent) is read once.
func TestAgentsFileLinkedToGeminiReadOnce(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "shared rules")
	platformtest.Symlink(t, "GEMINI.md", filepath.Join(tr.root, "AGENTS.md"))
	got := systemMemory(t, tr.loader(t))
	if n := strings.Count(got, "shared rules"); n != 1 {
		t.Errorf("the linked file is in the memory %d times:\n%s", n, got)
	}
}

// Without an AGENTS.md the memory is worded as 0.61's, which reads
// GEMINI.md alone by default; context.fileName set still decides, so
// naming GEMINI.md alone leaves AGENTS.md unread.
func TestAgentsFileDefaultKeepsGeminiCLIWordsAndSettingsDecide(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root gemini")
	if got := systemMemory(t, tr.loader(t)); !strings.HasPrefix(got, "# Contextual Instructions (GEMINI.md)\n") {
		t.Errorf("heading without an AGENTS.md:\n%s", got)
	}
	write(t, filepath.Join(tr.root, "AGENTS.md"), "root agents")
	l := tr.loader(t, "GEMINI.md")
	if got := systemMemory(t, l); strings.Contains(got, "root agents") {
		t.Errorf("context.fileName names GEMINI.md alone, yet AGENTS.md was read:\n%s", got)
	}
	if l.NamesDefaulted() {
		t.Error("NamesDefaulted with context.fileName set")
	}
}
