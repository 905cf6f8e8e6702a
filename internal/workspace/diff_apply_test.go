package workspace

import (
	"math/rand/v2"
	"strings"
	"testing"

	godiff "github.com/sourcegraph/go-diff/diff"
)

// A unified diff is only useful if a standard parser reads it back and its
// hunks turn before into after.
func TestUnifiedDiffParsesAndApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// No \r: go-diff's parser drops it from hunk lines.
	words := []string{"alpha", "beta", "😀 gamma", "中文", "", "delta"}
	randomText := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString("\n")
		}
		return b.String()
	}
	for i := range 300 {
		before := randomText()
		lines := strings.SplitAfter(before, "\n")
		for j := range lines {
			if rng.IntN(5) == 0 {
				lines[j] = words[rng.IntN(len(words))] + "\n"
			}
		}
		after := strings.Join(lines, "") + randomText()[:0]
		if rng.IntN(3) == 0 {
			after += "tail\n"
		}
		diff := UnifiedDiff("dir/f.txt", before, after)
		if before == after {
			if diff != "" {
				t.Fatalf("case %d: diff of equal texts = %q", i, diff)
			}
			continue
		}
		fd, err := godiff.ParseFileDiff([]byte(diff))
		if err != nil {
			t.Fatalf("case %d: parsing %q: %v", i, diff, err)
		}
		if fd.OrigName != "a/dir/f.txt" || fd.NewName != "b/dir/f.txt" {
			t.Fatalf("case %d: names %q %q", i, fd.OrigName, fd.NewName)
		}
		if got := applyHunks(t, before, fd.Hunks); got != after {
			t.Fatalf("case %d: applying %q to %q = %q, want %q", i, diff, before, got, after)
		}
	}
}

func applyHunks(t *testing.T, before string, hunks []*godiff.Hunk) string {
	t.Helper()
	old := strings.SplitAfter(before, "\n")
	if old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	var out []string
	next := 0 // index of the next old line not yet copied
	for _, h := range hunks {
		start := int(h.OrigStartLine) - 1
		if h.OrigLines == 0 {
			start++ // an empty range names the line before it
		}
		out = append(out, old[next:start]...)
		next = start
		for _, l := range strings.SplitAfter(string(h.Body), "\n") {
			if l == "" || strings.HasPrefix(l, `\ No newline`) {
				if strings.HasPrefix(l, `\`) && len(out) > 0 {
					out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
				}
				continue
			}
			switch l[0] {
			case ' ':
				out = append(out, l[1:])
				next++
			case '-':
				next++
			case '+':
				out = append(out, l[1:])
			}
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, "")
}
