package skills

import (
	"strconv"
	"strings"
	"testing"
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
		if name == "" || description == "" || !yamlText(name) || !yamlText(description) {
			return
		}
		doc := "---\nname: " + strconv.Quote(name) + "\ndescription: " + strconv.Quote(description) + "\n---\nbody"
		s, err = Parse("/skills/x/SKILL.md", doc)
		if err != nil || s.Description != description || s.Name != unsafeNameChars.ReplaceAllString(name, "-") || s.Body != "body" {
			t.Fatalf("Parse(%q) = %+v, %v", doc, s, err)
		}
	})
}

// yamlText reports whether s is text a YAML string may hold on one line.
func yamlText(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' || r < 0x20 && r != '\t' || 0x7f <= r && r < 0xa0 || r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			return false
		}
	}
	return true
}
