package tools

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

func TestGrepSearch(t *testing.T) {
	tw := newTestWorkspace(t, demoFiles())
	tool := tw.tool(GrepSearchName, Options{})

	call := build(t, tool, map[string]any{"pattern": "TODO"})
	if call.Title() != `SearchText "TODO"` || kindOf(tool) != dialog.KindSearch || call.Confirmation() != nil {
		t.Errorf("Title %q Kind %q", call.Title(), kindOf(tool))
	}
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	// build/gen.go is git-ignored and not searched. With 3 matches or
	// fewer, the 15 lines around each are shown (50 around a single one),
	// as Gemini CLI 0.61 adds them when no context was asked for.
	wantOutput(t, res, `Found 3 matches for pattern "TODO" in the workspace directory:
---
File: README.md
L1- # demo
L2- 
L3- A tiny Go program used to exercise an agent's file tools.
L4: See TODO markers in the sources.
---
File: main.go
L1- package main
L2- 
L3- import (
L4- 	"fmt"
L5- 
L6- 	"example.com/demo/pkg/util"
L7- )
L8- 
L9: // TODO: localise the greeting.
L10- func greet(name string) string {
L11- 	return "Hello, " + util.Title(name)
L12- }
L13- 
L14- func main() {
L15- 	fmt.Println(greet("world"))
L16- }
---
File: pkg/util/strings.go
L1- package util
L2- 
L3- import "strings"
L4- 
L5- // Title upper-cases the first letter of s.
L6: // TODO: handle unicode properly.
L7- func Title(s string) string {
L8- 	if s == "" {
L9- 		return s
L10- 	}
L11- 	return strings.ToUpper(s[:1]) + s[1:]
L12- }
---`)
	if res.Display != "Found 3 matches." {
		t.Errorf("Display = %q", res.Display)
	}

	wantOutput(t, run(t, tool, map[string]any{"pattern": "TODO", "path": ".", "include": "*.go"}), `Found 2 matches for pattern "TODO" in path "." (filter: "*.go"):
---
File: main.go
L1- package main
L2- 
L3- import (
L4- 	"fmt"
L5- 
L6- 	"example.com/demo/pkg/util"
L7- )
L8- 
L9: // TODO: localise the greeting.
L10- func greet(name string) string {
L11- 	return "Hello, " + util.Title(name)
L12- }
L13- 
L14- func main() {
L15- 	fmt.Println(greet("world"))
L16- }
---
File: pkg/util/strings.go
L1- package util
L2- 
L3- import "strings"
L4- 
L5- // Title upper-cases the first letter of s.
L6: // TODO: handle unicode properly.
L7- func Title(s string) string {
L8- 	if s == "" {
L9- 		return s
L10- 	}
L11- 	return strings.ToUpper(s[:1]) + s[1:]
L12- }
---`)

	// Paths are relative to the searched directory; one match is singular.
	wantOutput(t, run(t, tool, map[string]any{"pattern": `func\s+Title`, "path": "pkg"}), `Found 1 match for pattern "func\s+Title" in path "pkg":
---
File: util/strings.go
L1- package util
L2- 
L3- import "strings"
L4- 
L5- // Title upper-cases the first letter of s.
L6- // TODO: handle unicode properly.
L7: func Title(s string) string {
L8- 	if s == "" {
L9- 		return s
L10- 	}
L11- 	return strings.ToUpper(s[:1]) + s[1:]
L12- }
---`)

	// The regexp is case-insensitive, as Gemini CLI's search is.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo: localise", "include": "main.go"}), `Found 1 match for pattern "todo: localise" in the workspace directory (filter: "main.go"):
---
File: main.go
L1- package main
L2- 
L3- import (
L4- 	"fmt"
L5- 
L6- 	"example.com/demo/pkg/util"
L7- )
L8- 
L9: // TODO: localise the greeting.
L10- func greet(name string) string {
L11- 	return "Hello, " + util.Title(name)
L12- }
L13- 
L14- func main() {
L15- 	fmt.Println(greet("world"))
L16- }
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "(?-i)todo"}), `No matches found for pattern "(?-i)todo" in the workspace directory.`)

	// A file can be searched on its own.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "Title", "path": "pkg/util/strings.go"}), `Found 2 matches for pattern "Title" in path "pkg/util/strings.go":
