package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// /skills disable and enable change skills.disabled and nothing else of
// the file: comments, order and layout stay; a missing file or key is
// created; what was there is read, whatever the case of the layout.
func TestEditSkillsDisabled(t *testing.T) {
	add := func(name string) func([]string) []string {
		return func(old []string) []string { return append(old, name) }
	}
	for _, tc := range []struct {
		name, before, want string
	}{
		{"no file", "", "{\n  \"skills\": {\n    \"disabled\": [\"a\"]\n  }\n}\n"},
		{"empty object", "{}\n", "{\n  \"skills\": {\n    \"disabled\": [\"a\"]\n  }\n}\n"},
		{"other keys, comments", "{\n  // my model\n  \"model\": {\"name\": \"x\"}, /* keep */\n}\n",
			"{\n  \"skills\": {\n    \"disabled\": [\"a\"]\n  },\n  // my model\n  \"model\": {\"name\": \"x\"}, /* keep */\n}\n"},
		{"skills without disabled", "{\n  \"skills\": {\n    \"enabled\": true\n  }\n}\n",
			"{\n  \"skills\": {\n    \"disabled\": [\"a\"],\n    \"enabled\": true\n  }\n}\n"},
		{"existing list", "{\n  \"skills\": {\"disabled\": [\"z\"] // why\n  }\n}\n",
			"{\n  \"skills\": {\"disabled\": [\"z\", \"a\"] // why\n  }\n}\n"},
		{"skills null", "{\"skills\": null}", "{\"skills\": {\n  \"disabled\": [\"a\"]\n}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".gemini", "settings.json")
			if tc.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := EditSkillsDisabled(t.Context(), path, add("a")); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Errorf("file =\n%s\nwant\n%s", got, tc.want)
			}
			obj, err := parseObject(path, got)
			if err != nil {
				t.Fatalf("the edited file does not parse: %v", err)
			}
			var s Settings
			if err := fromMap(obj, &s); err != nil || !slices.Contains(s.Skills.Disabled, "a") {
				t.Errorf("skills.disabled = %q, %v", s.Skills.Disabled, err)
			}
		})
	}
}

// A file that is not a settings object is left alone, with an error.
func TestEditSkillsDisabledRefusesABrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{ broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EditSkillsDisabled(t.Context(), path, func(old []string) []string { return old }); err == nil {
		t.Error("no error for a broken file")
	}
	if got, _ := os.ReadFile(path); string(got) != "{ broken" {
		t.Errorf("the broken file became %q", got)
	}
}

// /model set --persist changes model.name and nothing else of the file:
// a model object's other keys and the comments stay; a missing file or
// key is created.
func TestSetModelName(t *testing.T) {
	for _, tc := range []struct {
		name, before, want string
	}{
		{"no file", "", "{\n  \"model\": {\n    \"name\": \"gemini-2.5-pro\"\n  }\n}\n"},
		{"other keys", "{\n  // mine\n  \"ui\": {\"theme\": \"x\"}\n}\n",
			"{\n  \"model\": {\n    \"name\": \"gemini-2.5-pro\"\n  },\n  // mine\n  \"ui\": {\"theme\": \"x\"}\n}\n"},
		{"model without name", "{\n  \"model\": {\n    \"maxSessionTurns\": 5\n  }\n}\n",
			"{\n  \"model\": {\n    \"name\": \"gemini-2.5-pro\",\n    \"maxSessionTurns\": 5\n  }\n}\n"},
		{"a name", "{\"model\": {\"name\": \"auto\" /* was */}}", "{\"model\": {\"name\": \"gemini-2.5-pro\" /* was */}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".gemini", "settings.json")
			if tc.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetModelName(t.Context(), path, "gemini-2.5-pro"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Errorf("file =\n%s\nwant\n%s", got, tc.want)
			}
			obj, err := parseObject(path, got)
			if err != nil {
				t.Fatalf("the edited file does not parse: %v", err)
			}
			var s Settings
			if err := fromMap(obj, &s); err != nil || s.Model.Name != "gemini-2.5-pro" {
				t.Errorf("model.name = %q, %v", s.Model.Name, err)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("[1]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetModelName(t.Context(), path, "x"); err == nil {
		t.Error("no error for a file that is not an object")
	}
	if got, _ := os.ReadFile(path); string(got) != "[1]" {
		t.Errorf("the file became %q", got)
	}
}

// An edit of a settings file with comments, many members and long lines
// costs a linear reading of the file.
func TestSetValueIsLinear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	members := func(sep string) func(int) string {
		return func(size int) string {
			var b strings.Builder
			b.WriteString("{// a comment\n")
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "%s\"k%d\": [1]%s", sep, i, ",")
			}
			b.WriteString("\"last\": 0}")
			return b.String()
		}
	}
	for name, input := range map[string]func(int) string{
		"members on one line":   members(""),
		"members on many lines": members("\n  "),
		"blanks before members": func(size int) string {
			return "{// a comment\n" + strings.Repeat(" ", size/2) + members("")(size / 2)[len("{// a comment\n"):]
		},
	} {
		lineartest.Linear(t, name, input, func(text string) {
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Error(err)
			} else if err := SetValue(t.Context(), path, []string{"general", "vimMode"}, true); err != nil {
				t.Errorf("SetValue: %v", err)
			}
		})
	}
}

// A file nested deeper than an edit re-indents is refused as it is, with
// the reason: 9000 levels, which the JSON parser allows, would be written
// back 162 MB long.
func TestEditRefusesDeepNesting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	for _, depth := range []int{maxEditNesting, 9000} {
		src := "{// c\n\"a\": " + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		err := SetValue(t.Context(), path, []string{"general", "vimMode"}, true)
		got, _ := os.ReadFile(path)
		if depth <= maxEditNesting {
			if err != nil || !strings.Contains(string(got), "vimMode") {
				t.Errorf("depth %d: SetValue: %v; the file is %.100q", depth, err, got)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "nest 9000 levels deep") {
			t.Errorf("depth %d: SetValue: %v, want a refusal naming the depth", depth, err)
		}
		if string(got) != src {
			t.Errorf("depth %d: the refused edit changed the file", depth)
		}
	}
}
