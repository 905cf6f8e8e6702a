package skills

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: a SKILL.md is a skill or an error saying why not; a skill's
// name never holds a character a file name cannot, and a name and a
// description written as YAML strings are read back as written.
//
//	go test -run '^$' -fuzz FuzzParse ./internal/skills/
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: my-skill\ndescription: Does things.\n---\nBody\n",
		"---\nname: a:b/c\ndescription: has: a colon\n---\n",
		"---\nname: x\ndescription: first\n  continued\n  again\n---\n",
		"---\r\nname: 'q'\r\ndescription: \"d\"\r\n---\r\n",
		"---\nname: [1]\ndescription: d\n---\n",
		"no front matter",
	} {
		f.Add(s, "skill: name", "a description: with \"quotes\"")
	}
	f.Fuzz(func(t *testing.T, content, name, description string) {
		s, err := Parse("/skills/x/SKILL.md", content)
		if err == nil && strings.ContainsAny(s.Name, `:\/<>*?"|`) {
			t.Fatalf("Parse(%q): name %q", content, s.Name)
		}
		if name == "" || description == "" || !utf8.ValidString(name) || !utf8.ValidString(description) {
			return // not text; strconv.Quote escapes the rest as YAML reads it
		}
		doc := "---\nname: " + strconv.Quote(name) + "\ndescription: " + strconv.Quote(description) + "\n---\nbody"
		s, err = Parse("/skills/x/SKILL.md", doc)
		if err != nil || s.Description != description || s.Name != unsafeNameChars.ReplaceAllString(name, "-") || s.Body != "body" {
			t.Fatalf("Parse(%q) = %+v, %v", doc, s, err)
		}
	})
}
