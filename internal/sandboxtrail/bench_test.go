package sandboxtrail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkChanged is the trust check's cost per root and prompt in a
// sandboxed session: its own window open, a hundred closed ones on the
// trail, a root below a writable path with a few configuration files
// and .env candidates.
func BenchmarkChanged(b *testing.B) {
	tr := At(b.TempDir())
	root := canonical(b.TempDir())
	app := filepath.Join(root, "app")
	for _, name := range []string{"settings.json", "commands/a.toml", "commands/b.toml", "agents/x.md"} {
		p := filepath.Join(app, ".gemini", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
	}
	var lines strings.Builder
	for i := range 100 {
		fmt.Fprintf(&lines, `{"writable":["/w%d"],"roots":["/w%d"],"from":1,"to":2}`+"\n", i, i)
	}
	os.MkdirAll(tr.dir, 0o700)
	os.WriteFile(filepath.Join(tr.dir, closedFile), []byte(lines.String()), 0o600)
	w, err := tr.Open([]string{root}, []string{root})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	also := []string{filepath.Join(app, ".env"), filepath.Join(root, ".env"), filepath.Join(filepath.Dir(root), ".env")}
	for b.Loop() {
		if _, err := tr.Changed(context.Background(), app, also); err != nil {
			b.Fatal(err)
		}
	}
}
