package tools

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// BenchmarkGrepMatcherGoroot runs the matcher alone over GOROOT/src's Go
// files, held in memory, and reports the speed in MB/s, and in MB per
// second of the thread's CPU time (steadier on a busy machine); in_place
// is the matcher, lower_copy its former way, which lower-cased the whole
// file first:
//
//	go test -run '^$' -bench GrepMatcherGoroot -benchtime 5x ./internal/tools/
func BenchmarkGrepMatcherGoroot(b *testing.B) {
	// Typical searches, from rare literals to ones of only common letters.
	literals := []struct{ name, pattern string }{
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
	files, size := loadGoSources(b, filepath.Join(goroot(b), "src"))
	for _, lit := range literals {
		m, err := newGrepMatcher(lit.pattern)
		if err != nil {
			b.Fatal(err)
		}
		var scratch []byte
		lowerCopy := func(content []byte, limit int) []grepMatch { return m.searchLowerCopy(content, limit, &scratch) }
		for _, path := range []struct {
			name   string
			search func(content []byte, limit int) []grepMatch
		}{{"in_place", m.search}, {"lower_copy", lowerCopy}} {
			b.Run(lit.name+"/"+path.name, func(b *testing.B) {
				b.SetBytes(size)
				// The thread's CPU time is the search's own.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0, measured := threadCPUTime()
				for b.Loop() {
					for _, f := range files {
						path.search(f, 1<<30)
					}
				}
				if cpu1, _ := threadCPUTime(); measured && cpu1 > cpu0 {
					b.ReportMetric(float64(size)*float64(b.N)/(cpu1-cpu0).Seconds()/1e6, "MB/cpu-s")
				}
			})
		}
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

// searchLowerCopy is the matcher's former case-insensitive path, kept to
// compare against: the whole file lower-cased into scratch, the literal
// found there with bytes.Index, the regexp run on each candidate line.
func (m *grepMatcher) searchLowerCopy(content []byte, limit int, scratch *[]byte) []grepMatch {
	hay := content
	if m.lit != nil && m.lit.fold {
		*scratch = lowerInto(*scratch, content)
		hay = *scratch
	}
	var out []grepMatch
	line, counted := 1, 0
	for pos := 0; pos < len(content) && len(out) < limit; {
		start := pos
		if m.lit != nil {
			i := bytes.Index(hay[pos:], m.lit.lit)
			if i < 0 {
				break
			}
			start = pos + bytes.LastIndexByte(content[pos:pos+i], '\n') + 1
		}
		end := bytes.IndexByte(content[start:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += start
		}
		text := bytes.TrimSuffix(content[start:end], []byte("\r"))
		if m.re.Match(text) {
			line += bytes.Count(content[counted:start], []byte("\n"))
			counted = start
			shown, _ := cutLine(strings.TrimSpace(string(text)))
			out = append(out, grepMatch{line: line, text: shown})
		}
		pos = end + 1
	}
	return out
}

// lowerInto is src with ASCII letters lower-cased, in dst's storage:
// eight bytes at a time (a byte is in A-Z when adding 0x3f to its low
// seven bits sets its top bit, adding 0x25 does not, and it is ASCII).
func lowerInto(dst, src []byte) []byte {
	dst = slices.Grow(dst[:0], len(src))[:len(src)]
	const ones, high = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		low7 := w &^ high
		upper := (low7 + 0x3f*ones) &^ (low7 + 0x25*ones) &^ w & high
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerASCII(src[i])
	}
	return dst
}
