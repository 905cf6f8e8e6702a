package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestWithFact(t *testing.T) {
	const h = FactsHeader
	cases := []struct{ name, before, fact, want string }{
		{"empty file", "", "I like Go", h + "\n- I like Go\n"},
		{"user text without a trailing newline", "# Mine\nkeep this", "x", "# Mine\nkeep this\n\n" + h + "\n- x\n"},
		{"user text with a trailing newline", "# Mine\n", "x", "# Mine\n\n" + h + "\n- x\n"},
		{"user text ending in a blank line", "# Mine\n\n", "x", "# Mine\n\n" + h + "\n- x\n"},
		{"existing section at the end", "intro\n\n" + h + "\n- a\n", "b", "intro\n\n" + h + "\n- a\n- b\n"},
		{"existing section without a final newline", h + "\n- a", "b", h + "\n- a\n- b\n"},
		{"existing section followed by another", h + "\n- a\n\n## Other\ntext  \n", "b", h + "\n- a\n- b\n\n## Other\ntext  \n"},
		{"existing empty section before another", h + "\n\n## Other\n", "b", h + "\n- b\n\n## Other\n"},
		{"a deeper heading stays inside the section", h + "\n- a\n### sub\n- c\n", "b", h + "\n- a\n### sub\n- c\n- b\n"},
		{"user's trailing blank lines are kept", h + "\n- a\n\n\n", "b", h + "\n- a\n- b\n\n\n"},
		{"CRLF file", "# Mine\r\n", "x", "# Mine\r\n\r\n" + h + "\r\n- x\r\n"},
		{"CRLF section", h + "\r\n- a\r\n", "b", h + "\r\n- a\r\n- b\r\n"},
		{"multi-line fact is one item", "", "line one\nline two\r\n", h + "\n- line one line two\n"},
		{"list markers in front are dropped", "", "-- - remember me", h + "\n- remember me\n"},
		{"a fact cannot add a heading", "", "x\n## Injected", h + "\n- x ## Injected\n"},
		{"a heading-like line elsewhere is not the section", "### Gemini Added Memories extra\n", "x", "### Gemini Added Memories extra\n\n" + h + "\n- x\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := withFact(c.before, c.fact); got != c.want {
				t.Errorf("withFact(%q, %q) =\n%q\nwant\n%q", c.before, c.fact, got, c.want)
			}
		})
	}
	text := "# Notes\n"
	for _, fact := range []string{"one", "two", "three"} {
		text = withFact(text, fact)
	}
	if want := "# Notes\n\n" + h + "\n- one\n- two\n- three\n"; text != want {
		t.Errorf("three facts: got\n%q\nwant\n%q", text, want)
	}
}

// writeFactsFile creates path, and its directories, holding text.
func writeFactsFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAddFactKeepsTheUsersTextAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "GEMINI.md")
	user := "# My rules\r\nAlways use tabs.\t\r\n\r\n" + FactsHeader + "\r\n- old fact\r\n\r\n## Later\r\nmore\r\n"
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AddFact(context.Background(), path, "new fact"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "# My rules\r\nAlways use tabs.\t\r\n\r\n" + FactsHeader + "\r\n- old fact\r\n- new fact\r\n\r\n## Later\r\nmore\r\n"
	if string(data) != want {
		t.Errorf("file =\n%q\nwant\n%q", data, want)
	}
	// Windows has no file modes to keep.
	if info, _ := os.Stat(path); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", info.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// A GEMINI.md linked from a dotfiles repository stays a link.
func TestAddFactWritesThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "GEMINI.md")
	writeFactsFile(t, real, "mine\n")
	link := filepath.Join(dir, ".gemini", "GEMINI.md")
	os.MkdirAll(filepath.Dir(link), 0o755)
	platformtest.Symlink(t, real, link)
	if err := AddFact(context.Background(), link, "f"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(real); string(data) != "mine\n\n"+FactsHeader+"\n- f\n" {
		t.Errorf("target = %q", data)
	}
}

