package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWithinOn(t *testing.T) {
	for _, tc := range []struct {
		goos, root, path string
		want             bool
	}{
		{"linux", "/repo", "/repo", true},
		{"linux", "/repo", "/repo/a.go", true},
		{"linux", "/repo", "/repository", false},
		{"linux", "/repo", "/Repo/a.go", false}, // case counts on Unix
		{"linux", "/", "/etc", true},
		{"windows", `C:\Repo`, `c:\repo\a.go`, true},
		{"windows", `C:\Repo`, `C:\REPO`, true},
		{"windows", `C:\Repo`, `C:\Repository\a.go`, false},
		{"windows", `C:\Repo`, `D:\Repo\a.go`, false},
		{"windows", `C:\`, `c:\Windows`, true},
		{"windows", `\\Server\Share\proj`, `\\server\share\PROJ\a.go`, true},
		{"windows", `C:\Repo`, `C:\Rep`, false},
		// No root is empty: one read from a damaged file holds nothing.
		{"linux", "", "/etc", false},
		{"linux", "", "", false},
		{"windows", "", `C:\`, false},
	} {
		if got := withinOn(tc.goos, tc.root, tc.path); got != tc.want {
			t.Errorf("withinOn(%s, %q, %q) = %v, want %v", tc.goos, tc.root, tc.path, got, tc.want)
		}
	}
}

func TestAnchorWindowsPath(t *testing.T) {
	const root = `C:\Users\ann\repo`
	for _, tc := range []struct {
		path, want, err string
	}{
		{`src\a.go`, `src\a.go`, ""},
		{`C:\Users\ann\repo\a.go`, `C:\Users\ann\repo\a.go`, ""},
		{`c:/users/ann/repo/a.go`, `c:/users/ann/repo/a.go`, ""},
		// Rooted on no drive: the first root's drive, as path.resolve has it.
		{`\Users\ann\repo\a.go`, `C:\Users\ann\repo\a.go`, ""},
		{`/tmp/x`, `C:/tmp/x`, ""},
		{`C:a.go`, "", "relative to the current directory of drive C:"},
		{`d:`, "", "relative to the current directory of drive d:"},
		{`\\?\C:\Users\ann\repo\a.go`, `C:\Users\ann\repo\a.go`, ""},
		{`\\?\UNC\server\share\a.go`, `\\server\share\a.go`, ""},
		{`\\.\PhysicalDrive0`, "", "device path"},
		{`\\.\pipe\x`, "", "device path"},
		{`\\server\share\a.go`, `\\server\share\a.go`, ""}, // checkShare's to judge
	} {
		got, err := anchorWindowsPath(tc.path, root)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("anchorWindowsPath(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("anchorWindowsPath(%q) = %q, %v; want an error saying %q", tc.path, got, err, tc.err)
		}
	}
	// A root on a share lends its share to a path rooted on no drive.
	if got, err := anchorWindowsPath(`\x\a.go`, `\\srv\proj\repo`); err != nil || got != `\\srv\proj\x\a.go` {
		t.Errorf(`anchorWindowsPath(\x\a.go) under a share = %q, %v; want \\srv\proj\x\a.go`, got, err)
	}
}

// A path on a share no root is on is refused before the file system is
// asked (which would connect to the server); one on a root's share, in
// any case, is not.
func TestCheckShare(t *testing.T) {
	roots := []string{`C:\repo`, `\\Files\Team\proj`}
	for path, ok := range map[string]bool{
		`C:\repo\a.go`:             true,
		`\\files\team\proj\a.go`:   true,
		`\\files\team\other\a.go`:  true, // on the share: outside the roots, which Resolve then says
		`\\attacker\share\a.go`:    false,
		`\\files\otherteam\proj\x`: false,
		`\\attacker`:               false,
	} {
		err := checkShare(path, roots)
		if (err == nil) != ok {
			t.Errorf("checkShare(%q) = %v, want ok %v", path, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "network share") {
			t.Errorf("checkShare(%q) = %v, want it to say the path is on a network share", path, err)
		}
	}
}

func TestWindowsVolume(t *testing.T) {
	for p, want := range map[string]string{
		`C:\x`:            "C:",
		`c:`:              "c:",
		`\\srv\share\x\y`: `\\srv\share`,
		`//srv/share/x`:   `//srv/share`,
		`\\srv\share`:     `\\srv\share`,
		`\\srv`:           `\\srv`,
		`\x`:              "",
		`x`:               "",
	} {
		if got := windowsVolume(p); got != want {
			t.Errorf("windowsVolume(%q) = %q, want %q", p, got, want)
		}
	}
}

// On Windows itself, a path rooted on no drive resolves on the root's
// drive, a drive-relative one is refused saying why, and a root given
// in another case is the same root.
func TestResolveWindowsPaths(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("Windows's paths: the rules are tested on every system above")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "a.go")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, strings.ToUpper(file), file[len(filepath.VolumeName(file)):], strings.ReplaceAll(file, `\`, "/")} {
		got, err := ws.Resolve(p)
		if err != nil || !strings.EqualFold(got, file) {
			t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, file)
		}
	}
	if _, err := ws.Resolve(filepath.VolumeName(root) + "a.go"); err == nil || !strings.Contains(err.Error(), "current directory of drive") {
		t.Errorf("Resolve(drive-relative) = %v, want the refusal saying why", err)
	}
	if _, err := ws.Resolve(`\\gemini-ls-test-no-such-server\share\a.go`); err == nil || errors.Is(err, ErrOutsideRoots) || !strings.Contains(err.Error(), "network share") {
		t.Errorf("Resolve(UNC) = %v, want the refusal naming the share", err)
	}
	if _, added, err := ws.AddRoot(strings.ToLower(root)); err != nil || added {
		t.Errorf("AddRoot(the root in lower case) = added %v, %v; want the same root, not added", added, err)
	}
}
