package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// grepEngines are the engines installed here, by name; the in-process
// one always is.
func grepEngines(t *testing.T, dir string) map[string]grepEngine {
	engines := map[string]grepEngine{"in-process": inProcessGrep{}}
	if _, err := exec.LookPath("rg"); err == nil {
		engines["rg"] = externalGrep{tool: ripgrep{}, dir: dir}
	} else {
		t.Log("rg is not installed: its engine is not compared (make test-go installs it)")
	}
	if _, err := exec.LookPath("git"); err == nil {
		engines["git grep"] = externalGrep{tool: gitGrep{}, dir: dir}
	}
	return engines
}

// engineFixture is one of each thing an engine could get wrong.
func engineFixture(t *testing.T) *testWorkspace {
	var many strings.Builder
	for i := range 30 {
		fmt.Fprintf(&many, "hit %d\n", i)
	}
	tw := newTestWorkspace(t, map[string]string{
		"a.go":                "package a\n\nfunc Main() {} // TODO first\n\tfunc   main2() {}\n",
		"crlf.txt":            "Func main\r\nend$\r\n  todo: spaced  \r\n",
		"nul-byte.bin":        "func main\x00 todo\n", // not nul.bin: NUL is a device on Windows
		"control.bin":         strings.Repeat("\x01\x02\x03", 100) + "func main\n",
		"late-nul.txt":        strings.Repeat("x\n", 3000) + "func main\n\x00\n",
		"long.txt":            "TODO " + strings.Repeat("y", 2500) + "\n",
		"latin1.txt":          "caf\xe9 todo\n",
		"-dash.txt":           "todo dash\n",
		".hidden/h.txt":       "todo hidden\n",
		"sub/.gitignore":      "skipped.txt\n",
		"sub/skipped.txt":     "todo ignored\n",
		"sub/kept.txt":        "TODO kept\nKelvin \u212a todo\nDigits 42 todo\n",
		"gem/.geminiignore":   "*.md\n",
		"gem/notes.md":        "todo gemini-ignored\n",
		"gem/code.go":         "// Todo in code\n",
		"disk-only.txt":       "todo on disk\n",
		"many/one.txt":        many.String(),
		"many/two.txt":        many.String(),
		"ws.txt":              "word\tsep todo\nwordsep\n",
		"big.txt":             strings.Repeat("todo\n", 40),
		"unicode/ünï.txt":     "todo ünïcode ÄÖ\n",
		"empty.txt":           "",
		"only-newlines.txt":   "\n\n\n",
		"trailing/no-eol.txt": "last todo",
	})
	tw.open("disk-only.txt", "buffer text\nTODO from the buffer\n")
	tw.open("unsaved.txt", "todo never saved\n")
	platformtest.Symlink(t, tw.abs("a.go"), tw.abs("link.go"))
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("todo SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	platformtest.Symlink(t, filepath.Join(outside, "secret.txt"), tw.abs("out.txt"))
	if runtime.GOOS != "windows" {
		if err := exec.Command("mkfifo", tw.abs("fifo.txt")).Run(); err != nil {
			t.Fatal(err)
		}
	}
	return tw
}

// TestGrepEnginesAgree runs every engine over the same files and queries:
// every output must be the in-process engine's, byte for byte.
func TestGrepEnginesAgree(t *testing.T) {
	tw := engineFixture(t)
	tool := tw.tool(GrepSearchName, Options{})
	queries := []map[string]any{
		{"pattern": "todo"},
		{"pattern": "(?-i)TODO"},
		{"pattern": "func\\s+main"},
		{"pattern": `^\s*func`},
		{"pattern": `end\$$`},
		{"pattern": `todo\s*$`},
		{"pattern": `\d+ todo`},
		{"pattern": `k`},
		{"pattern": `K.lvin`},
		{"pattern": `\bhit\b \d`},
		{"pattern": `hit [0-9]+`, "path": "many"},
		{"pattern": `caf. todo`},
		{"pattern": `ü`},
		{"pattern": `x*`, "include": "only-newlines.txt"},
		{"pattern": "todo", "include": "*.go"},
		{"pattern": "todo", "path": "sub/kept.txt"},
		{"pattern": `word\ssep`},
		{"pattern": `last`},
		{"pattern": `SECRET`},
		{"pattern": "todo", "context": 1.0},
		{"pattern": `hit \d`, "path": "many", "before": 2.0, "after": 1.0, "max_matches_per_file": 3.0},
		{"pattern": "hit", "path": "many", "exclude_pattern": `hit [0-9]$`, "max_matches_per_file": 2.0},
		{"pattern": "todo", "no_ignore": true},
		// Gemini CLI 0.61's automatic context: 15 lines around 2 or 3
		// matches, 50 around one (crossing a CRLF file, an open document
		// and a file without a final line break), none once any of
		// context, before and after is given, even as 0.
		{"pattern": "todo", "path": "sub"},
		{"pattern": `hit 1\d`, "path": "many/one.txt", "max_matches_per_file": 2.0},
		{"pattern": `hit 2\d`, "path": "many", "total_max_matches": 3.0},
		{"pattern": "end"},
		{"pattern": "buffer"},
		{"pattern": "last"},
		{"pattern": `hit 15`, "path": "many/one.txt", "after": 0.0},
		{"pattern": `hit 1[56]`, "path": "many/one.txt", "exclude_pattern": `hit [0-9]$`},
	}
	engines := grepEngines(t, tw.root)
	for _, args := range queries {
		var want string
		for _, name := range []string{"in-process", "rg", "git grep"} {
			engine, ok := engines[name]
			if !ok {
				continue
			}
			call := build(t, tool, args).(*grepCall)
			call.engine = engine
			if dir := call.dir; !strings.HasSuffix(fmt.Sprint(args["path"]), ".txt") {
				if e, ok := engine.(externalGrep); ok {
					e.dir = dir
					call.engine = e
				}
			} else if e, ok := engine.(externalGrep); ok {
				e.dir = filepath.Dir(dir)
				call.engine = e
			}
			res, err := call.Execute(t.Context(), CallInfo{})
			if err != nil {
				t.Fatalf("%s %v: %v", name, args, err)
			}
			got := res.Output + res.Error
			if name == "in-process" {
				want = got
				continue
			}
			if got != want {
				t.Errorf("%s %v:\n%s\nin-process:\n%s", name, args, got, want)
			}
		}
	}
}

// TestGrepInProcessOnTheFixture pins what the engines agree on.
func TestGrepInProcessOnTheFixture(t *testing.T) {
	tw := engineFixture(t)
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "todo"}).(*grepCall)
	call.engine = inProcessGrep{}
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, `Found 56 matches for pattern "todo" in the workspace directory:
---
File: -dash.txt
L1: todo dash
---
File: .hidden/h.txt
L1: todo hidden
---
File: a.go
L3: func Main() {} // TODO first
---
File: big.txt
L1: todo
L2: todo
L3: todo
L4: todo
L5: todo
L6: todo
L7: todo
L8: todo
L9: todo
L10: todo
L11: todo
L12: todo
L13: todo
L14: todo
L15: todo
L16: todo
L17: todo
L18: todo
L19: todo
L20: todo
L21: todo
L22: todo
L23: todo
L24: todo
L25: todo
L26: todo
L27: todo
L28: todo
L29: todo
L30: todo
L31: todo
L32: todo
L33: todo
L34: todo
L35: todo
L36: todo
L37: todo
L38: todo
L39: todo
L40: todo
---
File: crlf.txt
L3:   todo: spaced
---
File: disk-only.txt
L2: TODO from the buffer
---
File: gem/code.go
L1: // Todo in code
---
File: latin1.txt
L1: caf`+"\xe9"+` todo
---
File: link.go
L3: func Main() {} // TODO first
---
File: long.txt
L1: TODO `+strings.Repeat("y", 1995)+`... [truncated]
---
File: sub/kept.txt
L1: TODO kept
L2: Kelvin `+"\u212a"+` todo
L3: Digits 42 todo
---
File: trailing/no-eol.txt
L1: last todo
---
File: unicode/ünï.txt
L1: todo ünïcode ÄÖ
---
File: unsaved.txt
L1: todo never saved
---
File: ws.txt
L1: word`+"\t"+`sep todo
---

(skipped 1 symlink leading outside the workspace, 1 special file (device, FIFO or socket))`)
}