---
File: strings.go
L1- package util
L2- 
L3- import "strings"
L4- 
L5: // Title upper-cases the first letter of s.
L6- // TODO: handle unicode properly.
L7: func Title(s string) string {
L8- 	if s == "" {
L9- 		return s
L10- 	}
L11- 	return strings.ToUpper(s[:1]) + s[1:]
L12- }
---`)
}

func TestGrepSearchNoMatches(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	tool := tw.tool(GrepSearchName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"pattern": "beta", "path": "."}), `No matches found for pattern "beta" in path ".".`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "beta", "path": tw.root, "include": "*.md"}), `No matches found for pattern "beta" in path "." (filter: "*.md").`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "beta"}), `No matches found for pattern "beta" in the workspace directory.`)
}

func TestGrepSearchInclude(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"src/a.ts": "hit\n", "src/deep/b.tsx": "hit\n", "src/c.js": "hit\n", "d.ts": "hit\n"})
	tool := tw.tool(GrepSearchName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"pattern": "hit", "include": "src/**/*.{ts,tsx}"}), `Found 2 matches for pattern "hit" in the workspace directory (filter: "src/**/*.{ts,tsx}"):
---
File: src/a.ts
L1: hit
---
File: src/deep/b.tsx
L1: hit
---`)
	// A pattern without a slash also matches the file name anywhere.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "hit", "include": "*.ts"}), `Found 2 matches for pattern "hit" in the workspace directory (filter: "*.ts"):
---
File: d.ts
L1: hit
---
File: src/a.ts
L1: hit
---`)
}

// Lines keep their indentation and lose their trailing white space, as
// Gemini CLI 0.61 prints them (trimEnd).
func TestGrepSearchSkipsBinaryAndCleansLines(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"bin.dat":  "TODO\x00\x01",
		"crlf.txt": "  TODO indented \t\r\nnext\r\n",
		"long.txt": "TODO " + strings.Repeat("x", 3000) + "\n",
	})
	wantOutput(t, run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "TODO"}), `Found 2 matches for pattern "TODO" in the workspace directory:
---
File: crlf.txt
L1:   TODO indented
L2- next
---
File: long.txt
L1: TODO `+strings.Repeat("x", 1995)+`... [truncated]
---`)
}

func TestGrepSearchSeesOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "// TODO on disk\n", "b.go": "package b\n"})
	tw.open("a.go", "// fixed in the buffer\n")
	tw.open("b.go", "package b\n// TODO only in the buffer\n")
	tw.open("c.go", "// TODO never saved\n")
	wantOutput(t, run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "TODO"}), `Found 2 matches for pattern "TODO" in the workspace directory:
---
File: b.go
L1- package b
L2: // TODO only in the buffer
---
File: c.go
L1: // TODO never saved
---`)
}

// Without total_max_matches a search returns 0.61's 100 matches, saying
// so; a call may ask for more, up to maxGrepMatches.
func TestGrepSearchCapsMatches(t *testing.T) {
	var b strings.Builder
	for i := range 2100 {
		fmt.Fprintf(&b, "hit %d\n", i)
	}
	tw := newTestWorkspace(t, map[string]string{"many.txt": b.String()})
	tool := tw.tool(GrepSearchName, Options{})
	for _, c := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"pattern": "hit"}, 100},
		{map[string]any{"pattern": "hit", "total_max_matches": 5000.0}, 2000},
	} {
		res := run(t, tool, c.args)
		header, _, _ := strings.Cut(res.Output, "\n")
		if want := fmt.Sprintf(`Found %d matches for pattern "hit" in the workspace directory (results limited to %d matches for performance):`, c.want, c.want); header != want {
			t.Errorf("%v: header = %q, want %q", c.args, header, want)
		}
		if want := fmt.Sprintf("\nL%d: hit %d\n---", c.want, c.want-1); !strings.HasSuffix(res.Output, want) {
			t.Errorf("%v: output ends %q, want %q", c.args, res.Output[len(res.Output)-40:], want)
		}
	}
}

// grep_search's options as Gemini CLI 0.61 declares them, the older
// names beside them.
func TestGrepSearchOptions(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"a.go": "Todo one\nTODO two\nTODO three\n",
		"b.go": "TODO four\na.b c\n",
		"c.md": "TODO five\naxb\n",
	})
	tool := tw.tool(GrepSearchName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"pattern": "TODO", "dir_path": ".", "include_pattern": "*.go", "case_sensitive": true}),
		`Found 3 matches for pattern "TODO" in path "." (filter: "*.go"):
