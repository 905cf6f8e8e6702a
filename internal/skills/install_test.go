package skills

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeZip(t *testing.T, files map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.skill")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, text := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func yes([]Skill, string) (bool, error) { return true, nil }

// TestInstallRefusesAnArchiveThatEscapes: a .skill entry naming a path
// outside the directory it unpacks to is refused, nothing written there.
func TestInstallRefusesAnArchiveThatEscapes(t *testing.T) {
	base := t.TempDir()
	archive := writeZip(t, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: d\n---\n",
		"../../../../../../../../" + strings.TrimPrefix(filepath.Join(base, "escaped"), "/"): "x",
	})
	target := filepath.Join(t.TempDir(), "skills")
	_, err := Install{Source: archive, Target: target, Log: func(string) {}, Consent: yes}.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "escaped")); err == nil {
		t.Error("an entry was written outside")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("something was installed")
	}
}

// TestInstallReplacesAndUninstallFindsByName: installing again replaces
// the skill (saying so), and uninstall finds it by its front matter's
// name, whatever its directory is called.
func TestInstallReplacesAndUninstallFindsByName(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "dir", "SKILL.md"), []byte("---\nname: named\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "skills")
	var logged []string
	in := Install{Source: src, Target: target, Log: func(s string) { logged = append(logged, s) }, Consent: yes}
	for range 2 {
		if _, err := in.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(strings.Join(logged, "\n"), `Skill "named" already exists. Overwriting...`) {
		t.Errorf("logged %q", logged)
	}
	// Renamed on disk: still found by its name.
	if err := os.Rename(filepath.Join(target, "named"), filepath.Join(target, "other")); err != nil {
		t.Fatal(err)
	}
	loc, err := Uninstall("named", target)
	if err != nil || loc != filepath.Join(target, "other") {
		t.Fatalf("Uninstall = %q, %v", loc, err)
	}
	if loc, err := Uninstall("../"+filepath.Base(target), target); err != nil || loc != "" {
		t.Errorf("a name outside the target: %q, %v", loc, err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the target went: %v", err)
	}
}

// Without git a skill from a git repository is refused saying git is
// missing, as a Windows often has none.
func TestCloneSaysGitIsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := clone(t.Context(), "https://github.com/acme/skills.git", filepath.Join(t.TempDir(), "clone"))
	if err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("without git: %v, want it to say git is not installed", err)
	}
}