// TestGrepEnginesShareTheCap: the first maxMatches matches in walk order,
// whatever the engine and however its work was split.
func TestGrepEnginesShareTheCap(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = strings.Repeat("needle\n", 7)
	}
	tw := newTestWorkspace(t, files)
	var want string
	for name, engine := range grepEngines(t, tw.root) {
		call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"}).(*grepCall)
		call.engine, call.maxMatches = engine, 100
		res, err := call.Execute(t.Context(), CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		wantContains(t, res.Output, "Found 100 matches for pattern \"needle\" in the workspace directory (results limited to 100 matches for performance):")
		wantContains(t, res.Output, "File: d14/f.txt\nL1: needle\nL2: needle\n---")
		if strings.Contains(res.Output, "d15/") {
			t.Errorf("%s: matches past the cap in walk order: %s", name, res.Output)
		}
		if want == "" {
			want = res.Output
		} else if res.Output != want {
			t.Errorf("%s:\n%s\nanother engine:\n%s", name, res.Output, want)
		}
	}
}

// TestGrepExternalEngineFallsBack: a pattern the program would read
// differently (a Unicode word boundary) or rejects is searched in-process.
func TestGrepExternalEngineFallsBack(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "é1 x\n"})
	q := func(pattern string) *grepQuery {
		m, err := newGrepMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		return &grepQuery{ws: tw.ws, matcher: m, maxFileSize: 1 << 20, maxMatches: 10}
	}
	if _, ok := (ripgrep{}).args(q(`\b1`)); ok {
		t.Error(`rg is given \b`)
	}
	if _, ok := (ripgrep{}).args(q(`é1`)); !ok {
		t.Error("rg is not given a plain pattern")
	}
	if _, ok := (ripgrep{}).args(q(`^x`)); ok {
		t.Error(`rg is given ^`)
	}
	if _, ok := (gitGrep{}).args(q(`x.`)); ok {
		t.Error("git grep is given a dot it reads differently on invalid UTF-8")
	}
	if args, ok := (ripgrep{}).args(q(`x.`)); !ok || !slices.Contains(args, `(?i:X(?:.|(?-u:[\x80-\xFF])))`) {
		t.Errorf("rg is given %q", args)
	}
	if _, err := exec.LookPath("rg"); err != nil {
		return
	}
	// Go reads \b as ASCII: between é and 1 there is one; in rg not.
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": `\b1`}).(*grepCall)
	call.engine = externalGrep{tool: ripgrep{}, dir: tw.root}
	wantOutput(t, mustExecute(t, call), "Found 1 match for pattern \"\\b1\" in the workspace directory:\n---\nFile: a.txt\nL1: é1 x\n---")
	// A program that fails as a whole: the batch is searched in-process.
	call = build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": `x`}).(*grepCall)
	call.engine = externalGrep{tool: brokenTool{ripgrep{}}, dir: tw.root}
	wantOutput(t, mustExecute(t, call), "Found 1 match for pattern \"x\" in the workspace directory:\n---\nFile: a.txt\nL1: é1 x\n---")
}

