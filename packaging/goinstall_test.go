package packaging

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// modulePath is go.mod's module path.
func modulePath(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	return string(m[1])
}

// inModuleZip reports whether the go command puts the tracked file name
// into the module's zip: not in a nested module (a folder with its own
// go.mod) and not in a vendor folder.
func inModuleZip(name string, nested []string) bool {
	for _, dir := range nested {
		if strings.HasPrefix(name, dir+"/") {
			return false
		}
	}
	return !slices.Contains(strings.Split(path.Dir(name), "/"), "vendor")
}

// TestGoInstall: `go install MODULE/cmd/gemini-ls@latest` from an empty
// module cache, as a user without a clone runs it, installs a server that
// names the release. GitHub is out of reach here, so the module's release
// (the committed tree, as the module proxy would zip the tag) is served
// by a file proxy in front of GOPROXY, which gives the dependencies.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads every dependency into an empty module cache")
	}
	mod := modulePath(t)
	version := "v" + sourceVersion(t)

	platformtest.Tool(t, "git")
	ls := exec.Command("git", "ls-files", "-z")
	ls.Dir = repoRoot
	out, err := ls.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	var nested []string
	for _, f := range files {
		if path.Base(f) == "go.mod" && f != "go.mod" {
			nested = append(nested, path.Dir(f))
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		if !inModuleZip(f, nested) {
			continue
		}
		info, err := os.Lstat(filepath.Join(repoRoot, f))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink (never in a module zip)
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(mod + "@" + version + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`),
		version + ".mod":  goMod,
		version + ".zip":  buf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	modcache, bin := t.TempDir(), t.TempDir()
	env := append(os.Environ(),
		"GOMODCACHE="+modcache,
		"GOBIN="+bin,
		"GOPROXY=file:///"+strings.TrimPrefix(filepath.ToSlash(proxy), "/")+","+strings.TrimSpace(string(upstream)),
		"GONOSUMDB="+mod, // the checksum database knows no release of ours made here
		// -trimpath, as make dist builds: the compiled dependencies are
		// then the build cache's, so what is tested is the module's
		// fetch and its version, not minutes of compiling them again
		// (without it their directory, the new module cache, is part of
		// each package's cache key).
		"GOFLAGS=-trimpath",
		"CGO_ENABLED=0",
	)
	// The module cache's files are read-only: go clean removes them.
	t.Cleanup(func() {
		clean := exec.Command("go", "clean", "-modcache")
		clean.Env = env
		_ = clean.Run()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "go", "install", mod+"/cmd/gemini-ls@latest")
	install.Env = env
	install.Dir = t.TempDir() // outside any module, as a user runs it
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/gemini-ls@latest: %v\n%s", mod, err, out)
	}
	exe := filepath.Join(bin, "gemini-ls")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	got, err := exec.Command(exe, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", exe, err)
	}
	// The module proxy's zip carries no commit: the version is what names it.
	if want := "gemini-ls " + strings.TrimPrefix(version, "v"); strings.TrimSpace(string(got)) != want {
		t.Errorf("go install …@latest, then --version: %q, want %q", strings.TrimSpace(string(got)), want)
	}
}
