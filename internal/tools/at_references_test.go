package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

// readRefs reads specs as the @paths of a prompt are read, shown as
// the model is shown them: each file after its "--- path ---" header,
// then what was skipped and why, and the end marker.
func readRefs(t *testing.T, tw *testWorkspace, specs ...string) Result {
	t.Helper()
	got, err := ReadReferences(t.Context(), tw.ws, specs)
	if err != nil {
		t.Fatalf("ReadReferences(%q): %v", specs, err)
	}
	return referenceResult(got)
}

// referenceResult is got as readRefs shows it.
func referenceResult(got ManyFiles) Result {
	var b strings.Builder
	var parts []*genai.Part
	for _, f := range got.Files {
		if f.Part != nil {
			parts = append(parts, f.Part)
			continue
		}
		fmt.Fprintf(&b, "--- %s ---\n\n", quoteName(f.Path))
		b.WriteString(f.Text + "\n\n")
	}
	if len(got.Skipped) > 0 {
		fmt.Fprintf(&b, "Skipped %d item(s):\n", len(got.Skipped))
		for _, s := range got.Skipped {
			fmt.Fprintf(&b, "- %s (Reason: %s)\n", quoteName(s.Path), s.Reason)
		}
	}
	if len(got.Files) > 0 {
		b.WriteString("\n" + ReferenceContentEnd)
	}
	return Result{Output: b.String(), Parts: parts}
}

// An @path's globs and paths read what they name, but Gemini CLI's
// default excludes.
func TestReferencesGlobsAndExcludes(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"src/a.go":            "package a\n",
		"src/sub/b.go":        "package b\n",
		"src/notes.txt":       "not go\n",
		"README.md":           "# Readme",
		"dist/out.go":         "package built\n",
		"node_modules/m/x.go": "package m\n",
		"GEMINI.md":           "context\n",
		"lib.jar":             "PK",
	})
	res := readRefs(t, tw, "**/*.go", "README.md", "GEMINI.md", "*.jar")
	want := "--- " + tw.abs("README.md") + " ---\n\n# Readme\n\n" +
		"--- " + tw.abs("src/a.go") + " ---\n\npackage a\n\n\n" +
		"--- " + tw.abs("src/sub/b.go") + " ---\n\npackage b\n\n\n" +
		"Skipped 1 item(s):\n- 2 file(s) (Reason: excluded by the exclude patterns or the default excludes)\n" +
		"\n--- End of content ---"
	wantOutput(t, res, want)

	// A directory reads everything below it.
	res = readRefs(t, tw, "src/**")
	want = "--- " + tw.abs("src/a.go") + " ---\n\npackage a\n\n\n" +
		"--- " + tw.abs("src/notes.txt") + " ---\n\nnot go\n\n\n" +
		"--- " + tw.abs("src/sub/b.go") + " ---\n\npackage b\n\n\n" +
		"\n--- End of content ---"
	wantOutput(t, res, want)

	// Patterns match case-insensitively, as Gemini CLI's glob does.
	wantContains(t, readRefs(t, tw, "readme.MD").Output, "# Readme")

	wantOutput(t, readRefs(t, tw, "*.nothing"), "")
}

