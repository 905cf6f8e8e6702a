package memory

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// rootBlock is the text of the root's GEMINI.md block in SystemMemory.
func rootBlock(t *testing.T, tr tree) string {
	t.Helper()
	got := systemMemory(t, tr.loader(t))
	path := filepath.Join(tr.root, "GEMINI.md")
	start := strings.Index(got, "--- Context from: "+path+" ---\n")
	end := strings.Index(got, "\n--- End of Context from: "+path+" ---")
	if start < 0 || end < 0 {
		t.Fatalf("no block for %s in:\n%s", path, got)
	}
	return got[start+len("--- Context from: "+path+" ---\n") : end]
}

func TestImportsNested(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "Top @./a.md end")
	write(t, filepath.Join(tr.root, "a.md"), "A\n@sub/b.md")
	write(t, filepath.Join(tr.root, "sub", "b.md"), "B from sub")
	want := "Top <!-- Imported from: ./a.md -->\n" +
		"A\n<!-- Imported from: sub/b.md -->\nB from sub\n<!-- End of import from: sub/b.md -->" +
		"\n<!-- End of import from: ./a.md --> end"
	if got := rootBlock(t, tr); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestImportsStopAtDepthFive(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@./d1.md")
	for i := 1; i <= 6; i++ {
		write(t, filepath.Join(tr.root, "d"+string(rune('0'+i))+".md"),
			"level "+string(rune('0'+i))+" @./d"+string(rune('0'+i+1))+".md")
	}
	got := rootBlock(t, tr)
	inOrder(t, got, "level 1", "level 2", "level 3", "level 4", "level 5 @./d6.md")
	if strings.Contains(got, "level 6") || strings.Contains(got, "Imported from: ./d6.md") {
		t.Errorf("a sixth level was expanded:\n%s", got)
	}
}

func TestImportCycleBroken(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "top @./a.md")
	write(t, filepath.Join(tr.root, "a.md"), "A @./b.md")
	write(t, filepath.Join(tr.root, "b.md"), "B @./a.md and @./GEMINI.md")
	got := rootBlock(t, tr)
	want := "top <!-- Imported from: ./a.md -->\nA <!-- Imported from: ./b.md -->\n" +
		"B <!-- File already processed: ./a.md --> and <!-- File already processed: ./GEMINI.md -->" +
		"\n<!-- End of import from: ./b.md -->\n<!-- End of import from: ./a.md -->"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSiblingImportsOfOneFileBothExpand(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "@./x.md @./x.md")
	write(t, filepath.Join(tr.root, "x.md"), "X")
	if got := rootBlock(t, tr); strings.Count(got, "<!-- Imported from: ./x.md -->\nX\n") != 2 {
		t.Errorf("the same file imported twice outside one chain expands twice, as in Gemini CLI:\n%s", got)
	}
}

func TestImportOutsideTheProjectRefused(t *testing.T) {
	tr := newTree(t)
	secret := filepath.Join(tr.base, "secret.md")
	write(t, secret, "SECRET")
	linked := symlink(t, secret, filepath.Join(tr.root, "link.md"))
	// Imported by the repository's own file, above the workspace root
	// but inside the git root: allowed (bounds_test.go holds a file
	// inside the roots to them).
	write(t, filepath.Join(tr.repo, "shared.md"), "shared in the repo")
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "@shared.md")
	write(t, filepath.Join(tr.root, "GEMINI.md"),
		"@../../../secret.md @"+secret+" @./link.md @https://example.com/x.md")
	got := rootBlock(t, tr)
	if strings.Contains(got, "SECRET") {
		t.Fatalf("a file outside the project was imported:\n%s", got)
	}
	refused := []string{"../../../secret.md", secret, "https://example.com/x.md"}
	if linked {
		refused = append(refused, "./link.md")
	}
	for _, p := range refused {
		if !strings.Contains(got, "<!-- Import failed: "+p+" - Path traversal attempt -->") {
			t.Errorf("import of %s not refused:\n%s", p, got)
		}
	}
	if all := systemMemory(t, tr.loader(t)); !strings.Contains(all, "shared in the repo") {
		t.Errorf("an import inside the git root was refused:\n%s", all)
	}
}

func TestGlobalImportsStayInTheGlobalDir(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.userDir, "GEMINI.md"), "@./style.md @../private.md")
	write(t, filepath.Join(tr.userDir, "style.md"), "global style")
	write(t, filepath.Join(tr.userDir, "..", "private.md"), "PRIVATE")
	got := systemMemory(t, tr.loader(t))
	if !strings.Contains(got, "global style") {
		t.Errorf("an import in the global dir failed:\n%s", got)
	}
	if strings.Contains(got, "PRIVATE") || !strings.Contains(got, "<!-- Import failed: ../private.md - Path traversal attempt -->") {
		t.Errorf("an import out of the global dir was not refused:\n%s", got)
	}
}

