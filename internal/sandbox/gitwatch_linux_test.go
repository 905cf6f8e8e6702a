package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A check reads only the directories made since the last one, as the
// kernel tells: none when nothing was made, the new ones when a
// repository was made (and it is set aside), and everything again when
// the kernel cannot tell.
func TestGitWatchReadsOnlyWhatWasMade(t *testing.T) {
	root := t.TempDir()
	for a := range 10 {
		for b := range 30 {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(a), fmt.Sprint(b)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	var warned []string
	w := &gitWatch{writable: func() []string { return []string{root} }, roots: func() []string { return []string{root} },
		warn: func(s string) { warned = append(warned, s) }, seen: map[string]bool{}, known: map[string]bool{}}
	defer w.close()
	w.check()
	if w.read < 311 {
		t.Fatalf("the first check read %d directories, want the 311 there", w.read)
	}
	w.check()
	if w.read != 0 {
		t.Errorf("a check with nothing made read %d directories", w.read)
	}
	sub := filepath.Join(root, "3", "7", "new", "sub")
	for _, d := range []string{"hooks", "objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(sub, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, ".git", "config"), []byte("[core]\n\tfsmonitor = touch /tmp/x #\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.check()
	if w.read == 0 || w.read > 10 {
		t.Errorf("a check after a repository was made read %d directories, want the few made", w.read)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "core.fsmonitor") {
		t.Errorf("warned %q", warned)
	}
	if _, err := os.Stat(filepath.Join(sub, ".git"+MadeSuffix)); err != nil {
		t.Errorf("the repository made was not set aside: %v", err)
	}
	w.notify.close()
	w.notify = nil // the kernel can tell no more
	w.check()
	if w.read < 311 {
		t.Errorf("a check with no watch read %d directories, want all", w.read)
	}
}
