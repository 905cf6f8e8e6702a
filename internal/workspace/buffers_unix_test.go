//go:build unix

package workspace

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A FIFO, a symlink to one and a device are refused as a read of disk
// refuses them, without blocking and without asking the editor.
func TestTheEditorIsNotAskedAboutSpecialFiles(t *testing.T) {
	root := t.TempDir()
	w, err := New([]string{root, "/dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root = w.Roots()[0]
	b := &editorBuffers{texts: map[string]string{}}
	w.SetBuffers(b)
	fifo := filepath.Join(root, "fifo")
	mkfifo(t, fifo)
	symlink(t, "fifo", filepath.Join(root, "to-fifo"))
	for _, p := range []string{fifo, filepath.Join(root, "to-fifo"), "/dev/null", "/dev/zero"} {
		b.texts[p] = "from the editor"
		err := finishWithin(t, 5*time.Second, func() error {
			_, err := w.ReadFile(t.Context(), p, MaxFileSize)
			return err
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("reading %s: %v, want ErrNotRegular", p, err)
		}
		if _, err := w.PrepareChange(t.Context(), p, "x"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("PrepareChange of %s: %v, want ErrNotRegular", p, err)
		}
	}
	if asked := b.askedAbout(); len(asked) != 0 {
		t.Errorf("the editor was asked about %v", asked)
	}
}
