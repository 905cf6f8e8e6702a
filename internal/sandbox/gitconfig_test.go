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