func TestImportsInCodeLeftAlone(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "a.md"), "IMPORTED")
	text := "Use `@./a.md` inline.\n```\n@./a.md\n```\n``@./a.md``\n"
	write(t, filepath.Join(tr.root, "GEMINI.md"), text)
	if got := rootBlock(t, tr); got != strings.TrimSpace(text) {
		t.Errorf("imports in code were touched:\n%s", got)
	}
}

func TestMissingImportNoted(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "before @./nope.md after\nmail me@example.com @ alone")
	got := rootBlock(t, tr)
	if !strings.HasPrefix(got, "before <!-- Import failed: ./nope.md - ") || !strings.Contains(got, "no such file") {
		t.Errorf("the missing import is not noted:\n%s", got)
	}
	if !strings.HasSuffix(got, "--> after\nmail me@example.com @ alone") {
		t.Errorf("the rest of the file was not kept as is:\n%s", got)
	}
}

func TestFindImports(t *testing.T) {
	got := findImports("@a.md x@y.md\t@/abs.md\n@.hidden @1.md @-x @")
	var paths []string
	for _, im := range got {
		paths = append(paths, im.path)
	}
	if want := "a.md|/abs.md|.hidden"; strings.Join(paths, "|") != want {
		t.Errorf("imports = %q, want %q", strings.Join(paths, "|"), want)
	}
}

func TestCodeRegions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want [][2]int
	}{
		{"a `b` c", [][2]int{{2, 5}}},
		{"```\nx\n```", [][2]int{{0, 9}}},
		{"`` a ` b ``", [][2]int{{0, 11}}},
		{"```x", [][2]int{{0, 2}}}, // the regex's backtracking: "``" matches
		{"no code", nil},
	} {
		got := codeRegions(tc.text)
		if len(got) != len(tc.want) {
			t.Errorf("codeRegions(%q) = %v, want %v", tc.text, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("codeRegions(%q) = %v, want %v", tc.text, got, tc.want)
			}
		}
	}
}

// codeRegionsByTheRegex is Gemini CLI's /(`+)([\s\S]*?)\1/g read
// literally, quadratic in a long run of backticks: what codeRegions must
// agree with.
func codeRegionsByTheRegex(content string) [][2]int {
	var regions [][2]int
	for i := 0; i < len(content); {
		tick := strings.IndexByte(content[i:], '`')
		if tick < 0 {
			break
		}
		i += tick
		n := 0
		for i+n < len(content) && content[i+n] == '`' {
			n++
		}
		matched := false
		for m := n; m >= 1; m-- {
			if k := strings.Index(content[i+m:], strings.Repeat("`", m)); k >= 0 {
				end := i + m + k + m
				regions = append(regions, [2]int{i, end})
				i, matched = end, true
				break
			}
		}
		if !matched {
			i++
		}
	}
	return regions
}

func TestCodeRegionsAgreeWithTheRegex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = "``x\n"[r.IntN(4)]
		}
		text := string(b)
		if got, want := codeRegions(text), codeRegionsByTheRegex(text); !slices.Equal(got, want) {
			t.Fatalf("codeRegions(%q) = %v, the regex finds %v", text, got, want)
		}
	}
}

func TestContextFileScanIsLinear(t *testing.T) {
	tr := newTree(t)
	// An import, for the scan to be made, and the file under the size
	// beyond which it is not read.
	withImport := func(input func(int) string) func(int) string {
		return func(size int) string { return "@x.md " + input(size-64) }
	}
	for name, input := range map[string]func(int) string{
		"a run of backticks":         lineartest.Repeat("`"),
		"runs growing":               growingRuns,
		"imports in code spans":      lineartest.Repeat("`@a` "),
		"imports between code spans": lineartest.Repeat("`x` @a "),
	} {
		lineartest.Linear(t, name, withImport(input), func(text string) {
			write(t, filepath.Join(tr.root, "GEMINI.md"), text)
			if got := rootBlock(t, tr); !strings.Contains(got, "Import failed: x.md") {
				t.Errorf("the import was not tried: %.200s", got)
			}
		})
	}
}

// growingRuns is runs of backticks each one longer than the last.
func growingRuns(size int) string {
	var b strings.Builder
	for n := 1; b.Len() < size; n++ {
		b.WriteString(strings.Repeat("`", n) + "x")
	}
	return b.String()[:size]
}

func TestImportFanOutBounded(t *testing.T) {
	tr := newTree(t)
	// Each level imports the next ten times: 10^5 imports unbounded.
	for i := 1; i <= 5; i++ {
		next := "@./l" + string(rune('0'+i+1)) + ".md "
		write(t, filepath.Join(tr.root, "l"+string(rune('0'+i))+".md"), strings.Repeat(next, 10))
	}
	write(t, filepath.Join(tr.root, "GEMINI.md"), strings.Repeat("@./l1.md ", 10))
	got := rootBlock(t, tr)
	if n := strings.Count(got, "<!-- Imported from:"); n > maxImports {
		t.Errorf("%d imports expanded, over the bound of %d", n, maxImports)
	}
	if !strings.Contains(got, "imports reached the limit of") {
		t.Errorf("the cut is not noted")
	}
}