---
File: a.go
L1- Todo one
L2: TODO two
L3: TODO three
---
File: b.go
L1: TODO four
L2- a.b c
---`)
	same := run(t, tool, map[string]any{"pattern": "todo", "path": ".", "include": "*.go"})
	wantOutput(t, same, run(t, tool, map[string]any{"pattern": "todo", "dir_path": ".", "include_pattern": "*.go"}).Output)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "names_only": true}),
		`Found 3 files with matches for pattern "todo" in the workspace directory:
a.go
b.go
c.md`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "max_matches_per_file": 1.0, "include_pattern": "*.go"}),
		`Found 2 matches for pattern "todo" in the workspace directory (filter: "*.go"):
---
File: a.go
L1: Todo one
L2- TODO two
L3- TODO three
---
File: b.go
L1: TODO four
L2- a.b c
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "total_max_matches": 2.0}),
		`Found 2 matches for pattern "todo" in the workspace directory (results limited to 2 matches for performance):
---
File: a.go
L1: Todo one
L2: TODO two
L3- TODO three
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "a.b", "fixed_strings": true}),
		`Found 1 match for pattern "a.b" in the workspace directory:
---
File: b.go
L1- TODO four
L2: a.b c
---`)
}

func TestGrepSearchErrors(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	tool := tw.tool(GrepSearchName, Options{})
	wantError(t, run(t, tool, map[string]any{"pattern": "x", "path": "missing"}), "Path does not exist: "+tw.abs("missing"))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'pattern'"},
		{map[string]any{"pattern": ""}, "The 'pattern' parameter must be non-empty."},
		{map[string]any{"pattern": "a("}, "Invalid regular expression pattern provided: a(. Error: error parsing regexp: missing closing ): `a(`"},
		{map[string]any{"pattern": "a", "include_pattern": "[x"}, `params/include_pattern: invalid glob pattern "[x"`},
		{map[string]any{"pattern": "a", "include": 2.0}, "params/include_pattern must be string"},
		{map[string]any{"pattern": "a", "include": "*.go", "include_pattern": "*.md"}, "params/include_pattern and params/include (its older name) were both given, with different values: give only include_pattern"},
		{map[string]any{"pattern": "a", "total_max_matches": 0.0}, "params/total_max_matches must be >= 1"},
		{map[string]any{"pattern": "a", "max_matches_per_file": 0.0}, "params/max_matches_per_file must be >= 1"},
		{map[string]any{"pattern": "a", "names_only": "yes"}, "params/names_only must be boolean"},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestGrepSearchTitle(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"pkg/": ""})
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": `a\d`, "path": "pkg", "include": "*.go"})
	if want := `SearchText "a\d" in pkg (filter: *.go)`; call.Title() != want {
		t.Errorf("Title = %q, want %q", call.Title(), want)
	}
}

// TestGrepSearchSkipsFilesOverItsLimit: every engine leaves out a file
// over the cap and counts it (the walk stats nothing: the in-process engine
// learns the size when it opens the file, the others ask first).
func TestGrepSearchSkipsFilesOverItsLimit(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"big.txt": "needle needle needle\n", "small.txt": "needle\n", "big-quiet.txt": "nothing to see here\n"})
	for name, engine := range grepEngines(t, tw.root) {
		t.Run(name, func(t *testing.T) {
			call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
			call.(*grepCall).maxFileSize = 10
			call.(*grepCall).engine = engine
			res, err := call.Execute(t.Context(), CallInfo{})
			if err != nil {
				t.Fatal(err)
			}
			wantOutput(t, res, `Found 1 match for pattern "needle" in the workspace directory:
---
File: small.txt
L1: needle
---

(skipped 2 files over 10 bytes)`)
		})
	}
}

func TestGrepSearchSkipsUnreadableFiles(t *testing.T) {
	platformtest.Unix(t, "file modes to make a file unreadable with")
	if os.Geteuid() == 0 {
		t.Skip("root reads a file whatever its mode")
	}
	tw := newTestWorkspace(t, map[string]string{"locked.txt": "needle\n", "ok.txt": "needle\n"})
	if err := os.Chmod(tw.abs("locked.txt"), 0); err != nil {
		t.Fatal(err)
	}
	res := run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
	wantContains(t, res.Output, "File: ok.txt\nL1: needle\n---\n\n(skipped 1 unreadable file)")
}

// The ripgrep variant's options, as Gemini CLI 0.61 gives them: context
// lines as L<n>- around L<n>: matches, after/before over context, lines
// exclude_pattern matches left out before the per-file cap counts, and
// ignored files searched with no_ignore.
func TestGrepSearchRipgrepOptions(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".gitignore":  "ignored.txt\n",
		"a.txt":       "one\ntwo\nTODO skip me\nfour\nTODO keep\nsix\nseven\n",
		"ignored.txt": "TODO hidden by gitignore\n",
	})
	tool := tw.tool(GrepSearchName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"pattern": "keep", "context": 1.0}),
		`Found 1 match for pattern "keep" in the workspace directory:
---
File: a.txt
L4- four
L5: TODO keep
L6- six
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "keep", "context": 1.0, "after": 2.0, "before": 0.0}),
		`Found 1 match for pattern "keep" in the workspace directory:
---
File: a.txt
L4- four
L5: TODO keep
L6- six
L7- seven
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "exclude_pattern": "SKIP", "max_matches_per_file": 1.0, "include_pattern": "a.txt"}),
		`Found 1 match for pattern "todo" in the workspace directory (filter: "a.txt"):
