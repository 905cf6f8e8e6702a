package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestReadFilePrefersOverlay(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.go": "disk\n", "bom.txt": "\uFEFFwith bom\n"})
	a := filepath.Join(root, "a.go")

	f, err := w.ReadFile(context.Background(), a, MaxFileSize)
	if err != nil || string(f.Content) != "disk\n" || f.Open || f.BOM {
		t.Fatalf("disk read = %+v, %v", f, err)
	}
	w.Documents().Open(Document{Path: a, Version: 7, Text: "buffer\n"})
	f, err = w.ReadFile(context.Background(), a, MaxFileSize)
	if err != nil || string(f.Content) != "buffer\n" || !f.Open || f.Version != 7 {
		t.Fatalf("overlay read = %+v, %v", f, err)
	}

	f, err = w.ReadFile(context.Background(), filepath.Join(root, "bom.txt"), MaxFileSize)
	if err != nil || string(f.Content) != "with bom\n" || !f.BOM {
		t.Fatalf("BOM read = %+v, %v", f, err)
	}
	w.Documents().Open(Document{Path: filepath.Join(root, "bom.txt"), Text: "edited\n"})
	if f, _ := w.ReadFile(context.Background(), filepath.Join(root, "bom.txt"), MaxFileSize); !f.BOM || !f.Open {
		t.Fatalf("open document over a BOM file: %+v", f)
	}

	_, err = w.ReadFile(context.Background(), filepath.Join(root, "missing.go"), MaxFileSize)
	if !errors.Is(err, ErrNotExist) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.go") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := w.ReadFile(context.Background(), root, MaxFileSize); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("reading a directory: %v", err)
	}
}

func TestStatSeesUnsavedDocuments(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"dir/a.go": "x"})
	w.Documents().Open(Document{Path: filepath.Join(root, "new", "deep", "b.go"), Text: "unsaved"})
	tests := []struct {
		path  string
		isDir bool
	}{
		{"dir", true},
		{"dir/a.go", false},
		{"new", true},
		{"new/deep", true},
		{"new/deep/b.go", false},
	}
	for _, tt := range tests {
		isDir, err := w.Stat(filepath.Join(root, tt.path))
		if err != nil || isDir != tt.isDir {
			t.Errorf("Stat(%s) = %v, %v; want %v", tt.path, isDir, err, tt.isDir)
		}
	}
	if _, err := w.Stat(filepath.Join(root, "nope")); !errors.Is(err, ErrNotExist) {
		t.Errorf("Stat of a missing path: %v", err)
	}
	if _, err := w.Stat(filepath.Join(root, "new", "de")); !errors.Is(err, ErrNotExist) {
		t.Errorf("Stat of a name prefix of a virtual directory: %v", err)
	}
}