// A search too small to be worth starting the program is made in-process,
// with the same result; a larger one runs the program.
func TestGrepExternalEngineLeavesSmallSearchesInProcess(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg is not installed (make test-go installs it)")
	}
	tw := newTestWorkspace(t, map[string]string{"a.txt": "one x\n", "b.txt": strings.Repeat("filler\n", 200) + "x two\n"})
	for _, tc := range []struct {
		below int64
		ran   bool
	}{{smallSearch, false}, {100, true}} {
		var runs atomic.Int32
		call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "x", "context": 0.0}).(*grepCall)
		call.engine = externalGrep{tool: countedTool{ripgrep{}, &runs}, dir: tw.root, inProcessBelow: tc.below}
		wantOutput(t, mustExecute(t, call), "Found 2 matches for pattern \"x\" in the workspace directory:\n---\nFile: a.txt\nL1: one x\n---\nFile: b.txt\nL201: x two\n---")
		if ran := runs.Load() > 0; ran != tc.ran {
			t.Errorf("in-process below %d bytes: rg ran: %v, want %v", tc.below, ran, tc.ran)
		}
	}
}

// countedTool is rg, counting the uses of its name (each run uses it).
type countedTool struct {
	ripgrep
	runs *atomic.Int32
}

func (c countedTool) name() string { c.runs.Add(1); return c.ripgrep.name() }

