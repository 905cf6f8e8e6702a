package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expected texts are what Gemini CLI 0.61 wrote for the same edits
// (gemini mcp add and remove, run by hand on these files).
func TestSetValueWritesWhatGeminiCLIWrites(t *testing.T) {
	type server struct {
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}
	cases := []struct {
		name, before, after string
		keys                []string
		value               any
	}{
		{"a missing file", "", "{\n  \"mcpServers\": {\n    \"d\": {\n      \"command\": \"cmd\",\n      \"args\": [\n        \"--foo\",\n        \"bar\"\n      ]\n    }\n  }\n}",
			[]string{"mcpServers", "d"}, server{Command: "cmd", Args: []string{"--foo", "bar"}}},
		{"a file with comments", "{\n  // c1\n  \"x\": 1, /* c2 */\n  \"mcpServers\": {\"q\": {\"command\": \"z\"}}\n}\n",
			"{\n  // c1\n  \"x\": 1, /* c2 */\n  \"mcpServers\": {\n    \"q\": {\n      \"command\": \"z\"\n    },\n    \"a\": {\n      \"command\": \"cmd\",\n      \"args\": []\n    }\n  }\n}",
			[]string{"mcpServers", "a"}, server{Command: "cmd", Args: []string{}}},
		{"a file without comments, re-indented, new members last", "{\"b\": true, \"mcpServers\": {\"q\": {\"env\": {\"A\": \"1\"}, \"command\": \"z\"}}}\n",
			"{\n  \"b\": true,\n  \"mcpServers\": {\n    \"q\": {\n      \"command\": \"y\",\n      \"args\": [\n        \"<&>\"\n      ]\n    }\n  }\n}",
			[]string{"mcpServers", "q"}, server{Command: "y", Args: []string{"<&>"}}},
		{"a list in place", "{\n  \"skills\": {\n    \"disabled\": [\n      \"a\"\n    ],\n    \"enabled\": true\n  }\n}",
			"{\n  \"skills\": {\n    \"disabled\": [\n      \"a\",\n      \"b\"\n    ],\n    \"enabled\": true\n  }\n}",
			[]string{"skills", "disabled"}, []string{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".gemini", "settings.json")
			if c.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetValue(t.Context(), path, c.keys, c.value); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.after {
				t.Errorf("got\n%s\nwant\n%s", got, c.after)
			}
		})
	}
}

func TestDeleteValueWritesWhatGeminiCLIWrites(t *testing.T) {
	cases := []struct {
		name, before, after string
		found               bool
	}{
		{"with comments", "{\n  // c1\n  \"x\": 1, /* c2 */\n  \"mcpServers\": {\n    \"q\": {\n      \"command\": \"z\"\n    },\n    \"a\": {\n      \"command\": \"cmd\",\n      \"args\": []\n    }\n  }\n}",
			"{\n  // c1\n  \"x\": 1, /* c2 */\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"cmd\",\n      \"args\": []\n    }\n  }\n}", true},
		{"the last one", "{\n  \"mcpServers\": {\n    \"q\": {\n      \"command\": \"z\"\n    }\n  }\n}",
			"{\n  \"mcpServers\": {}\n}", true},
		{"after another", "{\"mcpServers\": {\"a\": {}, // keep\n \"q\": {\"command\": \"z\"}}}",
			"{\"mcpServers\": {\"a\": {} // keep\n}}", true},
		{"the last of two, with a comment elsewhere", "{\n  // c\n  \"mcpServers\": {\n    // s\n    \"a\": {},\n    \"q\": {}\n  }\n}",
			"{\n  // c\n  \"mcpServers\": {\n    // s\n    \"a\": {}\n  }\n}", true},
		{"not there", "{\"mcpServers\": {}}", "{\"mcpServers\": {}}", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(c.before), 0o600); err != nil {
				t.Fatal(err)
			}
			found, err := DeleteValue(t.Context(), path, []string{"mcpServers", "q"})
			if err != nil || found != c.found {
				t.Fatalf("found %v, %v; want %v", found, err, c.found)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.after {
				t.Errorf("got\n%s\nwant\n%s", got, c.after)
			}
		})
	}
}

func TestSetValueLeavesABadFileAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	const bad = "{\"mcpServers\": [1,"
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetValue(t.Context(), path, []string{"mcpServers", "a"}, map[string]string{}); err == nil {
		t.Fatal("no error for a file that is not JSON")
	}
	if got, _ := os.ReadFile(path); string(got) != bad {
		t.Errorf("the file changed: %s", got)
	}
}

// A name JSON cannot hold (invalid UTF-8) is refused: written, it would
// be U+FFFD, another name, and the value would be lost under it.
func TestSetValueRefusesANameNotUTF8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	err := SetValue(t.Context(), path, []string{"mcpServers", "bad\xe8"}, map[string]any{"command": "x"})
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("err = %v, want the name refused", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file was written: %v", err)
	}
}

// A key written several times in one object reads as its last: deleting
// it deletes every one, so none of the earlier ones is read after; a
// file holding it past the bound is refused and left as it was (found
// by FuzzSettingsJSONC).
func TestDeleteValueDeletesEveryDuplicate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	src := `{"a": 1, "mcpServers": {"x": {"command": "old"}, "y": {}, "x": {"command": "new"}}}`
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := DeleteValue(t.Context(), path, []string{"mcpServers", "x"}); err != nil || !found {
		t.Fatalf("DeleteValue: %v, %v", found, err)
	}
	if _, ok, err := ReadValue(path, []string{"mcpServers", "x"}); ok || err != nil {
		data, _ := os.ReadFile(path)
		t.Errorf("after deleting mcpServers.x it is still there (%v):\n%s", err, data)
	}

	many := `{"k": 0` + strings.Repeat(`, "k": 0`, maxDuplicates+1) + `}`
	if err := os.WriteFile(path, []byte(many), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := DeleteValue(t.Context(), path, []string{"k"}); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("deleting a key written %d times: %v", maxDuplicates+2, err)
	}
	if data, _ := os.ReadFile(path); string(data) != many {
		t.Errorf("a refused delete changed the file:\n%s", data)
	}
}

// A member set in an object that holds only comments goes after them,
// and deleting an object's only member leaves the comments beside it:
// the text between the braces was replaced whole, comments and all. A
// file of only comments keeps them, the object after them (before a
// comment left open, which would swallow it).
func TestEditsKeepCommentsInAnObjectOfNoMembers(t *testing.T) {
	for _, tc := range []struct {
		name, before, after string
		keys                []string
		set                 bool
	}{
		{"set in an object of a line comment", "{\n  // my servers\n  \"mcpServers\": {\n    // none yet\n  }\n}",
			"{\n  // my servers\n  \"mcpServers\": {\n    // none yet\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}", []string{"mcpServers", "a"}, true},
		{"set in a file of a block comment", "{ /* nothing */ }",
			"{ /* nothing */\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}", []string{"mcpServers", "a"}, true},
		{"set in an empty object, no comment", "{\n  // c\n  \"mcpServers\": {  }\n}",
			"{\n  // c\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}", []string{"mcpServers", "a"}, true},
		{"set in a file of only a comment", "// my settings\n",
			"// my settings\n{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}", []string{"mcpServers", "a"}, true},
		{"set in a file ending inside a comment (found by FuzzSettingsJSONC)", "/* open",
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n/* open", []string{"mcpServers", "a"}, true},
		{"delete the only member", "{\n  // c\n  \"mcpServers\": {\n    // keep me\n    \"a\": {} /* and me */\n  }\n}",
			"{\n  // c\n  \"mcpServers\": {\n    // keep me\n /* and me */\n  }\n}", []string{"mcpServers", "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.set {
				err = SetValue(t.Context(), path, tc.keys, map[string]string{"command": "x"})
			} else {
				_, err = DeleteValue(t.Context(), path, tc.keys)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.after {
				t.Errorf("got\n%s\nwant\n%s", got, tc.after)
			}
		})
	}
}
