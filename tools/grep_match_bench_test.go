package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// benchLiterals are the patterns BenchmarkGrepMatcherGoroot times: typical
// searches, from rare literals to ones of only common letters.
var benchLiterals = []struct{ name, pattern string }{
	{"func_main", "func main"},
	{"handler_paren", `handler\(`},
	{"todo", "todo"},
	{"return_err", "return err"},
	{"package", "package"},
	{"import", "import"},
	{"long_identifier", "newGrepMatcherForTheWholeTree"},
	{"digits", "0x7f"},
	{"the", "the"},
	{"ent", "ent"},
	{"case_sensitive", "(?-i)Handler"},
	{"regexp", `err\s*!=\s*nil`},
}

// BenchmarkGrepMatcherGoroot runs the matcher alone over GOROOT/src's Go
// files, held in memory, and reports the speed in MB/s:
//
//	go test -run '^$' -bench GrepMatcherGoroot -benchtime 5x ./tools/
func BenchmarkGrepMatcherGoroot(b *testing.B) {
	files, size := loadGoSources(b, filepath.Join(runtime.GOROOT(), "src"))
	for _, lit := range benchLiterals {
		m, err := newGrepMatcher(lit.pattern)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(lit.name, func(b *testing.B) {
			b.SetBytes(size)
			var scratch []byte
			for b.Loop() {
				for _, f := range files {
					m.search(f, 1<<30, &scratch)
				}
			}
		})
	}
}

// loadGoSources reads every .go file under root into memory.
func loadGoSources(b *testing.B, root string) (files [][]byte, size int64) {
	b.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files, size = append(files, content), size+int64(len(content))
		return nil
	})
	if err != nil {
		b.Skipf("GOROOT/src is not readable: %v", err)
	}
	return files, size
}