func TestReferencesBinaryAndMedia(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"data.dat":      "\x00\x01\x02binary",
		"img/logo.png":  "\x89PNG\r\n\x1a\nfake",
		"img/other.png": "\x89PNG\r\n\x1a\nother",
		"img/readme.md": "pictures\n",
	})
	res := readRefs(t, tw, "data.dat")
	wantOutput(t, res, "--- "+tw.abs("data.dat")+" ---\n\nCannot display content of binary file: data.dat\n\n\n--- End of content ---")

	// An image named explicitly comes as data; one that is not is skipped
	// with the reason.
	res = readRefs(t, tw, "img/logo.png", "img/*.md")
	if len(res.Parts) != 1 || res.Parts[0].InlineData == nil || res.Parts[0].InlineData.MIMEType != "image/png" ||
		string(res.Parts[0].InlineData.Data) != "\x89PNG\r\n\x1a\nfake" {
		t.Fatalf("Parts = %+v, want logo.png inline", res.Parts)
	}
	wantOutput(t, res, "--- "+tw.abs("img/readme.md")+" ---\n\npictures\n\n\n\n--- End of content ---")

	res = readRefs(t, tw, "img/**")
	if len(res.Parts) != 0 {
		t.Errorf("images not asked for by name came as %d parts", len(res.Parts))
	}
	wantContains(t, res.Output, "Skipped 2 item(s):\n- img/logo.png (Reason: asset file (image/pdf/audio) was not explicitly requested by name or extension)\n- img/other.png")
	wantContains(t, res.Output, "pictures\n\n\nSkipped")
	if !strings.HasSuffix(res.Output, "\n--- End of content ---") {
		t.Errorf("output does not end with the end marker: %q", res.Output)
	}
	// Named by extension, every image comes.
	if res := readRefs(t, tw, "img/*.png"); len(res.Parts) != 2 {
		t.Errorf("*.png gave %d parts, want 2", len(res.Parts))
	}
}

func TestReferencesIgnoreFilesAndOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".gitignore":   "secret.txt\nbuild-out/\n",
		"secret.txt":   "password\n",
		"build-out/x":  "generated\n",
		"open.txt":     "on disk\n",
		"plain.txt":    "plain\n",
		"unsaved/n.go": "",
	})
	tw.open("open.txt", "unsaved buffer\n")
	res := readRefs(t, tw, "*.txt", "secret.txt", "build-out/*")
	if strings.Contains(res.Output, "password") || strings.Contains(res.Output, "generated") {
		t.Errorf("ignored files were read: %q", res.Output)
	}
	wantContains(t, res.Output, "--- "+tw.abs("open.txt")+" ---\n\nunsaved buffer\n")
	wantContains(t, res.Output, "- 2 file(s) (Reason: ignored by project ignore files)")

	// .git, named, is not read, as Gemini CLI's ignore rules always hold
	// it (the walk never enters it).
	tw.write(".git/config", "[remote]\n")
	if res := readRefs(t, tw, ".git/config"); strings.Contains(res.Output, "[remote]") {
		t.Errorf(".git/config was read: %q", res.Output)
	}
}

func TestReferencesBounds(t *testing.T) {
	line := strings.Repeat("x", 1000) + "\n"
	big := strings.Repeat(line, 1500) // 1.5 MB, within the per-file limits
	tw := newTestWorkspace(t, map[string]string{"a.txt": big, "b.txt": big, "c.txt": big, "long.txt": numberedLines(2100)})
	res := readRefs(t, tw, "[abc].txt")
	if n := strings.Count(res.Output, "--- "+tw.root); n != 2 {
		t.Errorf("read %d files, want 2 before the output limit", n)
	}
	wantContains(t, res.Output, "- 1 file(s) (Reason: not read: the output limit (2.0 MiB of text")

	got, err := ReadReferences(t.Context(), tw.ws, []string{"long.txt"})
	if err != nil || len(got.Files) != 1 || !got.Files[0].Truncated || !strings.HasPrefix(got.Files[0].Text, "line 1\n") || strings.Contains(got.Files[0].Text, "line 2001") {
		t.Errorf("long.txt read as %+v, %v; want its first 2000 lines, truncated", got, err)
	}

	// Nothing outside the roots.
	res = readRefs(t, tw, "../*", "/etc/passwd")
	wantContains(t, res.Output, "- ../* (Reason: Security: Path not in workspace)\n- /etc/passwd (Reason: Security: Path not in workspace)")
}

