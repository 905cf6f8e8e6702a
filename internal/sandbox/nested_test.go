//go:build !windows

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A writable path in another must lead into the writable paths in no
// other: a command may have replaced it, or a directory above it, with a
// link out. One in no other may lead anywhere (the user's own link), and
// one not yet made is checked where it would be made.
func TestWritablePathsInAnotherMustLeadBackIntoThem(t *testing.T) {
	home, root, data := t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{"sub", "deep/dir", "inner"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) string {
		if err := os.Symlink(target, filepath.Join(root, at)); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(root, at)
	}
	toHome := link(home, "to-home")
	toSub := link(filepath.Join(root, "sub"), "to-sub")
	toBin := link(filepath.Join(home, ".local", "bin"), "to-bin") // not there yet
	viaLink := link(home, "above")
	toData := filepath.Join(home, "shared")
	if err := os.Symlink(data, toData); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		allowed []string
		want    string // "" accepted
	}{
		{[]string{filepath.Join(root, "sub"), filepath.Join(root, "deep/dir")}, ""},
		{[]string{filepath.Join(root, "not-yet")}, ""},
		{[]string{toSub}, ""},
		{[]string{toData}, ""}, // in no other: the user's own link
		{[]string{data, filepath.Join(data, "x")}, ""},
		{[]string{toHome}, "the writable path " + toHome + " lies in " + root + ", where commands write, and now leads to " + home},
		{[]string{toBin}, "now leads to " + filepath.Join(home, ".local", "bin")},
		{[]string{filepath.Join(viaLink, "cache")}, "now leads to " + filepath.Join(home, "cache")},
		{[]string{filepath.Join(root, "inner"), filepath.Join(toHome, "x")}, "now leads to " + filepath.Join(home, "x")},
	} {
		sb := &Sandbox{cfg: Config{Command: Docker, AllowedPaths: c.allowed}, home: home, roots: func() []string { return []string{root} }}
		paths, err := sb.writableChecked()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.allowed, err)
		case c.want == "" && !slices.Equal(paths, sb.writable()):
			t.Errorf("%q: paths %q, want %q", c.allowed, paths, sb.writable())
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: err = %v, want %q", c.allowed, err, c.want)
		}
		// Both backends ask.
		_, err = sb.containerArgs(root, nil, nil, []string{"true"})
		if (err == nil) != (c.want == "") {
			t.Errorf("%q: containerArgs: %v", c.allowed, err)
		}
	}
}

// A container mounts the writable paths that exist, as bubblewrap's
// --bind-try: podman refuses to start with a missing one, and docker
// would make it, as root.
func TestContainerMountsTheWritablePathsThatExist(t *testing.T) {
	root, home, shared := t.TempDir(), t.TempDir(), t.TempDir()
	missing := filepath.Join(home, ".cache", "pip")
	sb := &Sandbox{cfg: Config{Command: Podman, AllowedPaths: []string{missing, shared}}, home: home, roots: func() []string { return []string{root} }}
	args, err := sb.containerArgs(root, nil, nil, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(args, root+":"+root) || !slices.Contains(args, shared+":"+shared) {
		t.Errorf("the root or the allowed path that exists is not mounted: %q", args)
	}
	if joined := strings.Join(args, " "); strings.Contains(joined, missing) {
		t.Errorf("the missing allowed path is mounted: %q", args)
	}
}
