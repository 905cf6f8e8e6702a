package checkpoint

import (
	"compress/zlib"
	"crypto/sha1"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A blob written twice (two files of a snapshot alike) is one object,
// the second write keeping the first's: on Windows a read-only loose
// object cannot be renamed over.
func TestObjectWrittenTwice(t *testing.T) {
	zw, err := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	o := &objects{dir: t.TempDir(), newHash: sha1.New, zw: zw}
	first, err := o.writeBytes([]byte("same\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := o.writeBytes([]byte("same\n"))
	if err != nil || second != first {
		t.Fatalf("writing the blob again = %s, %v; want %s", second, err, first)
	}
	entries, err := os.ReadDir(filepath.Join(o.dir, first[:2]))
	if err != nil || len(entries) != 1 || entries[0].Name() != first[2:] {
		t.Fatalf("objects in %s: %v, %v; want the one object, no temporary file", first[:2], entries, err)
	}
}
