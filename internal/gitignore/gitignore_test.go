package gitignore

import (
	"strings"
	"testing"
	"time"
)

// A glob of many stars against a long name that does not match takes
// polynomial time: the matcher stops a '*' from trying further along
// the text once what follows it cannot match there, as git 2.41's does.
// Tried at every split, these would take longer than the universe has.
func TestManyStarsDoNotTakeExponentialTime(t *testing.T) {
	deep := strings.Repeat("a/", 60) + "b"
	for _, c := range []struct{ pattern, path string }{
		{strings.Repeat("*a", 20) + "*b", strings.Repeat("a", 200)},
		{strings.Repeat("**/a", 20) + "/x", deep},
		{strings.Repeat("a*", 30) + "[!a]", strings.Repeat("a", 200)},
		{strings.Repeat("?*", 30) + "c", strings.Repeat("ab", 100)},
		{"a/" + strings.Repeat("**/", 30) + "c", deep},
	} {
		patterns := Parse([]byte(c.pattern), "", false)
		done := make(chan bool, 1)
		go func() {
			dir, name := "", c.path
			if i := strings.LastIndexByte(c.path, '/'); i >= 0 {
				dir, name = c.path[:i+1], c.path[i+1:]
			}
			done <- Ignored(patterns, dir, name, false)
		}()
		select {
		case ignored := <-done:
			if ignored {
				t.Errorf("%q ignores %q: it matched, or was too costly to judge", c.pattern, c.path)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q against %q: no answer in 20 s", c.pattern, c.path)
		}
	}
}

// A rule past even that bound (git would not answer in a lifetime)
// ignores the path, whether it ignores or re-includes: what the user hid
// is never shown for want of an answer.
func TestARuleTooCostlyToJudgeIgnores(t *testing.T) {
	costly := "a/" + strings.Repeat("**/", 300) + "c"
	dir := strings.Repeat("a/", 1000)
	for _, rules := range []string{costly, "*\n!" + costly} {
		if !Ignored(Parse([]byte(rules), "", false), dir, "b", false) {
			t.Errorf("%.20q… does not ignore %.20q…", rules, dir)
		}
	}
	if Ignored(Parse([]byte(costly), "", false), "x/", "b", false) {
		t.Errorf("%.20q… ignores x/b, which it never costs much to judge", costly)
	}
}

func BenchmarkIgnored(b *testing.B) {
	patterns := Parse([]byte("*.o\n/build/\n**/generated/**\n*.sw[op]\n[Tt]humbs.db\nsecret*.txt\n!secret-ok.txt\ncmd/**/testdata/*.golden\n.env.*\nnode_modules/\n"), "", false)
	names := []string{"main.go", "x.o", "secret1.txt", "Thumbs.db", "y.swp", "a.golden"}
	for b.Loop() {
		for _, name := range names {
			Ignored(patterns, "cmd/tool/testdata/", name, false)
		}
	}
}