func TestResolveReference(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".gitignore":           "secret.txt\n",
		"secret.txt":           "x",
		"src/a.go":             "package a\n",
		"deep/path/widget.ts":  "export {}\n",
		"my file.txt":          "spaces\n",
		"src/components/.keep": "",
	})
	ctx := context.Background()
	for name, want := range map[string]Reference{
		"src/a.go":       {Spec: "src/a.go", Path: tw.abs("src/a.go")},
		"src":            {Spec: "src/**", Path: tw.abs("src")},
		tw.abs("src"):    {Spec: "src/**", Path: tw.abs("src")},
		"widget":         {Spec: "deep/path/widget.ts", Path: tw.abs("deep/path/widget.ts")},
		"secret.txt":     {Spec: "secret.txt", Path: tw.abs("secret.txt"), Ignored: true},
		"my file.txt":    {Spec: "my file.txt", Path: tw.abs("my file.txt")},
		"path/widget.ts": {Spec: "deep/path/widget.ts", Path: tw.abs("deep/path/widget.ts")},
		"src/*.go":       {Spec: "src/a.go", Path: tw.abs("src/a.go")},
	} {
		got, ok, err := ResolveReference(ctx, tw.ws, name)
		if err != nil || !ok || got != want {
			t.Errorf("ResolveReference(%q) = %+v, %v, %v; want %+v", name, got, ok, err, want)
		}
	}
	for _, name := range []string{"nowhere.go", "/etc/passwd", "secret"} {
		if got, ok, err := ResolveReference(ctx, tw.ws, name); ok || err != nil {
			t.Errorf("ResolveReference(%q) = %+v, %v, %v; want not found", name, got, ok, err)
		}
	}

	// Of several files a name finds, the most recently modified.
	tw.write("a/gadget.go", "")
	tw.write("b/gadget.go", "")
	tw.touch("a/gadget.go", 0)
	tw.touch("b/gadget.go", time.Hour)
	if got, ok, err := ResolveReference(ctx, tw.ws, "gadget"); !ok || err != nil || got.Path != tw.abs("b/gadget.go") {
		t.Errorf("ResolveReference(gadget) = %+v, %v, %v; want the newer b/gadget.go", got, ok, err)
	}
}

// newReader is the reader of specs, as ReadReferences makes it.
func newReader(t *testing.T, tw *testWorkspace, specs ...string) *referenceReader {
	t.Helper()
	r, err := newReferenceReader(tw.ws, specs, defaultManyExcludes)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readWith reads what r names, shown as readRefs shows it.
func readWith(t *testing.T, r *referenceReader) Result {
	t.Helper()
	got, err := r.read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return referenceResult(got)
}

func TestReferencesSayWhenTheirSearchRanOutOfTime(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"src/a.go": "package a\n"})
	r := newReader(t, tw, "**/*.go")
	r.timeout = 0 // out of time before it starts, however coarse the clock
	res := readWith(t, r)
	wantContains(t, res.Output, "- the search (Reason: stopped after 0s; the files found by then were read: name narrower paths to see the rest)")
}

// Ignored directories are entered only up to a budget, to count the
// matches they hide; past it the count is a lower bound and says so.
func TestReferencesCountIgnoredWithinBudget(t *testing.T) {
	files := map[string]string{".gitignore": "out/\n", "a.go": ""}
	for i := range 30 {
		files[fmt.Sprintf("out/d%d/x%d.go", i/10, i%10)] = ""
	}
	tw := newTestWorkspace(t, files)
	skipped := func(budget int) string {
		r := newReader(t, tw, "**/*.go")
		r.ignoredBudget = budget
		return readWith(t, r).Output
	}
	wantContains(t, skipped(maxIgnoredWalk), "- 30 file(s) (Reason: ignored by project ignore files)")
	// out and out/d0 use up a budget of 2: d1 and d2 are not entered.
	wantContains(t, skipped(2), "- at least 10 file(s) (Reason: ignored by project ignore files)")
}

