package checkpoint_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/racetest"
)

// A sandboxed command can swap a workspace directory with a symlink to
// a directory outside the root (renameat2 with RENAME_EXCHANGE), over
// and over, while checkpoints are taken: a snapshot that reads files by
// name could commit the outside key to the shadow repository, and a
// restore would then write it into the workspace. None may, and the
// outside directory stays as it was.
func TestCheckpointsCannotBeRacedOutOfTheRoot(t *testing.T) {
	const key = "HIDDEN-KEY-8c2e"
	p := newProject(t)
	write(t, filepath.Join(p.root, "d", "id_ed25519"), "decoy\n")
	write(t, filepath.Join(p.root, "d", "notes.txt"), "decoy notes\n")
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(outside, "id_ed25519"), key+"\n")
	write(t, filepath.Join(outside, "more", "key.pem"), key+"\n")
	swap, d := filepath.Join(p.root, "swap"), filepath.Join(p.root, "d")
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}

	stopSwapping := racetest.Swap(t, d, swap)
	ctx := context.Background()
	// Most snapshots meet the swap and are refused; enough are taken.
	// make stress: a snapshot for every hundred calls of the file tools.
	want := max(6, racetest.Count(t, 6)/100)
	var taken, refused int
	for i := 0; taken < want && i < 50*want; i++ {
		// A file changed each time, so each snapshot is a new commit.
		write(t, filepath.Join(p.root, "keep.txt"), fmt.Sprintf("kept %d\n", i))
		if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "keep.txt"))); err != nil {
			refused++ // the swap seen: fine, as long as nothing leaked
			continue
		}
		taken++
	}
	swaps := stopSwapping()
	t.Logf("%d snapshots taken, %d refused, %d swaps", taken, refused, swaps)
	if swaps == 0 || taken == 0 {
		t.Fatalf("the race did not run: %d swaps, %d snapshots taken", swaps, taken)
	}

	histories, err := filepath.Glob(filepath.Join(p.gemini, "history", "*", ".git"))
	if err != nil || len(histories) != 1 {
		t.Fatalf("shadow repositories: %v, %v", histories, err)
	}
	cmd := exec.Command("git", "--git-dir", histories[0], "cat-file", "--batch-all-objects", "--batch")
	objects, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading the shadow repository: %v", err)
	}
	if bytes.Contains(objects, []byte(key)) {
		t.Errorf("the shadow repository holds the outside key")
	}

	names, err := p.store.List()
	if err != nil || len(names) == 0 {
		t.Fatalf("checkpoints: %v, %v", names, err)
	}
	for _, name := range names {
		f, err := p.store.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		targets, err := p.store.Targets(ctx, f.CommitHash)
		if err != nil {
			t.Fatalf("restoring %s: %v", name, err)
		}
		for _, target := range targets {
			if bytes.Contains(target.Content, []byte(key)) {
				t.Errorf("restoring %s would write the outside key into %s", name, target.Path)
			}
		}
	}

	var found []string
	err = filepath.WalkDir(outside, func(path string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			found = append(found, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Errorf("the outside directory holds %v after the race, want only its two keys", found)
	}
}
