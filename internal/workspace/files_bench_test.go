package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hugeDirectory is a workspace whose root holds 100,000 files and a .gitignore.
func hugeDirectory(b *testing.B) (*Workspace, string) {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 100_000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%06d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w, err := New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return w, w.Roots()[0]
}

func BenchmarkReadDir100k(b *testing.B) {
	w, root := hugeDirectory(b)
	for b.Loop() {
		if _, _, err := w.ReadDir(b.Context(), root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalk100k(b *testing.B) {
	w, root := hugeDirectory(b)
	for b.Loop() {
		if _, err := w.Walk(b.Context(), root, WalkOptions{}, func(DirEntry) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// projectIgnore is a .gitignore such as a real project keeps: names,
// suffixes, anchored paths, directories, classes, ** and negations.
const projectIgnore = `# build output
/build/
/dist/
*.o
*.a
*.so
*.pyc
__pycache__/
*.log
*.tmp
*~
.DS_Store
.idea/
.vscode/*
!.vscode/settings.json
coverage/
*.min.js
**/generated/**
docs/_build/
/vendor/
*.sw[op]
[Tt]humbs.db
secret*.txt
!secret-ok.txt
**/*.bak
cmd/**/testdata/*.golden
.env
.env.*
!.env.example
node_modules/
`

// projectTree is a workspace of 20,000 files in 400 directories four
// deep, under projectIgnore and a .gitignore in every tenth directory:
// a walk matching each entry against some 35 rules.
func projectTree(b *testing.B) (*Workspace, string) {
	b.Helper()
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(projectIgnore), 0o644); err != nil {
		b.Fatal(err)
	}
	names := []string{"main.go", "util.go", "app.log", "x.pyc", "notes.md", "data.json", "secret1.txt", "a.bak", "lib.min.js", "README"}
	for d := range 400 {
		dir := filepath.Join(root, fmt.Sprintf("p%d", d%4), fmt.Sprintf("q%d", d%20), fmt.Sprintf("r%d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if d%10 == 0 {
			if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.json\n!keep*.json\n/local/\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for f := range 50 {
			name := fmt.Sprintf("%d-%s", f/len(names), names[f%len(names)])
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	w, err := New([]string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return w, w.Roots()[0]
}

func BenchmarkWalkProjectIgnore(b *testing.B) {
	w, root := projectTree(b)
	for b.Loop() {
		if _, err := w.Walk(b.Context(), root, WalkOptions{}, func(DirEntry) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