func TestReadDir(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"b.txt": "12345", "a/x": "", "open.go": "on disk"})
	symlink(t, filepath.Join(root, "a"), filepath.Join(root, "link-to-a"))
	symlink(t, filepath.Join(root, "b.txt"), filepath.Join(root, "link-to-b"))
	docs := w.Documents()
	docs.Open(Document{Path: filepath.Join(root, "open.go"), Text: "buffer is longer"})
	docs.Open(Document{Path: filepath.Join(root, "unsaved.go"), Text: "abc"})
	docs.Open(Document{Path: filepath.Join(root, "newdir", "f.go"), Text: "f"})

	entries, _, err := w.ReadDir(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]DirEntry{}
	infos := map[string]EntryInfo{}
	var names []string
	for _, e := range entries {
		got[e.Name] = e
		names = append(names, e.Name)
		if e.Path != filepath.Join(root, e.Name) {
			t.Errorf("%s: Path %s", e.Name, e.Path)
		}
		info, err := w.Info(e)
		if err != nil || info.ModTime == 0 {
			t.Errorf("Info(%s) = %+v, %v", e.Name, info, err)
		}
		infos[e.Name] = info
	}
	if want := []string{"a", "b.txt", "link-to-a", "link-to-b", "newdir", "open.go", "unsaved.go"}; !slices.Equal(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	checks := []struct {
		name  string
		isDir bool
		size  int64
	}{
		{"a", true, -1}, {"b.txt", false, 5}, {"link-to-a", true, -1}, {"link-to-b", false, 5}, {"newdir", true, -1},
		{"open.go", false, int64(len("buffer is longer"))}, {"unsaved.go", false, 3},
	}
	for _, c := range checks {
		e := got[c.name]
		if size := infos[c.name].Size; e.IsDir != c.isDir || c.size >= 0 && size != c.size {
			t.Errorf("%s = %+v (size %d), want dir %v size %d", c.name, e, size, c.isDir, c.size)
		}
	}
	if err := os.Remove(filepath.Join(root, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Info(got["b.txt"]); !errors.Is(err, ErrNotExist) {
		t.Errorf("Info of a file removed since the listing: %v", err)
	}
	if _, err := w.Info(got["link-to-b"]); err == nil {
		t.Error("Info of a symlink dangling since the listing succeeded")
	}

	entries, _, err = w.ReadDir(context.Background(), filepath.Join(root, "newdir"))
	if err != nil || len(entries) != 1 || entries[0].Name != "f.go" || entries[0].IsDir {
		t.Fatalf("virtual directory listing = %+v, %v", entries, err)
	}
	if _, _, err := w.ReadDir(context.Background(), filepath.Join(root, "missing")); !errors.Is(err, ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
	if _, _, err := w.ReadDir(context.Background(), filepath.Join(root, "b.txt")); err == nil {
		t.Fatal("listing a file succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := w.ReadDir(ctx, root); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ReadDir: %v", err)
	}
}

// walkNames walks dir and returns the slash paths relative to root, with
// a trailing / on directories, leaving out ignored ones when skipIgnored.
func walkNames(t *testing.T, w *Workspace, dir string, skipIgnored bool) []string {
	t.Helper()
	names, _ := walkNamesWith(t, w, dir, skipIgnored)
	// In the order a walk of directories in name order meets them.
	slices.SortFunc(names, func(a, b string) int {
		return ComparePaths(strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/"))
	})
	return names
}

func walkNamesWith(t *testing.T, w *Workspace, dir string, skipIgnored bool) ([]string, Omitted) {
	t.Helper()
	root := w.Roots()[0]
	var mu sync.Mutex
	var names []string
	om, err := w.Walk(context.Background(), dir, WalkOptions{}, func(e DirEntry) error {
		if skipIgnored && e.Ignored {
			if e.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, e.Path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir {
			rel += "/"
		}
		mu.Lock()
		defer mu.Unlock()
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, om
}

var ignoreTree = map[string]string{
	".gitignore":              "*.log\n/build/\n# comment\n\nsecret*.txt\r\n!secret-ok.txt\n",
	".geminiignore":           "private/\n",
	".git/HEAD":               "ref",
	"node_modules/m/index.js": "",
	"a.go":                    "",
	"app.log":                 "",
	"build/out.bin":           "",
	"secret1.txt":             "",
	"secret-ok.txt":           "",
	"private/p.txt":           "",
	"src/main.go":             "",
	"src/debug.log":           "",
	"src/build/keep.go":       "", // "/build/" is anchored to the root
	"src/gen/.gitignore":      "*.pb.go\n!keep.pb.go\n",
	"src/gen/x.pb.go":         "",
	"src/gen/keep.pb.go":      "",
	"src/gen/x.go":            "",
	"other/x.pb.go":           "", // the nested rule does not reach here
}

func TestWalk(t *testing.T) {
	w, root := newTestWorkspace(t, ignoreTree)
	w.Documents().Open(Document{Path: filepath.Join(root, "src", "unsaved.go"), Text: "x"})
	w.Documents().Open(Document{Path: filepath.Join(root, "newpkg", "n.go"), Text: "x"})

	all := walkNames(t, w, root, false)
	want := []string{
		".geminiignore", ".gitignore", "a.go", "app.log", "build/", "build/out.bin",
		"newpkg/", "newpkg/n.go", "other/", "other/x.pb.go", "private/", "private/p.txt",
		"secret-ok.txt", "secret1.txt", "src/", "src/build/", "src/build/keep.go",
		"src/debug.log", "src/gen/", "src/gen/.gitignore", "src/gen/keep.pb.go",
		"src/gen/x.go", "src/gen/x.pb.go", "src/main.go", "src/unsaved.go",
	}
	if !slices.Equal(all, want) {
		t.Errorf("Walk without ignore rules:\n got %v\nwant %v", all, want)
	}

	filtered := walkNames(t, w, root, true)
	want = []string{
		".geminiignore", ".gitignore", "a.go", "newpkg/", "newpkg/n.go", "other/", "other/x.pb.go",
		"secret-ok.txt", "src/", "src/build/", "src/build/keep.go", "src/gen/", "src/gen/.gitignore",
		"src/gen/keep.pb.go", "src/gen/x.go", "src/main.go", "src/unsaved.go",
	}
	if !slices.Equal(filtered, want) {
		t.Errorf("Walk with ignore rules:\n got %v\nwant %v", filtered, want)
	}

	// Walking a subdirectory still applies the rules of the directories above.
	sub := walkNames(t, w, filepath.Join(root, "src"), true)
	want = []string{"src/build/", "src/build/keep.go", "src/gen/", "src/gen/.gitignore", "src/gen/keep.pb.go", "src/gen/x.go", "src/main.go", "src/unsaved.go"}
	if !slices.Equal(sub, want) {
		t.Errorf("Walk of src:\n got %v\nwant %v", sub, want)
	}
}

// TestWalkStatsWhatItIsAskedTo: the files WalkOptions.Stat names are
// stat-ed as their directory is listed (Info then tells that stat, even
// after the file changed); the others are stat-ed when Info is asked.
func TestWalkStatsWhatItIsAskedTo(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"asked.txt": "12345", "not-asked.txt": "12345", "sub/asked.go": "1"})
	symlink(t, filepath.Join(root, "asked.txt"), filepath.Join(root, "link-asked.txt"))
	var asked []string
	var mu sync.Mutex
	entries := map[string]DirEntry{}
	_, err := w.Walk(context.Background(), root, WalkOptions{Stat: func(path string) bool {
		mu.Lock() // called from the walk's readers
		defer mu.Unlock()
		rel, _ := filepath.Rel(root, path)
		asked = append(asked, filepath.ToSlash(rel))
		return strings.Contains(rel, "asked") && !strings.Contains(rel, "not-asked")
	}}, func(e DirEntry) error {
		rel, _ := filepath.Rel(root, e.Path)
		mu.Lock()
		defer mu.Unlock()
		entries[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	// Regular files only: not directories, not symlinks (Info follows them).
	if want := []string{"asked.txt", "not-asked.txt", "sub/asked.go"}; !slices.Equal(asked, want) {
		t.Errorf("Stat was asked about %v, want %v", asked, want)
	}
	for _, name := range []string{"asked.txt", "not-asked.txt", "link-asked.txt"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("1234567890"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]int64{"asked.txt": 5, "not-asked.txt": 10, "link-asked.txt": 10, "sub/asked.go": 1} {
		if info, err := w.Info(entries[name]); err != nil || info.Size != want {
			t.Errorf("Info(%s) = %+v, %v; want size %d", name, info, err, want)
		}
	}
}

func TestWalkSeesIgnoreFileChanges(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "", "b.txt": ""})
	if got := walkNames(t, w, root, true); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Fatalf("before: %v", got)
	}
	writeFiles(t, root, map[string]string{".gitignore": "a.txt\n"})
	if got := walkNames(t, w, root, true); !slices.Equal(got, []string{".gitignore", "b.txt"}) {
		t.Fatalf("after adding .gitignore: %v", got)
	}
	writeFiles(t, root, map[string]string{".gitignore": "b.txt\nmore\n"}) // another size
	if got := walkNames(t, w, root, true); !slices.Equal(got, []string{".gitignore", "a.txt"}) {
		t.Fatalf("after changing .gitignore: %v", got)
	}
}

// A subdirectory's ignore files are known from its listing (no stat):
// added, rewritten and removed between walks, they are read again; an
// open .gitignore's buffer is not what git reads, the disk is.
func TestWalkSeesNestedIgnoreFileChanges(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"sub/a.txt": "", "sub/b.txt": ""})
	sub := filepath.Join(root, "sub")
	walk := func() []string { return walkNames(t, w, root, true) }
	if got := walk(); !slices.Equal(got, []string{"sub/", "sub/a.txt", "sub/b.txt"}) {
		t.Fatalf("before: %v", got)
	}
	writeFiles(t, root, map[string]string{"sub/.geminiignore": "a.txt\n"})
	if got := walk(); !slices.Equal(got, []string{"sub/", "sub/.geminiignore", "sub/b.txt"}) {
		t.Fatalf("after adding sub/.geminiignore: %v", got)
	}
	writeFiles(t, root, map[string]string{"sub/.geminiignore": "b.txt\nmore\n"})
	if got := walk(); !slices.Equal(got, []string{"sub/", "sub/.geminiignore", "sub/a.txt"}) {
		t.Fatalf("after changing sub/.geminiignore: %v", got)
	}
	w.Documents().Open(Document{Path: filepath.Join(sub, ".geminiignore"), URI: "file://" + filepath.Join(sub, ".geminiignore"), Version: 1, Text: "a.txt\n"})
	if got := walk(); !slices.Equal(got, []string{"sub/", "sub/.geminiignore", "sub/a.txt"}) {
		t.Fatalf("with sub/.geminiignore open and edited: %v", got)
	}
	w.Documents().Close(filepath.Join(sub, ".geminiignore"))
	if err := os.Remove(filepath.Join(sub, ".geminiignore")); err != nil {
		t.Fatal(err)
	}
	if got := walk(); !slices.Equal(got, []string{"sub/", "sub/a.txt", "sub/b.txt"}) {
		t.Fatalf("after removing sub/.geminiignore: %v", got)
	}
}

func TestIgnoredMarks(t *testing.T) {
	w, root := newTestWorkspace(t, ignoreTree)
	writeFiles(t, root, map[string]string{
		".git/info/exclude":   "excluded.txt\n",
		"excluded.txt":        "",
		"src/deep/er/x.log":   "",
		"build/never/made.go": "",
		"src/build/":          "",
		// Nothing inside an ignored directory can be re-included, as with git.
		"build/.gitignore": "!out.bin\n!never/\n",
	})
	tests := []struct {
		path    string
		ignored bool
	}{
		{"a.go", false},
		{"app.log", true},
		{"src/deep/er/x.log", true},
		{"build", true},
		{"build/out.bin", true}, // inside an ignored directory
		{"build/never/made.go", true},
		{"src/build", false}, // "/build/" is anchored to the root
		{"secret1.txt", true},
		{"secret-ok.txt", false},
		{"private/p.txt", true},
		{"src/gen/x.pb.go", true},
		{"src/gen/keep.pb.go", false},
		{"other/x.pb.go", false},
		{"excluded.txt", true},
	}
	marks := map[string]bool{}
	var mu sync.Mutex
	if _, err := w.Walk(context.Background(), root, WalkOptions{}, func(e DirEntry) error {
		rel, _ := filepath.Rel(root, e.Path)
		mu.Lock()
		defer mu.Unlock()
		marks[filepath.ToSlash(rel)] = e.Ignored
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if got, ok := marks[tt.path]; !ok || got != tt.ignored {
			t.Errorf("Walk: %s ignored %v (listed %v), want %v", tt.path, got, ok, tt.ignored)
		}
		// ReadDir of the parent, and a walk starting below the root, agree.
		entries, _, err := w.ReadDir(context.Background(), filepath.Dir(filepath.Join(root, tt.path)))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(entries, func(e DirEntry) bool { return e.Name == filepath.Base(tt.path) })
		if i < 0 || entries[i].Ignored != tt.ignored {
			t.Errorf("ReadDir: %s at %d = %+v, want ignored %v", tt.path, i, entries, tt.ignored)
		}
	}
	// A file named like an ignored directory is not ignored ("/build/" is
	// for directories only).
	w2, root2 := newTestWorkspace(t, map[string]string{".gitignore": "/build/\n", "build": ""})
	entries, _, err := w2.ReadDir(context.Background(), root2)
	if err != nil || len(entries) != 2 || entries[1].Name != "build" || entries[1].Ignored {
		t.Errorf("a file named build: %+v, %v", entries, err)
	}
}

func TestListingsSkipWhatTheyCannotList(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"ok.txt": "x", "sub/in.txt": "y"})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s", "dir/f": ""})
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "out-file"))
	symlink(t, filepath.Join(outside, "dir"), filepath.Join(root, "sub", "out-dir"))
	symlink(t, "loop", filepath.Join(root, "loop"))
	symlink(t, "nowhere", filepath.Join(root, "sub", "dangling"))
	symlink(t, "ok.txt", filepath.Join(root, "in-link"))

	names := walkNames(t, w, root, false)
	if want := []string{"in-link", "ok.txt", "sub/", "sub/in.txt"}; !slices.Equal(names, want) {
		t.Errorf("Walk = %v, want %v", names, want)
	}
	om, err := w.Walk(context.Background(), root, WalkOptions{}, func(DirEntry) error { return nil })
	want := Omitted{Outside: 2, Broken: 2}
	if err != nil || om != want {
		t.Errorf("Walk omitted %+v, %v; want %+v", om, err, want)
	}

	entries, om, err := w.ReadDir(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name)
	}
	if want := []string{"in-link", "ok.txt", "sub"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir = %v, want %v", got, want)
	}
	if want := (Omitted{Outside: 1, Broken: 1}); om != want {
		t.Errorf("ReadDir omitted %+v, want %+v", om, want)
	}
}

