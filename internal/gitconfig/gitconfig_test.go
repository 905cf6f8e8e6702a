package gitconfig

import (
	"slices"
	"strings"
	"testing"
)

// The configuration parser finds what git would read: every spelling of
// a section, quoted and continued values, comments, and stops where git
// would refuse the file.
func TestParse(t *testing.T) {
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
	got := Parse([]byte(src))
	want := []Entry{
		{"core", "", "hookspath", "hooks dir"},
		{"include", "", "path", "a.inc"},
		{"includeif", `gitdir:~/w"ork/`, "path", "b.inc"},
		{"include", "sub", "path", "c.inc"},
		{"core", "", "bare", "true"},
		{"section", "s", "key", "x \"y\" \\ z\tw"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Parse:\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"key = v\n", "[core\n", "[core]\nk = \"open\n", "[core]\nk = \\q\n"} {
		if got := Parse([]byte(bad)); len(got) != 0 {
			t.Errorf("%q: %q, want nothing", bad, got)
		}
	}
	// Linear: a hostile file of escapes and quotes is read at once.
	huge := "[core]\nk = " + strings.Repeat(`a\b"x"`, 200000) + "\n"
	if got := Parse([]byte(huge)); len(got) != 1 {
		t.Errorf("huge value: %d entries", len(got))
	}
}

// Booleans are git's: words in any case, the empty value false, integers
// as C reads them (with git's k, m and g), nothing else.
func TestBool(t *testing.T) {
	for value, want := range map[string]bool{
		"true": true, "YES": true, "On": true, "false": false, "no": false, "OFF": false, "": false,
		"1": true, "0": false, "-2": true, "0x0": false, "0xb": true, "010": true, "1k": true, "0g": false,
	} {
		if got, ok := Bool(value); !ok || got != want {
			t.Errorf("Bool(%q) = %v, %v; want %v", value, got, ok, want)
		}
	}
	for _, bad := range []string{"maybe", "1_000", "0b1", "0o7", "1kk", "tru", " 1"} {
		if _, ok := Bool(bad); ok {
			t.Errorf("Bool(%q) is read; git refuses it", bad)
		}
	}
}