// brokenTool gives rg an option it does not know.
type brokenTool struct{ ripgrep }

func (b brokenTool) args(q *grepQuery) ([]string, bool) {
	args, ok := b.ripgrep.args(q)
	return append([]string{"--no-such-option"}, args...), ok
}

func mustExecute(t *testing.T, call Call) Result {
	t.Helper()
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// slowEngine searches the first file it gets, then hangs until the
// search's time is up.
type slowEngine struct{}

func (slowEngine) asksInfo() bool { return false }

func (slowEngine) search(ctx context.Context, q *grepQuery, files <-chan grepFile, found func(grepOutcome)) error {
	found(searchOne(ctx, q, <-files, new([]byte)))
	<-ctx.Done()
	return ctx.Err()
}

// TestGrepSearchSaysWhenTimeRanOut: what was found by the deadline is
// returned, and the cut said.
func TestGrepSearchSaysWhenTimeRanOut(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "needle\n", "b.txt": "needle\n"})
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"}).(*grepCall)
	call.engine, call.timeout = slowEngine{}, 50*time.Millisecond
	wantOutput(t, mustExecute(t, call), "Found 1 match for pattern \"needle\" in the workspace directory:\n---\nFile: a.txt\nL1: needle\n---\n\n"+
		"(the search stopped after 50ms; these are the matches in the files searched by then: search a narrower path or include filter to see the rest)")
}

// TestLowerInto: the eight-bytes-at-a-time lower-casing lower-cases A-Z
// and nothing else, at every offset.
func TestLowerInto(t *testing.T) {
	var all []byte
	for b := range 256 {
		all = append(all, byte(b))
	}
	all = append(all, all...)
	for off := range 9 {
		src := all[off:]
		got := lowerInto(nil, src)
		for i, b := range src {
			want := b
			if 'A' <= b && b <= 'Z' {
				want = b + 32
			}
			if got[i] != want {
				t.Fatalf("offset %d: byte %#x lower-cased to %#x, want %#x", off, b, got[i], want)
			}
		}
	}
}

// countingEngine counts the files the walk sent to the engine it wraps.
type countingEngine struct {
	grepEngine
	sent *atomic.Int64
}

func (e countingEngine) search(ctx context.Context, q *grepQuery, files <-chan grepFile, found func(grepOutcome)) error {
	counted := make(chan grepFile)
	go func() {
		defer close(counted)
		for f := range files {
			e.sent.Add(1)
			counted <- f
		}
	}()
	return e.grepEngine.search(ctx, q, counted, found)
}

