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

// More harmless repositories made than a check keeps to read again:
// it keeps maxHarmless, and the next check walks, finding them all.
func TestGitWatchWalksPastTheHarmlessItKeeps(t *testing.T) {
	root := t.TempDir()
	w := &gitWatch{writable: func() []string { return []string{root} }, roots: func() []string { return []string{root} },
		warn: func(string) {}, seen: map[string]bool{}, known: map[string]bool{}}
	defer w.close()
	w.check()
	for i := range maxHarmless + 1 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(i), ".git", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.check()
	if len(w.harmless) != maxHarmless || !w.walkNext {
		t.Fatalf("after %d repositories made, %d kept to read again (walk next: %v), want %d and a walk", maxHarmless+1, len(w.harmless), w.walkNext, maxHarmless)
	}
	w.check()
	if w.read < maxHarmless+1 {
		t.Errorf("the check after read %d directories, want a walk of the %d", w.read, maxHarmless+1)
	}
}

// BenchmarkGitWatchCheck is a check with nothing made, in a workspace of
// 10,400 directories (past the walk's bound), through the kernel's word
// (watched) and by walking (walked, as each check did before, and does
// where the kernel cannot tell):
//
//	go test -run '^$' -bench GitWatchCheck ./internal/sandbox/
func BenchmarkGitWatchCheck(b *testing.B) {
	root := b.TempDir()
	for a := range 20 {
		for c := range 20 {
			for d := range 25 {
				if err := os.MkdirAll(filepath.Join(root, fmt.Sprint(a), fmt.Sprint(c), fmt.Sprint(d)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, watched := range []bool{true, false} {
		b.Run(map[bool]string{true: "watched", false: "walked"}[watched], func(b *testing.B) {
			w := &gitWatch{writable: func() []string { return []string{root} }, roots: func() []string { return []string{root} },
				seen: map[string]bool{}, known: map[string]bool{}}
			defer w.close()
			w.check()
			if !watched {
				w.notify.close()
				w.notify = nil
			}
			for b.Loop() {
				w.check()
			}
		})
	}
}
