package tools

import (
	"strings"
	"testing"
)

// FuzzLocate: the replace tool's correction, whatever the file and the
// strings, finds occurrences in order inside the file, apart; an
// old_string the file holds is found exactly, every time it occurs;
// line-by-line stages replace whole lines; and making the splices
// changes nothing outside them.
//
//	go test -run '^$' -fuzz FuzzLocate ./internal/tools/
func FuzzLocate(f *testing.F) {
	for _, tc := range loadCorpus(f) {
		old, _ := tc.Args["old_string"].(string)
		newString, _ := tc.Args["new_string"].(string)
		f.Add(tc.File, old, newString)
	}
	f.Add("a\r\nb\r\n", "a\nb", "c\nd")
	f.Add("\tif x {\n\t\treturn\n\t}\n", "if x {\n    return\n}", "if y {\n    return\n}")
	f.Add("say \"hi\"\n", `say \"hi\"`, `say \"bye\"`)
	f.Add("aaaa", "aa", "b")
	f.Fuzz(func(t *testing.T, text, old, new string) {
		loc, ok := locate(text, old, new)
		if strings.Contains(text, old) && old != "" {
			if !ok || loc.stage != stageExact || len(loc.splices) != strings.Count(text, old) {
				t.Fatalf("locate(%q, %q): stage %v, %d splices; want every exact occurrence", text, old, loc.stage, len(loc.splices))
			}
		}
		if !ok {
			return
		}
		if len(loc.splices) == 0 {
			t.Fatalf("locate(%q, %q): found, with nothing to replace", text, old)
		}
		last := 0
		for _, s := range loc.splices {
			if s.start < last || s.end < s.start || s.end > len(text) {
				t.Fatalf("locate(%q, %q) at stage %v: splices %+v", text, old, loc.stage, loc.splices)
			}
			switch loc.stage {
			case stageExact:
				if text[s.start:s.end] != old {
					t.Fatalf("locate(%q, %q): exact match of %q", text, old, text[s.start:s.end])
				}
			case stageIndentation, stageWhitespace, stageFuzzy:
				if s.start > 0 && text[s.start-1] != '\n' {
					t.Fatalf("locate(%q, %q) at stage %v: a splice at %d, inside a line", text, old, loc.stage, s.start)
				}
			}
			last = s.end
		}
		got := loc.apply(text)
		first, end := loc.splices[0], loc.splices[len(loc.splices)-1]
		if !strings.HasPrefix(got, text[:first.start]) || !strings.HasSuffix(got, text[end.end:]) {
			t.Fatalf("locate(%q, %q): applying changed text outside the splices: %q", text, old, got)
		}
	})
}
