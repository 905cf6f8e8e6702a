package builtin_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// /directory add adds trusted folders as roots (comma-separated, ~ and
// relative paths as Gemini CLI reads them), says which were roots
// already, and refuses a folder that is not trusted, saying how to trust
// it; /directory show lists the roots.
func TestDirectoryAddAndShow(t *testing.T) {
	h := newHarness(t)
	// Trust decided by trustedFolders.json, not the environment, so that
	// one folder can be trusted and another not.
	delete(h.env, "GEMINI_CLI_TRUST_WORKSPACE")
	parent := t.TempDir()
	lib, docs, secret := filepath.Join(parent, "lib"), filepath.Join(h.home, "docs"), filepath.Join(parent, "secret")
	h.write(filepath.Join(lib, "x.go"), "package x\n")
	h.write(filepath.Join(docs, "d.md"), "# d\n")
	h.write(filepath.Join(secret, "s.txt"), "s\n")
	h.write("~/.gemini/trustedFolders.json", `{`+strconv.Quote(h.root)+`: "TRUST_FOLDER", `+strconv.Quote(lib)+`: "TRUST_FOLDER", `+strconv.Quote(docs)+`: "TRUST_FOLDER"}`)
	env := h.conversation()

	out := h.answer(env, "/directory add "+lib+", ~/docs ,"+h.root)
	for _, want := range []string{
		"The following directories are already in the workspace:\n- " + h.root,
		"Successfully added directories:\n- " + lib + "\n- " + docs,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/directory add said %q, want %q", out, want)
		}
	}
	if _, err := env.Built.Workspace().Resolve(filepath.Join(lib, "x.go")); err != nil {
		t.Errorf("a file in an added directory: %v", err)
	}

	err := h.fails(env, "/directory add "+secret)
	for _, want := range []string{"were not added because they were not trusted:\n- " + secret, "gemini-ls trust " + osshell.Local().Quote(secret)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("/directory add of an untrusted folder: %v, want %q", err, want)
		}
	}
	if _, err := env.Built.Workspace().Resolve(filepath.Join(secret, "s.txt")); err == nil {
		t.Error("a file in the refused directory resolves")
	}
	if err := h.fails(env, "/directory add "+filepath.Join(parent, "missing")); !strings.Contains(err.Error(), "Error adding") {
		t.Errorf("/directory add of a missing directory: %v", err)
	}
	if err := h.fails(env, "/directory add  , "); !strings.Contains(err.Error(), "Please provide at least one path to add") {
		t.Errorf("/directory add with no path: %v", err)
	}

	show := h.answer(env, "/directory show")
	if want := "Current workspace directories:\n- " + h.root + "\n- " + lib + "\n- " + docs; show != want {
		t.Errorf("/directory show = %q, want %q", show, want)
	}
}