---
File: a.txt
L1- one
L2- two
L4- four
L5: TODO keep
L6- six
L7- seven
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "four", "before": 1.0, "exclude_pattern": "skip"}),
		`Found 1 match for pattern "four" in the workspace directory:
---
File: a.txt
L4: four
---`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "no_ignore": true, "names_only": true}),
		`Found 2 files with matches for pattern "todo" in the workspace directory:
a.txt
ignored.txt`)
	wantOutput(t, run(t, tool, map[string]any{"pattern": "todo", "names_only": true}),
		`Found 1 files with matches for pattern "todo" in the workspace directory:
a.txt`)
	for args, want := range map[string]string{
		"context": "params/context must be >= 0",
		"exclude": "Invalid exclude regular expression pattern provided: a(. Error: error parsing regexp: missing closing ): `a(`",
	} {
		call := map[string]any{"pattern": "a", "context": -1.0}
		if args == "exclude" {
			call = map[string]any{"pattern": "a", "exclude_pattern": "a("}
		}
		if got := buildError(t, tool, call); got != want {
			t.Errorf("%s: error = %q, want %q", args, got, want)
		}
	}
}

// With no context, before or after given, Gemini CLI 0.61 shows the lines
// around a few matches on its own (enrichWithRipgrepAutoContext): 50
// before and after a single match, 15 around each of 2 or 3, none around
// 4 or more, and none once any of the three is given, even as 0.
func TestGrepSearchAutoContext(t *testing.T) {
	var lines strings.Builder
	for i := 1; i <= 200; i++ {
		if i == 100 || i == 140 || i == 145 || i == 190 {
			fmt.Fprintf(&lines, "  needle %d\n", i)
		} else {
			fmt.Fprintf(&lines, "  line %d\n", i)
		}
	}
	tw := newTestWorkspace(t, map[string]string{"a.txt": lines.String(), "b.txt": "needle 1\nb two\n"})
	tool := tw.tool(GrepSearchName, Options{})
	// shown is the line numbers of a's lines in out, L<n>: for matches.
	shown := func(out string) (context, matches []int) {
		for _, l := range strings.Split(out, "\n") {
			var n int
			if _, err := fmt.Sscanf(l, "L%d-", &n); err == nil && strings.HasPrefix(l, fmt.Sprintf("L%d- ", n)) {
				context = append(context, n)
			} else if _, err := fmt.Sscanf(l, "L%d:", &n); err == nil {
				matches = append(matches, n)
			}
		}
		return context, matches
	}
	span := func(from, to int, not ...int) []int {
		var out []int
		for i := from; i <= to; i++ {
			if !slices.Contains(not, i) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		args    map[string]any
		context []int
	}{
		{"one match: 50 lines around it", map[string]any{"pattern": "needle 100"}, span(50, 150, 100)},
		{"two: 15 around each", map[string]any{"pattern": "needle (100|140)$"}, append(span(85, 115, 100), span(125, 155, 140)...)},
		{"three, up to the end of the file", map[string]any{"pattern": "needle (100|140|190)$", "dir_path": "a.txt"}, slices.Concat(span(85, 115, 100), span(125, 155, 140), span(175, 200, 190))},
		{"windows merged", map[string]any{"pattern": "needle (140|145)$"}, span(125, 160, 140, 145)},
		{"four: none", map[string]any{"pattern": `needle \d+$`, "dir_path": "a.txt"}, nil},
		{"context 0 given: none", map[string]any{"pattern": "needle 100", "context": 0.0}, nil},
		{"before given: only that", map[string]any{"pattern": "needle 100", "before": 2.0}, span(98, 99)},
		{"after 0 given: none", map[string]any{"pattern": "needle 100", "after": 0.0}, nil},
		{"near the end of the file", map[string]any{"pattern": "needle 190"}, span(140, 200, 190)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tool, tc.args)
			context, _ := shown(res.Output)
			if !slices.Equal(context, tc.context) {
				t.Errorf("context lines %v, want %v\n%s", context, tc.context, res.Output)
			}
		})
	}
	// Lines are shown as Gemini CLI prints them, indentation kept; the
	// matches across files count together.
	wantOutput(t, run(t, tool, map[string]any{"pattern": "needle 1$"}), `Found 1 match for pattern "needle 1$" in the workspace directory:
---
File: b.txt
L1: needle 1
L2- b two
---`)
	res := run(t, tool, map[string]any{"pattern": "needle (1|100)$"})
	if !strings.Contains(res.Output, "File: a.txt\nL85-   line 85\n") || !strings.Contains(res.Output, "L115-   line 115\n---\nFile: b.txt\nL1: needle 1\nL2- b two\n---") || strings.Contains(res.Output, "L84-") {
		t.Errorf("two matches in two files: want 15 lines around each:\n%s", res.Output)
	}
	wantOutput(t, run(t, tool, map[string]any{"pattern": "needle 100", "names_only": true}), `Found 1 files with matches for pattern "needle 100" in the workspace directory:
a.txt`)
}

// Context is shown up to maxGrepContextLines lines in all: the matches
// past it are shown without, and the model is told.
func TestGrepSearchBoundsContextLines(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"a.txt": strings.Repeat("hit\na\nb\nc\nd\n", 1500),
		"b.txt": "before\nhit in b\nafter\n",
	})
	res := run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "hit", "context": 2.0, "total_max_matches": float64(maxGrepMatches)})
	contextLines := strings.Count(res.Output, "- ")
	if contextLines != maxGrepContextLines {
		t.Errorf("%d context lines shown, want %d", contextLines, maxGrepContextLines)
	}
	if strings.Count(res.Output, ": hit") != 1501 || !strings.Contains(res.Output, "File: b.txt\nL2: hit in b\n---") {
		t.Errorf("every match must be shown, b's without context:\n%s", res.Output[len(res.Output)-400:])
	}
	note := "(context is shown up to 5000 lines in all: the matches after that are shown without it; ask for fewer matches or less context to see it)"
	if !strings.HasSuffix(res.Output, "---\n\n"+note) || !strings.Contains(res.Display, note) {
		t.Errorf("the cut is not said: output ends %q, display %q", res.Output[len(res.Output)-200:], res.Display)
	}
}
