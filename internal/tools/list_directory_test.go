package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// demoFiles mirrors the workspace Gemini CLI was observed on.
func demoFiles() map[string]string {
	return map[string]string{
		".gitignore":          "build/\n",
		"go.mod":              "module example.com/demo\n\ngo 1.22\n",
		"main.go":             "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/demo/pkg/util\"\n)\n\n// TODO: localise the greeting.\nfunc greet(name string) string {\n\treturn \"Hello, \" + util.Title(name)\n}\n\nfunc main() {\n\tfmt.Println(greet(\"world\"))\n}\n",
		"README.md":           "# demo\n\nA tiny Go program used to exercise an agent's file tools.\nSee TODO markers in the sources.\n",
		"pkg/util/strings.go": "package util\n\nimport \"strings\"\n\n// Title upper-cases the first letter of s.\n// TODO: handle unicode properly.\nfunc Title(s string) string {\n\tif s == \"\" {\n\t\treturn s\n\t}\n\treturn strings.ToUpper(s[:1]) + s[1:]\n}\n",
		"build/gen.go":        "package build // TODO: generated\n",
	}
}

func TestListDirectory(t *testing.T) {
	tw := newTestWorkspace(t, demoFiles())
	tool := tw.tool(ListDirectoryName, Options{})

	res := run(t, tool, map[string]any{"path": "."})
	wantOutput(t, res, "Directory listing for "+tw.root+":\n"+
		"[DIR] pkg\n"+
		".gitignore (7 bytes)\n"+
		"go.mod (33 bytes)\n"+
		"main.go (213 bytes)\n"+
		"README.md (99 bytes)\n"+
		"\n(1 ignored)")
	if res.Display != "Listed 5 item(s). (1 ignored)" {
		t.Errorf("Display = %q", res.Display)
	}

	// Without git-ignore rules the build directory shows, and nothing is counted.
	res = run(t, tool, map[string]any{"path": tw.root, "respect_git_ignore": false})
	wantOutput(t, res, "Directory listing for "+tw.root+":\n"+
		"[DIR] build\n[DIR] pkg\n.gitignore (7 bytes)\ngo.mod (33 bytes)\nmain.go (213 bytes)\nREADME.md (99 bytes)")

	// ignore patterns hide names silently.
	res = run(t, tool, map[string]any{"path": ".", "ignore": []any{"*.md", "go.*"}})
	wantOutput(t, res, "Directory listing for "+tw.root+":\n[DIR] pkg\n.gitignore (7 bytes)\nmain.go (213 bytes)\n\n(1 ignored)")

	res = run(t, tool, map[string]any{"path": "pkg"})
	wantOutput(t, res, "Directory listing for "+tw.abs("pkg")+":\n[DIR] util")
}

func TestListDirectoryGitDirCountsAsIgnored(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.txt": "a"})
	tool := tw.tool(ListDirectoryName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"path": "."}),
		"Directory listing for "+tw.root+":\na.txt (1 bytes)\n\n(1 ignored)")
	wantOutput(t, run(t, tool, map[string]any{"path": ".", "respect_git_ignore": false}),
		"Directory listing for "+tw.root+":\n[DIR] .git\na.txt (1 bytes)")
	off := map[string]any{"respect_git_ignore": false, "respect_gemini_ignore": false}
	wantOutput(t, run(t, tool, map[string]any{"dir_path": ".", "file_filtering_options": off}),
		"Directory listing for "+tw.root+":\n[DIR] .git\na.txt (1 bytes)")
	// .gitignore lifted alone lists .git too.
	wantOutput(t, run(t, tool, map[string]any{"dir_path": ".", "file_filtering_options": map[string]any{"respect_git_ignore": false}}),
		"Directory listing for "+tw.root+":\n[DIR] .git\na.txt (1 bytes)")
}

func TestListDirectorySortsCaseInsensitively(t *testing.T) {
	files := map[string]string{"b.txt": "", "A.txt": "", "c/": "", "B/": ""}
	same := "" // a.TXT, a name A.txt's but for case, after it
	// Windows's file names ignore case: a.TXT would be A.txt.
	if runtime.GOOS != "windows" {
		files["a.TXT"] = ""
		same = "a.TXT (0 bytes)\n"
	}
	tw := newTestWorkspace(t, files)
	wantOutput(t, run(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"path": "."}),
		"Directory listing for "+tw.root+":\n[DIR] B\n[DIR] c\nA.txt (0 bytes)\n"+same+"b.txt (0 bytes)")
}

func TestListDirectoryEmpty(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"empty/": "", "hidden/.gitignore": "*\n"})
	tool := tw.tool(ListDirectoryName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"path": "empty"}), "Directory "+tw.abs("empty")+" is empty.")
	// .gitignore's "*" hides the .gitignore itself.
	wantOutput(t, run(t, tool, map[string]any{"path": "hidden"}), "Directory "+tw.abs("hidden")+" is empty.\n\n(1 ignored)")
}

func TestListDirectoryOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "disk"})
	tw.open("a.txt", "longer buffer")
	tw.open("unsaved.go", "package x\n")
	wantOutput(t, run(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"path": "."}),
		"Directory listing for "+tw.root+":\na.txt (13 bytes)\nunsaved.go (10 bytes)")
}

