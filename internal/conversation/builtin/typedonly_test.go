package builtin_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
)

// typedOnly walks list, naming each command and subcommand that Changes
// what the agent may do by its full name ("mcp disable").
func typedOnly(list []builtin.Builtin, prefix string) []string {
	var names []string
	for _, b := range list {
		name := strings.TrimSpace(prefix + " " + b.Name)
		if b.Changes != "" {
			names = append(names, name)
		}
		names = append(names, typedOnly(b.Subcommands, name)...)
	}
	return names
}

// The audit of issue 62: the commands that change trust, permissions,
// settings, extensions, MCP servers, hooks, skills, subagents, the
// memory or the account are the ones declared typed-only; a command
// added or changed is decided here on purpose. The reloads only read
// what the user configured again; /plan allows less than the default
// mode; /mcp auth needs a person in the browser.
func TestTypedOnlyCommandsAreTheAuditedOnes(t *testing.T) {
	want := []string{
		"agents enable", "agents disable",
		"auth signout",
		"directory add",
		"extensions update", "extensions enable", "extensions disable", "extensions install", "extensions uninstall", "extensions link", "extensions config",
		"hooks enable", "hooks disable", "hooks enable-all", "hooks disable-all",
		"mcp enable", "mcp disable",
		"memory add",
		"memory inbox apply",
		"memory inbox move",
		"model set",
		"permissions trust",
		"privacy optin", "privacy optout",
		"skills disable", "skills enable", "skills link",
	}
	got := typedOnly(builtin.Table(), "")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("typed-only commands = %q\nwant %q", got, want)
	}
}

// Unattended (headless), every typed-only command is refused, by any of
// its names and as its command's default subcommand (/permissions is
// /permissions trust), before it does anything: trustedFolders.json, the
// settings and the memory are as they were, and the refusal names the
// command, what it changes and where to run it.
func TestTypedOnlyCommandsRefusedUnattended(t *testing.T) {
	h := newHarness(t)
	delete(h.env, "GEMINI_CLI_TRUST_WORKSPACE")
	trusted := h.write("~/.gemini/trustedFolders.json", `{`+strconv.Quote(h.root)+`: "TRUST_FOLDER"}`)
	settingsFile := h.write("~/.gemini/settings.json", `{"hooksConfig": {"disabled": ["marker"]}}`)
	memory := h.write("~/.gemini/GEMINI.md", "# mine\n")
	env := h.conversation()
	env.Unattended = true
	before := map[string]string{}
	for _, f := range []string{trusted, settingsFile, memory} {
		before[f] = h.read(f)
	}
	for line, want := range map[string]string{
		"/permissions trust /":         "/permissions trust was not run: it changes folder trust",
		"/permissions":                 "/permissions trust was not run",
		"/hooks enable marker":         "/hooks enable was not run",
		"/hooks enableall":             "/hooks enable-all was not run",
		"/memory add run curl|sh":      "/memory add was not run",
		"/memory inbox apply private":  "/memory inbox apply was not run",
		"/memory inbox move x global":  "/memory inbox move was not run",
		"/model set x --persist":       "/model set was not run",
		"/mcp disable tester":          "/mcp disable was not run",
		"/extensions install /tmp":     "/extensions install was not run",
		"/skills disable anything":     "/skills disable was not run",
		"/dir add /":                   "/directory add was not run",
		"/auth logout":                 "/auth signout was not run",
		"/privacy optin":               "/privacy optin was not run",
		"/agents enable codebase":      "/agents enable was not run",
		"/extensions delete all":       "/extensions uninstall was not run",
		"/skills link /tmp/x":          "/skills link was not run",
		"/extensions update --all":     "/extensions update was not run",
		"/extensions config x y z":     "/extensions config was not run",
		"/mcp enable tester --session": "/mcp enable was not run",
	} {
		err := h.fails(env, line)
		if _, ok := errors.AsType[*builtin.TypedOnlyError](err); !ok {
			t.Errorf("%s: %v, want a *TypedOnlyError", line, err)
			continue
		}
		for _, w := range []string{want, "where a person types it", "an editor's chat", "a pipe or -p"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s refused with %q, want %q", line, err, w)
			}
		}
	}
	for f, text := range before {
		if got := h.read(f); got != text {
			t.Errorf("%s changed to %q", f, got)
		}
	}
	if _, err := os.Stat(filepath.Join(h.home, ".gemini", "mcp-server-enablement.json")); err == nil {
		t.Error("the MCP enablement file was written")
	}
	// What changes nothing still runs, and a person typing is obeyed.
	if out := h.answer(env, "/hooks"); !strings.Contains(out, "hook") {
		t.Errorf("/hooks (the panel) said %q", out)
	}
	env.Unattended = false
	if out := h.answer(env, "/memory inbox apply private"); !strings.HasPrefix(out, "The memory inbox requires Auto Memory.") {
		t.Errorf("/memory inbox apply typed said %q", out)
	}
	if out := h.answer(env, "/memory add typed by a person"); !strings.Contains(h.read(memory), "typed by a person") {
		t.Errorf("/memory add typed said %q; GEMINI.md is %q", out, h.read(memory))
	}
}

// read is the file at path's text, "" when there is none.
func (h *harness) read(path string) string {
	h.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	return string(b)
}
