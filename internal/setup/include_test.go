package setup

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

type includeCase struct {
	home, root, fromUser, fromFlag, beside string
	env                                    map[string]string
	warnings                               []string
}

// newIncludeCase makes a home, a project root, and three directories to
// include, each holding a GEMINI.md; the user's settings include one.
func newIncludeCase(t *testing.T, userSettings string) *includeCase {
	t.Helper()
	c := &includeCase{home: t.TempDir(), root: t.TempDir()}
	dirs := t.TempDir()
	c.fromUser, c.fromFlag, c.beside = filepath.Join(dirs, "user"), filepath.Join(dirs, "flag"), filepath.Join(dirs, "beside")
	for _, d := range []string{c.fromUser, c.fromFlag, c.beside} {
		writeFile(t, filepath.Join(d, "GEMINI.md"), "memory of "+filepath.Base(d))
		// Not a project's settings: never read.
		writeFile(t, filepath.Join(d, ".gemini", "settings.json"), `{"ui": {"theme": "x"}}`)
	}
	writeFile(t, filepath.Join(c.home, ".gemini", "settings.json"), strings.ReplaceAll(userSettings, `"USERDIR"`, strconv.Quote(c.fromUser)))
	c.env = map[string]string{"HOME": c.home, "USERPROFILE": c.home, "GEMINI_API_KEY": "k", "GEMINI_CLI_TRUST_WORKSPACE": "true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(c.home, "none.json")}
	return c
}

func (c *includeCase) build(t *testing.T, include ...string) *Built {
	t.Helper()
	ws, err := workspace.New([]string{c.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(context.Background(), Options{
		Workspace:          ws,
		Getenv:             func(k string) string { return c.env[k] },
		Warn:               func(what string, err error) { c.warnings = append(c.warnings, what+": "+err.Error()) },
		IncludeDirectories: include,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// context.includeDirectories and the front end's directories become
// roots, in that order, after the project's; a missing one is reported
// and left out; their GEMINI.md files count only with
// context.loadMemoryFromIncludeDirectories.
func TestIncludeDirectoriesBecomeRoots(t *testing.T) {
	for _, loadMemory := range []bool{false, true} {
		c := newIncludeCase(t, `{"context": {"includeDirectories": ["USERDIR", "missing"], "loadMemoryFromIncludeDirectories": `+map[bool]string{false: "false", true: "true"}[loadMemory]+`}}`)
		b := c.build(t, c.fromFlag)
		if got, want := b.Workspace().Roots(), []string{c.root, c.fromUser, c.fromFlag}; !slices.Equal(got, want) {
			t.Errorf("roots = %q, want %q", got, want)
		}
		if len(c.warnings) != 1 || !strings.Contains(c.warnings[0], filepath.Join(c.root, "missing")) {
			t.Errorf("warnings = %q, want the missing directory named", c.warnings)
		}
		mem, err := b.Memory().SystemMemory(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{c.fromUser, c.fromFlag} {
			if got := strings.Contains(mem, "memory of "+filepath.Base(d)); got != loadMemory {
				t.Errorf("loadMemoryFromIncludeDirectories %v: %s's GEMINI.md in memory = %v", loadMemory, d, got)
			}
		}
		// The added roots are not projects: a reload reads no settings of theirs.
		c.warnings = nil
		if _, _, err := b.Reload(nil); err != nil || len(c.warnings) != 0 {
			t.Errorf("Reload = %v, warnings %q", err, c.warnings)
		}
	}
}

// A folder that is not trusted cannot add roots: its settings are not read.
func TestUntrustedFolderAddsNoRoots(t *testing.T) {
	c := newIncludeCase(t, `{}`)
	c.env["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
	writeFile(t, filepath.Join(c.root, ".gemini", "settings.json"), `{"context": {"includeDirectories": [`+strconv.Quote(c.beside)+`]}}`)
	b := c.build(t)
	if got := b.Workspace().Roots(); !slices.Equal(got, []string{c.root}) {
		t.Errorf("roots = %q, want only the project", got)
	}
	c.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if got := c.build(t).Workspace().Roots(); !slices.Equal(got, []string{c.root, c.beside}) {
		t.Errorf("trusted, roots = %q, want the project's include too", got)
	}
}
