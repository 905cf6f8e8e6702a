package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// Files lists what SystemMemory holds, in its order, with each file's
// text length (imports expanded, trimmed); blank files are left out as
// SystemMemory leaves them out.
func TestFilesAreSystemMemorysFiles(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "global rules\n")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "  \n")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules @./more.md")
	write(t, filepath.Join(tr.root, "more.md"), "imported")
	l := tr.loader(t)
	files, err := l.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mem := systemMemory(t, l)
	got := fmt.Sprint(files)
	if len(files) != 2 || files[0] != (File{filepath.Join(tr.userDir, "GEMINI.md"), len("global rules")}) ||
		files[1].Path != filepath.Join(tr.root, "GEMINI.md") || files[1].Size <= len("root rules imported") {
		t.Fatalf("Files = %s; memory:\n%s", got, mem)
	}
	inOrder(t, mem, "global rules", "root rules", "imported")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Files(ctx); err == nil {
		t.Error("Files with a cancelled context answered")
	}
}
