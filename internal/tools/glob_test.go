package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// touch sets name's modification time to base plus offset.
func (tw *testWorkspace) touch(name string, offset time.Duration) {
	tw.t.Helper()
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(offset)
	if err := os.Chtimes(tw.abs(name), when, when); err != nil {
		tw.t.Fatal(err)
	}
}

func TestGlob(t *testing.T) {
	tw := newTestWorkspace(t, demoFiles())
	tw.touch("main.go", 0)
	tw.touch("pkg/util/strings.go", time.Hour)
	tool := tw.tool(GlobName, Options{})

	call := build(t, tool, map[string]any{"pattern": "**/*.go"})
	if call.Title() != "FindFiles **/*.go" || kindOf(tool) != dialog.KindSearch || call.Confirmation() != nil {
		t.Errorf("Title %q Kind %q", call.Title(), kindOf(tool))
	}
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, `Found 2 file(s) matching "**/*.go" within `+tw.root+` (1 additional files were ignored), sorted by modification time (newest first), paths relative to the workspace root:`+"\n"+
		"pkg/util/strings.go\nmain.go")

	// .gitignore lifted, build/gen.go is found, and nothing is reported
	// ignored; respect_gemini_ignore changes nothing.
	tw.touch("build/gen.go", -time.Hour)
	for _, args := range []map[string]any{
		{"pattern": "**/*.go", "respect_git_ignore": false},
		{"pattern": "**/*.go", "respect_git_ignore": false, "respect_gemini_ignore": false},
	} {
		wantOutput(t, run(t, tool, args),
			`Found 3 file(s) matching "**/*.go" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\n"+
				"pkg/util/strings.go\nmain.go\nbuild/gen.go")
	}

	// "*" does not cross directories.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "*.go"}),
		`Found 1 file(s) matching "*.go" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nmain.go")

	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/*.rs"}), `No files found matching pattern "**/*.rs" within `+tw.root)
}

func TestGlobCaseAndIgnore(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"src/App.TSX": "", "src/util.ts": "", "test/a.ts": ""})
	tw.touch("src/App.TSX", 2*time.Hour)
	tw.touch("src/util.ts", time.Hour)
	tool := tw.tool(GlobName, Options{})

	wantOutput(t, run(t, tool, map[string]any{"pattern": "src/*.tsx"}),
		`Found 1 file(s) matching "src/*.tsx" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nsrc/App.TSX")
	wantOutput(t, run(t, tool, map[string]any{"pattern": "src/*.tsx", "case_sensitive": true}),
		`No files found matching pattern "src/*.tsx" within `+tw.root)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/*.{ts,tsx}", "ignore": []any{"test/**"}}),
		`Found 2 file(s) matching "**/*.{ts,tsx}" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nsrc/App.TSX\nsrc/util.ts")
	// A search directory makes the pattern relative to it.
	if title := build(t, tool, map[string]any{"pattern": "*.ts", "path": "src"}).Title(); title != "FindFiles *.ts in src" {
		t.Errorf("Title = %q", title)
	}
	wantOutput(t, run(t, tool, map[string]any{"pattern": "*.ts", "path": "src"}),
		`Found 1 file(s) matching "*.ts" within `+tw.abs("src")+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nsrc/util.ts")
	// "**/" then a name is matched on the last name alone (faster): the
	// same answers, case folded or not, and a "/" after it still counts.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/*.TSX"}),
		`Found 1 file(s) matching "**/*.TSX" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nsrc/App.TSX")
	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/*.TSX", "case_sensitive": true}),
		`Found 1 file(s) matching "**/*.TSX" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\nsrc/App.TSX")
	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/*.tsx", "case_sensitive": true}),
		`No files found matching pattern "**/*.tsx" within `+tw.root)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "**/test/*.ts"}),
		`Found 1 file(s) matching "**/test/*.ts" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\ntest/a.ts")
	// An absolute pattern inside the search directory works too.
	wantOutput(t, run(t, tool, map[string]any{"pattern": tw.abs("test") + "/*.ts"}),
		`Found 1 file(s) matching "`+tw.abs("test")+`/*.ts" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\ntest/a.ts")
}

func TestGlobTiesSortByPath(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"b.txt": "", "a.txt": "", "c.txt": ""})
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		tw.touch(n, 0)
	}
	tw.touch("c.txt", time.Minute)
	wantOutput(t, run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "*.txt"}),
		`Found 3 file(s) matching "*.txt" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\n"+
			"c.txt\na.txt\nb.txt")
}

func TestGlobSeesUnsavedDocuments(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"old.go": ""})
	tw.touch("old.go", 0)
	tw.open("pkg/new.go", "package pkg\n") // open in the editor, never saved
	wantOutput(t, run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*.go"}),
		`Found 2 file(s) matching "**/*.go" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:`+"\npkg/new.go\nold.go")
}

func TestGlobErrors(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"file.txt": ""})
	tool := tw.tool(GlobName, Options{})

	wantError(t, run(t, tool, map[string]any{"pattern": "*", "path": "file.txt"}), "Path is not a directory: "+tw.abs("file.txt"))
	wantError(t, run(t, tool, map[string]any{"pattern": "*", "path": "missing"}), "Path does not exist: "+tw.abs("missing"))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'pattern'"},
		{map[string]any{"pattern": " "}, "The 'pattern' parameter must be non-empty."},
		{map[string]any{"pattern": "[a"}, `params/pattern: invalid glob pattern "[a"`},
		{map[string]any{"pattern": "/elsewhere/*.go"}, `The pattern "/elsewhere/*.go" is absolute but not inside the search directory ` + tw.root + `; give a pattern relative to it.`},
		{map[string]any{"pattern": "*", "case_sensitive": "no"}, "params/case_sensitive must be boolean"},
		{map[string]any{"pattern": "*", "ignore": []any{"{a"}}, `params/ignore: invalid glob pattern "{a"`},
		{map[string]any{"pattern": "*", "path": 1.0}, "params/dir_path must be string"},
		{map[string]any{"pattern": "*", "dir_path": 1.0}, "params/dir_path must be string"},
		{map[string]any{"pattern": "*", "respect_gemini_ignore": "no"}, "params/respect_gemini_ignore must be boolean"},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGlobCountsIgnoredWithinBudget(t *testing.T) {
	files := map[string]string{".gitignore": "out/\n", "a.go": ""}
	for i := range 30 {
		files[fmt.Sprintf("out/d%d/x%d.go", i/10, i%10)] = ""
	}
	tw := newTestWorkspace(t, files)
	tool := tw.tool(GlobName, Options{})
	count := func(budget int) string {
		call := build(t, tool, map[string]any{"pattern": "**/*.go"})
		call.(*globCall).ignoredBudget = budget
		res, err := call.Execute(t.Context(), CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(res.Output, ",")
		return header
	}
	// 30 ignored files in 4 ignored directories.
	if got, want := count(maxIgnoredWalk), `Found 1 file(s) matching "**/*.go" within `+tw.root+` (30 additional files were ignored)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// out, its three directories and 8 files use up a budget of 12: the
	// rest is neither walked nor counted (which 8 depends on the order
	// the walk met them in), and the count says it is a lower bound.
	if got, want := count(12), `Found 1 file(s) matching "**/*.go" within `+tw.root+` (at least 8 additional files were ignored)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGlobSaysWhenItRanOutOfTime(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": ""})
	call := build(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*.go"})
	// Out of time before it starts: a timeout of 1ns could still outlast
	// the walk of one file where the clock is coarse (Windows).
	call.(*globCall).timeout = 0
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, `No files found matching pattern "**/*.go" within `+tw.root+`

(the search stopped after 0s; these are the files found by then: search a narrower path or pattern to see the rest)`)
}

// TestGlobWalksOnlyWhereMatchesCanBe: a pattern whose leading names are
// fixed walks only below them (the rest of a big tree is not listed, and
// what it would have left out is not reported); any case, as matching is.
func TestGlobWalksOnlyWhereMatchesCanBe(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"src/app/x.ts": "", "src/y.ts": "", "other/z.ts": ""})
	platformtest.Symlink(t, t.TempDir(), tw.abs("other/outside"))
	const note = "skipped 1 symlink leading outside the workspace"
	for _, tt := range []struct {
		pattern string
		want    []string
		walked  bool // other/ is listed
	}{
		{"src/**/*.ts", []string{"src/app/x.ts", "src/y.ts"}, false},
		{"SRC/App/*.TS", []string{"src/app/x.ts"}, false},
		{"src/*.ts", []string{"src/y.ts"}, false},
		{"*/*.ts", []string{"other/z.ts", "src/y.ts"}, true},
		{"**/*.ts", []string{"other/z.ts", "src/app/x.ts", "src/y.ts"}, true},
		{"{src,other}/**/z.ts", []string{"other/z.ts"}, true},
	} {
		res := run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": tt.pattern})
		for _, f := range tt.want {
			wantContains(t, res.Output, "\n"+f)
		}
		if !strings.Contains(res.Output, fmt.Sprintf("Found %d file(s)", len(tt.want))) {
			t.Errorf("%s: %s", tt.pattern, res.Output)
		}
		if got := strings.Contains(res.Output, note); got != tt.walked {
			t.Errorf("%s: other/ listed %v, want %v:\n%s", tt.pattern, got, tt.walked, res.Output)
		}
	}
}

// glob lists each file relative to the workspace root, where read_file
// resolves it back to the same file, and a file of another root by its
// absolute path: a relative one would name a file of the first root.
func TestGlobPathsAreRelativeToTheWorkspaceRoot(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"src/a.ts": "first\n"})
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "b.ts"), []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tw.ws.AddRoot(other); err != nil {
		t.Fatal(err)
	}
	glob := tw.tool(GlobName, Options{})
	out := run(t, glob, map[string]any{"pattern": "*.ts", "dir_path": "src"}).Output
	if !strings.HasSuffix(out, "paths relative to the workspace root:\nsrc/a.ts") {
		t.Errorf("a file of the first root:\n%s", out)
	}
	if got := run(t, tw.tool(ReadFileName, Options{}), map[string]any{"file_path": "src/a.ts"}).Output; got != "first\n" {
		t.Errorf("read_file of the listed path = %q", got)
	}
	out = run(t, glob, map[string]any{"pattern": "*.ts", "dir_path": other}).Output
	if !strings.HasSuffix(out, "\n"+filepath.Join(other, "b.ts")) {
		t.Errorf("a file of another root is not listed by its absolute path:\n%s", out)
	}
}
