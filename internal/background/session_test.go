package background

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, text := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The session file comes out of the artifact under a name of its own,
// whatever the archive calls it; an archive without one says so.
func TestSessionOfAnArtifact(t *testing.T) {
	dir := t.TempDir()
	path, err := sessionOf(zipOf(t, map[string]string{"notes.txt": "x", "../../session-2026-abc.jsonl": "{\"sessionId\":\"abc\"}\n"}), dir)
	if err != nil || path != filepath.Join(dir, "session.jsonl") {
		t.Fatalf("sessionOf: %q, %v", path, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\"sessionId\":\"abc\"}\n" {
		t.Errorf("the session file holds %q", b)
	}
	if _, err := sessionOf(zipOf(t, map[string]string{"notes.txt": "x"}), t.TempDir()); err == nil || !strings.Contains(err.Error(), "no session file") {
		t.Errorf("an archive without a session: %v", err)
	}
	if _, err := sessionOf([]byte("not a zip"), t.TempDir()); err == nil {
		t.Error("took what is not a zip archive")
	}
}