func TestWalkCountsDirectoriesItCannotList(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a/x": "", "b/y": ""})
	om, err := w.Walk(context.Background(), root, WalkOptions{}, func(e DirEntry) error {
		if e.Name == "a" {
			// Gone between its parent's listing and its own.
			return os.RemoveAll(e.Path)
		}
		return nil
	})
	if err != nil || om.Unreadable != 1 || om.Skipped() != 1 {
		t.Errorf("Walk: %+v, %v; want one unreadable directory", om, err)
	}
}

func TestIgnoreFilesAreReadSafely(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "", "b.log": "", "sub/c.txt": ""})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"rules": "*.txt\n"})
	// Rules from outside the roots are not applied...
	symlink(t, filepath.Join(outside, "rules"), filepath.Join(root, ".gitignore"))
	// ...and a 2 GiB ignore file is not read.
	huge := filepath.Join(root, "sub", ".gitignore")
	writeFiles(t, root, map[string]string{"sub/.gitignore": ""})
	if err := os.Truncate(huge, 2<<30); err != nil {
		t.Fatal(err)
	}
	var names []string
	n := allocated(func() { names = walkNames(t, w, root, true) })
	// The link itself leads outside, so it is not listed either.
	if want := []string{"a.txt", "b.log", "sub/", "sub/.gitignore", "sub/c.txt"}; !slices.Equal(names, want) {
		t.Errorf("Walk = %v, want %v", names, want)
	}
	if n > 1<<20 {
		t.Errorf("Walk allocated %d bytes", n)
	}
}