func TestListDirectoryErrors(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"file.txt": "x"})
	tool := tw.tool(ListDirectoryName, Options{})

	wantError(t, run(t, tool, map[string]any{"path": "file.txt"}), "Path is not a directory: "+tw.abs("file.txt"))
	wantError(t, run(t, tool, map[string]any{"path": "missing"}), "Directory not found or inaccessible: "+tw.abs("missing"))

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'dir_path'"},
		{map[string]any{"dir_path": 3.0}, "params/dir_path must be string"},
		{map[string]any{"dir_path": ""}, "The 'dir_path' parameter must be non-empty."},
		{map[string]any{"path": 3.0}, "params/dir_path must be string"},
		{map[string]any{"dir_path": ".", "file_filtering_options": true}, "params/file_filtering_options must be object"},
		{map[string]any{"dir_path": ".", "file_filtering_options": map[string]any{"respect_gemini_ignore": 1.0}}, "params/file_filtering_options/respect_gemini_ignore must be boolean"},
		{map[string]any{"dir_path": ".", "path": "sub"}, "params/dir_path and params/path (its older name) were both given, with different values: give only dir_path"},
		{map[string]any{"dir_path": ".", "respect_git_ignore": false, "file_filtering_options": map[string]any{}}, "respect_git_ignore is an older name for file_filtering_options: give only file_filtering_options"},
		{map[string]any{"path": ".", "ignore": "*.md"}, "params/ignore must be array"},
		{map[string]any{"path": ".", "ignore": []any{"[z"}}, `params/ignore: invalid glob pattern "[z"`},
		{map[string]any{"path": ".", "respect_git_ignore": "yes"}, "params/file_filtering_options/respect_git_ignore must be boolean"},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestListDirectoryTitle(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"pkg/": ""})
	tool := tw.tool(ListDirectoryName, Options{})
	for path, want := range map[string]string{".": "ReadFolder .", "pkg": "ReadFolder pkg", tw.abs("pkg"): "ReadFolder pkg"} {
		call := build(t, tool, map[string]any{"path": path})
		if call.Title() != want || kindOf(tool) != dialog.KindRead || call.Confirmation() != nil {
			t.Errorf("path %q: Title %q Kind %q Confirmation %v", path, call.Title(), kindOf(tool), call.Confirmation())
		}
	}
}

// outsideCases are paths every file tool must refuse: plain escapes and a
// symlink inside the root that points out of it.
func outsideCases(t *testing.T, tw *testWorkspace) []string {
	t.Helper()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret TODO"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []string{"..", "../x.txt", "/etc/passwd", filepath.Join(outside, "secret.txt")}
	// Where links cannot be made (Windows without the privilege, Wine)
	// the plain escapes are still refused.
	if err := os.Symlink(outside, tw.abs("escape")); err != nil || !isSymlink(tw.abs("escape")) {
		if runtime.GOOS != "windows" {
			t.Fatalf("making the symlink escape: %v", err)
		}
		t.Log("no symlinks here: the cases through one are left out")
		return cases
	}
	return append(cases, "escape", "escape/secret.txt", "escape/new.txt")
}

func isSymlink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

func TestFileToolsRefuseOutsidePaths(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "a"})
	paths := outsideCases(t, tw)
	propose := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	argsFor := map[string]func(p string) map[string]any{
		ListDirectoryName: func(p string) map[string]any { return map[string]any{"path": p} },
		ReadFileName:      func(p string) map[string]any { return map[string]any{"path": p} },
		WriteFileName:     func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} },
		ReplaceName: func(p string) map[string]any {
			return map[string]any{"file_path": p, "old_string": "", "new_string": "x"}
		},
		GlobName:       func(p string) map[string]any { return map[string]any{"pattern": "*", "path": p} },
		GrepSearchName: func(p string) map[string]any { return map[string]any{"pattern": "TODO", "path": p} },
		ShellName:      func(p string) map[string]any { return map[string]any{"command": "ls", "directory": p} },
	}
	for name, mk := range argsFor {
		tool := tw.proposing(propose, name, Options{})
		for _, p := range paths {
			msg := buildError(t, tool, mk(p))
			if !strings.HasPrefix(msg, "Path must be within one of the workspace directories: ") || !strings.Contains(msg, "outside the workspace roots ("+tw.root+")") {
				t.Errorf("%s %q: error %q", name, p, msg)
			}
		}
	}
	if len(propose.changes) != 0 {
		t.Errorf("proposed %d changes for outside paths", len(propose.changes))
	}
}

func TestListDirectorySaysWhenItWasCut(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("f%02d", i)] = ""
	}
	tw := newTestWorkspace(t, files)
	call := build(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"path": "."})
	call.(*listDirectoryCall).maxShown = 10
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Directory listing for " + tw.root + ":"
	for i := range 10 {
		want += fmt.Sprintf("\nf%02d (0 bytes)", i)
	}
	wantOutput(t, res, want+"\n\n(2 more entries not shown; list a subdirectory, or find files with glob)")
	if want := "Listed 10 item(s). (2 more entries not shown)"; res.Display != want {
		t.Errorf("Display = %q, want %q", res.Display, want)
	}
}

func TestListingsQuoteNamesThatAreNotPlainText(t *testing.T) {
	for name, want := range map[string]string{
		"plain.go":          "plain.go",
		"with space.txt":    "with space.txt",
		"héllo 世界.txt":      "héllo 世界.txt",
		"new\nline":         `"new\nline"`,
		"cr\rname":          `"cr\rname"`,
		"tab\there":         `"tab\there"`,
		"esc\x1b[31m":       `"esc\x1b[31m"`,
		"bad\xffutf8":       `"bad\xffutf8"`,
		"line\u2028sep":     `"line\u2028sep"`,
		"rtl\u202eoverride": `"rtl\u202eoverride"`,
		`"quoted"`:          `"\"quoted\""`,
	} {
		if got := quoteName(name); got != want {
			t.Errorf("quoteName(%q) = %s, want %s", name, got, want)
		}
	}
}