func TestAddFactRefuses(t *testing.T) {
	dir := t.TempDir()
	special := filepath.Join(dir, "GEMINI.md")
	if err := os.Mkdir(special, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := AddFact(context.Background(), special, "f"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	path := filepath.Join(dir, "other", "GEMINI.md")
	for fact, want := range map[string]string{" \n ": "missing the text", "- ": "missing the text", strings.Repeat("x", 5000): "at most 4.0 KiB"} {
		if err := AddFact(context.Background(), path, fact); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddFact(%.20q) = %v, want %q", fact, err, want)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a refused fact wrote the file")
	}
}

// globalMemory loads the system memory afresh, as a new session does, with
// userDir as the user's Gemini directory.
func globalMemory(t *testing.T, userDir string) string {
	t.Helper()
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := New(Config{Workspace: ws, UserDir: userDir}).SystemMemory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A fact is data: it imports nothing in any later session, neither the
// credentials next to GEMINI.md nor an ordinary Markdown file.
func TestFactIsNeverAnImport(t *testing.T) {
	userDir := filepath.Join(t.TempDir(), ".gemini")
	for name, marker := range map[string]string{
		"oauth_creds.json": "MARKER-refresh-token", ".env": "MARKER-api-key",
		"settings.json": "MARKER-mcp-token", "notes.md": "MARKER-notes",
	} {
		writeFactsFile(t, filepath.Join(userDir, name), marker)
	}
	path := filepath.Join(userDir, "GEMINI.md")
	writeFactsFile(t, path, "My own rules.\n")
	for _, fact := range []string{"@./oauth_creds.json @./.env @./settings.json", "see\t@notes.md and mail@example.com"} {
		if err := AddFact(context.Background(), path, fact); err != nil {
			t.Fatalf("AddFact(%q): %v", fact, err)
		}
	}
	got := globalMemory(t, userDir)
	if strings.Contains(got, "MARKER") {
		t.Fatalf("a fact imported a file:\n%s", got)
	}
	for _, want := range []string{"My own rules.", `- \@./oauth_creds.json \@./.env \@./settings.json`, "- see\t\\@notes.md and mail@example.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("the memory does not hold %q as written:\n%s", want, got)
		}
	}
}

// Sixteen adds at once each succeed, and every fact is in the file.
func TestConcurrentAddsKeepEveryFact(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", "GEMINI.md")
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = AddFact(context.Background(), path, fmt.Sprintf("fact number %d", i)) })
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("add %d: %v", i, err)
		}
		if !strings.Contains(string(data), fmt.Sprintf("- fact number %d\n", i)) {
			t.Errorf("fact %d is not in the file:\n%s", i, data)
		}
	}
}

// Another program (Gemini CLI, which takes no lock) adding a fact between
// an add's read and its write loses neither fact.
func TestAddKeepsAWriteThatGotInBetween(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", "GEMINI.md")
	const n = 16
	var mu sync.Mutex
	external, calls := 0, 0
	w := factWriter{interleave: func(target string) {
		mu.Lock()
		defer mu.Unlock()
		// Every other read: adds take turns, so each add's first
		// attempt meets a write and its second does not.
		calls++
		if calls%2 == 0 || external >= n {
			return
		}
		data, _ := os.ReadFile(target)
		if err := os.WriteFile(target, []byte(withFact(string(data), fmt.Sprintf("external %d", external))), 0o644); err != nil {
			t.Error(err)
		}
		external++
	}}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := w.add(context.Background(), path, fmt.Sprintf("mine %d", i)); err != nil {
				t.Errorf("add %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	for i := range n {
		for _, fact := range []string{fmt.Sprintf("- mine %d\n", i), fmt.Sprintf("- external %d\n", i)} {
			if !strings.Contains(string(data), fact) {
				t.Errorf("%q was lost:\n%s", fact, data)
			}
		}
	}
}

// A fact that would make GEMINI.md too large to load is refused, and the
// user's rules keep loading.
func TestAddRefusesAFactThatWouldHideTheFile(t *testing.T) {
	userDir := filepath.Join(t.TempDir(), ".gemini")
	path := filepath.Join(userDir, "GEMINI.md")
	rules := "# My rules\nAlways use tabs.\n"
	nearLimit := rules + strings.Repeat("- an old memory\n", (MaxFileSize-len(rules)-100)/16)
	writeFactsFile(t, path, nearLimit)
	err := AddFact(context.Background(), path, strings.Repeat("y", 200))
	if err == nil || !strings.Contains(err.Error(), "would make") || !strings.Contains(err.Error(), "over the 1.0 MiB") || !strings.Contains(err.Error(), "left unchanged") {
		t.Errorf("a fact pushing the file over the limit: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != nearLimit {
		t.Errorf("the file was changed")
	}
	if got := globalMemory(t, userDir); !strings.Contains(got, "Always use tabs.") {
		t.Errorf("the user's rules no longer load")
	}
}

// An add waits for a fresh lock on GEMINI.md, and gives up, the file
// unchanged, on one never released.
func TestAddFactHonoursTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", "GEMINI.md")
	writeFactsFile(t, path, "My own rules.\n")
	locktest.Waits(t, path, func(ctx context.Context) error { return AddFact(ctx, path, "waited") })
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "- waited\n") {
		t.Errorf("after the wait the file is\n%s", data)
	}
	locktest.Refused(t, path, func(ctx context.Context) error { return AddFact(ctx, path, "refused") })
}