func TestIgnoreRulesCutShortAreNotRemembered(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{".gitignore": "a.txt\n", "a.txt": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Walk(ctx, root, WalkOptions{}, func(DirEntry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk: %v", err)
	}
	entries, _, err := w.ReadDir(context.Background(), root)
	if err != nil || len(entries) != 2 || entries[1].Name != "a.txt" || !entries[1].Ignored {
		t.Errorf("after a cancelled walk: %+v, %v; want a.txt ignored", entries, err)
	}
}

// Sessions' git worktrees (.gemini/worktrees, internal/worktree) are
// whole copies of the project: a walk of the main workspace, from its
// root or from .gemini, never enters them, ignore rules or not; the rest
// of .gemini, and a worktrees directory elsewhere, it does.
func TestWalkSkipsSessionWorktrees(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		"a.go":                             "",
		".gemini/settings.json":            "{}",
		".gemini/worktrees/fix/a.go":       "",
		".gemini/worktrees/fix/.git":       "gitdir: x",
		"docs/worktrees/notes.md":          "",
		"sub/.gemini/worktrees/other/b.go": "",
	})
	for _, rules := range []bool{false, true} {
		all := walkNames(t, w, root, rules)
		want := []string{".gemini/", ".gemini/settings.json", "a.go", "docs/", "docs/worktrees/", "docs/worktrees/notes.md", "sub/", "sub/.gemini/"}
		if !slices.Equal(all, want) {
			t.Errorf("Walk (ignore rules %v):\n got %v\nwant %v", rules, all, want)
		}
	}
	if from := walkNames(t, w, filepath.Join(root, ".gemini"), false); !slices.Equal(from, []string{".gemini/settings.json"}) {
		t.Errorf("Walk of .gemini: %v, want only its settings", from)
	}
}
