package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStage measures staging a tree of 3,000 files in the shadow
// index: read beneath the root and written as blobs here ("beneath"),
// against git add --all opening the files by name ("git-add", what a
// snapshot ran before), each into a new shadow repository ("cold": every
// blob written) and again with nothing changed ("warm").
func BenchmarkStage(b *testing.B) {
	root := b.TempDir()
	line := strings.Repeat("package tree // a line of some length\n", 30)
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("dir%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 30 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte(fmt.Sprintf("%s// %d %d\n", line, d, f)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	ways := []struct {
		name  string
		stage func(shadowRepo) error
	}{
		{"beneath", func(r shadowRepo) error { return r.stage(ctx, nil) }},
		{"git-add", func(r shadowRepo) error { _, err := r.git(ctx, "add", "--all", "."); return err }},
	}
	for _, way := range ways {
		b.Run(way.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				r := shadowRepo{dir: b.TempDir(), root: root}
				if err := r.ensure(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := way.stage(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(way.name+"/warm", func(b *testing.B) {
			r := shadowRepo{dir: b.TempDir(), root: root}
			if err := r.ensure(ctx); err != nil {
				b.Fatal(err)
			}
			if err := way.stage(r); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := way.stage(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