// TestGrepCapIsTheFirstMatchesInPathOrder: the walk runs on every core
// and finds files in no set order, yet the matches kept at the cap are
// the first in path order ("a/…" before "a-…", as directories are walked),
// every time, and the walk stops sending files past them.
func TestGrepCapIsTheFirstMatchesInPathOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		for j := range 100 {
			files[fmt.Sprintf("d%02d/f%03d.txt", i, j)] = "needle\nneedle\n"
		}
	}
	files["a-b/f.txt"] = "needle\n"
	files["a/z.txt"] = "needle\n"
	tw := newTestWorkspace(t, files)
	var want string
	for round := range 5 {
		for name, engine := range grepEngines(t, tw.root) {
			var sent atomic.Int64
			call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"}).(*grepCall)
			call.engine, call.maxMatches = countingEngine{engine, &sent}, 7
			res, err := call.Execute(t.Context(), CallInfo{})
			if err != nil {
				t.Fatal(err)
			}
			if want == "" {
				want = "Found 7 matches for pattern \"needle\" in the workspace directory (results limited to 7 matches for performance):\n---\n" +
					"File: a-b/f.txt\nL1: needle\n---\nFile: a/z.txt\nL1: needle\n---\n" +
					"File: d00/f000.txt\nL1: needle\nL2: needle\n---\nFile: d00/f001.txt\nL1: needle\nL2: needle\n---\nFile: d00/f002.txt\nL1: needle\n---"
			}
			if res.Output != want {
				t.Errorf("round %d, %s:\n%s\nwant:\n%s", round, name, res.Output, want)
			}
			// A program is given files a thousand at a time, so it hears
			// of the first matches later than the in-process engine.
			limit := len(files) / 2
			if name != "in-process" {
				limit = len(files) - 1
			}
			if n := sent.Load(); n > int64(limit) {
				t.Errorf("round %d, %s: the walk sent %d of %d files, past the first matches", round, name, n, len(files))
			}
			// a/ is walked whole before a-b/ is entered.
			call = build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"}).(*grepCall)
			call.engine, call.maxMatches = engine, 1
			if res, err = call.Execute(t.Context(), CallInfo{}); err != nil || !strings.Contains(res.Output, "\nFile: a/z.txt\nL1: needle\n---") {
				t.Errorf("round %d, %s, the first match: %v\n%s", round, name, err, res.Output)
			}
		}
	}
}

// TestPickGrepEngine: a pattern whose matches all hold a literal of a few
// bytes is searched in-process, where scanning for the literal is as fast
// as ripgrep; one without goes to ripgrep, whose automata are faster than
// Go's regexp on every line.
func TestPickGrepEngine(t *testing.T) {
	dir := t.TempDir()
	for pattern, inProcess := range map[string]bool{
		"func main":                  true,
		`func \w+Handler\(`:          true,
		"TODO":                       true,
		`[0-9]{4}-[0-9]{2}-[0-9]{2}`: false,
		`\w+_\d+`:                    false,
		"ab":                         false,
	} {
		m, err := newGrepMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		engine := pickGrepEngine(nil, dir, m)
		_, isInProcess := engine.(inProcessGrep)
		if _, err := exec.LookPath("rg"); err != nil && !inProcess {
			continue // without rg (and outside git) in-process is all there is
		}
		if isInProcess != inProcess {
			t.Errorf("%q: engine %T, want in-process %v", pattern, engine, inProcess)
		}
	}
}

// TestFirstMatchesHoldsOnlyTheFirst: whatever order files come in, the
// first matches in path order are kept, and nothing more is held than
// the files that may be among them.
func TestFirstMatchesHoldsOnlyTheFirst(t *testing.T) {
	var all []grepOutcome
	for i := range 2000 {
		o := grepOutcome{file: grepFile{rel: fmt.Sprintf("d%d/f%04d", i%7, i)}}
		if i%2 == 0 {
			for l := range 1 + i%3 {
				o.matches = append(o.matches, grepMatch{line: l + 1, text: "x"})
			}
		}
		o.unreadable = i%101 == 0
		o.tooLarge = i%103 == 1
		all = append(all, o)
	}
	const maxMatches = 50
	first := newFirstMatches(maxMatches)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	for _, o := range all {
		first.add(o)
		if len(first.kept) > maxMatches {
			t.Fatalf("holding %d files for the first %d matches", len(first.kept), maxMatches)
		}
	}
	slices.SortFunc(all, func(a, b grepOutcome) int { return workspace.ComparePaths(a.file.rel, b.file.rel) })
	var want []string
	for _, o := range all {
		for _, m := range o.matches {
			if len(want) < maxMatches {
				want = append(want, fmt.Sprintf("%s:%d", o.file.rel, m.line))
			}
		}
	}
	var got []string
	for _, o := range first.first() {
		for _, m := range o.matches {
			got = append(got, fmt.Sprintf("%s:%d", o.file.rel, m.line))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
	if first.unreadable != 20 || first.tooLarge != 20 {
		t.Errorf("%d unreadable and %d too large files counted, want 20 and 20", first.unreadable, first.tooLarge)
	}
}
