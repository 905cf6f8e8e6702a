package lsptest

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// install writes the same bytes, in a file of its own, executable.
func TestInstallCopiesTheBinary(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "built"), filepath.Join(dir, "installed")
	data := make([]byte, 3<<20+123) // records and a short last one
	r := rand.NewChaCha8([32]byte{})
	_, _ = r.Read(data)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := install(src, dst); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("installed %d bytes (%v), want the %d built", len(got), err, len(data))
	}
	if fi, err := os.Stat(dst); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed %v (%v), want it executable", fi.Mode(), err)
	}
	if err := install(src, dst); err == nil {
		t.Error("installed over a file already there")
	}
}
