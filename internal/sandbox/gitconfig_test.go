package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// The configuration parser finds what git would read: every spelling of
// a section, quoted and continued values, comments, and stops where git
// would refuse the file.
func TestParseGitConfig(t *testing.T) {
	src := `# comment
[core]
	hooksPath = "hooks dir" ; comment
[Include]
	PATH = a.inc
[includeIf "gitdir:~/w\"ork/"]
	path = b\
.inc
[include.sub]
	path=c.inc # trailing
[core] bare
[section "s"] key = "x \"y\" \\ z\tw"
`
	got := parseGitConfig([]byte(src))
	want := []gitConfigEntry{
		{"core", "", "hookspath", "hooks dir"},
		{"include", "", "path", "a.inc"},
		{"includeif", `gitdir:~/w"ork/`, "path", "b.inc"},
		{"include", "sub", "path", "c.inc"},
		{"core", "", "bare", "true"},
		{"section", "s", "key", "x \"y\" \\ z\tw"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseGitConfig:\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"key = v\n", "[core\n", "[core]\nk = \"open\n", "[core]\nk = \\q\n"} {
		if got := parseGitConfig([]byte(bad)); len(got) != 0 {
			t.Errorf("%q: %q, want nothing", bad, got)
		}
	}
	// Linear: a hostile file of escapes and quotes is read at once.
	huge := "[core]\nk = " + strings.Repeat(`a\b"x"`, 200000) + "\n"
	if got := parseGitConfig([]byte(huge)); len(got) != 1 {
		t.Errorf("huge value: %d entries", len(got))
	}
}

// What makes git run a program is told from what does not.
func TestGitRunsProgram(t *testing.T) {
	src := `[core]
	repositoryformatversion = 0
	fsmonitor = true
	bare = false
[remote "origin"]
	url = https://example.com/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[alias]
	st = status
[user]
	name = t
`
	for _, e := range parseGitConfig([]byte(src)) {
		if gitRunsProgram(e) {
			t.Errorf("%s = %s: runs a program", e.key(), e.value)
		}
	}
	for _, src := range []string{
		"[core]\n\tfsmonitor = ./x\n", "[core]\n\tsshCommand = x\n", "[core]\n\tpager = x\n",
		"[core]\n\thooksPath = h\n", "[diff \"d\"]\n\ttextconv = x\n", "[filter \"f\"]\n\tsmudge = x\n",
		"[merge \"m\"]\n\tdriver = x\n", "[credential]\n\thelper = x\n", "[alias]\n\tst = !x\n",
		"[include]\n\tpath = x\n", "[includeIf \"gitdir:/\"]\n\tpath = x\n", "[uploadpack]\n\tpackObjectsHook = x\n",
		"[hook \"h\"]\n\tcommand = x\n", "[submodule \"s\"]\n\tupdate = !x\n", "[protocol \"ext\"]\n\tallow = always\n",
	} {
		es := parseGitConfig([]byte(src))
		if len(es) != 1 || !gitRunsProgram(es[0]) {
			t.Errorf("%q: runs no program", src)
		}
	}
}