// .geminiignore is the user's word on what the agent may read: no
// argument the model gives lifts it (Gemini CLI 0.61's
// respect_gemini_ignore and no_ignore do), while .gitignore may be
// lifted. Neither a .geminiignore'd file's content nor its name reaches
// the model through grep_search, glob or list_directory, by pattern or
// by its own path.
func TestGeminiIgnoreCannotBeLiftedByAnArgument(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".geminiignore":     "private.txt\nvault/\n",
		".gitignore":        "built.txt\n",
		"private.txt":       "hunter2 in private\n",
		"vault/key.txt":     "hunter2 in the vault\n",
		"built.txt":         "hunter2 in built\n",
		"plain.txt":         "hunter2 in plain\n",
		"sub/.geminiignore": "deep.txt\n",
		"sub/deep.txt":      "hunter2 deep\n",
		"sub/visible.txt":   "hunter2 visible\n",
	})
	off := map[string]any{"respect_git_ignore": false, "respect_gemini_ignore": false}
	geminiOff := map[string]any{"respect_gemini_ignore": false}
	calls := []struct {
		tool string
		args map[string]any
		// named: the call names the ignored paths itself, so a refusal
		// may repeat them; their content must still not show.
		named                bool
		wantBuilt, wantPlain bool // .gitignore lifted: built.txt is in the result
	}{
		{ListDirectoryName, map[string]any{"dir_path": "sub", "file_filtering_options": geminiOff}, false, false, false},
		{GrepSearchName, map[string]any{"pattern": "hunter2", "no_ignore": true}, false, true, true},
		{GrepSearchName, map[string]any{"pattern": "hunter2", "dir_path": "private.txt", "no_ignore": true}, true, false, false},
		{GrepSearchName, map[string]any{"pattern": "hunter2", "dir_path": "vault", "no_ignore": true}, true, false, false},
		{GlobName, map[string]any{"pattern": "**/*.txt", "respect_git_ignore": false, "respect_gemini_ignore": false}, false, true, true},
		{ListDirectoryName, map[string]any{"dir_path": ".", "file_filtering_options": off}, false, true, true},
	}
	for _, c := range calls {
		res := run(t, tw.tool(c.tool, Options{}), c.args)
		text := res.Output + res.Error
		hidden := []string{"in private", "in the vault", "hunter2 deep"}
		if !c.named {
			hidden = append(hidden, "private.txt", "vault", "deep.txt")
		}
		for _, h := range hidden {
			if strings.Contains(text, h) {
				t.Errorf("%s %v told of the .geminiignore'd %q:\n%s", c.tool, c.args, h, text)
			}
		}
		if got := strings.Contains(text, "built"); got != c.wantBuilt {
			t.Errorf("%s %v: built.txt (.gitignore'd) in the result %v, want %v:\n%s", c.tool, c.args, got, c.wantBuilt, text)
		}
		if got := strings.Contains(text, "plain"); got != c.wantPlain {
			t.Errorf("%s %v: plain.txt in the result %v, want %v:\n%s", c.tool, c.args, got, c.wantPlain, text)
		}
	}
}

// The files kept are the first limit in path order, whatever order the
// walks found them in; the others are counted.
func TestMatchedKeepsTheFirstInPathOrder(t *testing.T) {
	var paths []string
	for i := range 40 {
		paths = append(paths, fmt.Sprintf("/r/f%02d", i))
	}
	for seed := range uint64(20) {
		found := slices.Clone(paths)
		rand.New(rand.NewPCG(seed, 0)).Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
		m := newMatched([]string{"/r"}, 7)
		for _, p := range found {
			m.add(matchFound, candidate{path: p}, false)
		}
		var kept []string
		for _, c := range m.first {
			kept = append(kept, c.path)
		}
		slices.Sort(kept)
		if !slices.Equal(kept, paths[:7]) || m.found != 40 {
			t.Fatalf("seed %d: kept %v of %d found, want %v of 40", seed, kept, m.found, paths[:7])
		}
	}
}
