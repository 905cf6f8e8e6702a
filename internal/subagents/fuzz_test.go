package subagents

import (
	"errors"
	"strconv"
	"testing"
	"unicode/utf8"
)

// FuzzParseMarkdown: whatever an agent file holds, it is a *LoadError
// naming the file or definitions that pass the schema: a slug for a
// name, a description, a positive turn limit and time-out (never one
// that overflowed), tools that are tool names; and a description
// written quoted reads back as itself.
//
//	go test -run '^$' -fuzz FuzzParseMarkdown ./internal/subagents/
func FuzzParseMarkdown(f *testing.F) {
	for _, s := range []string{
		"---\nname: my-agent\ndescription: Checks things.\ndisplay_name: Mine\ntools:\n  - read_file\n  - mcp_srv_*\nmodel: gemini-2.5-flash\ntemperature: 0.2\nmax_turns: 7\ntimeout_mins: 3\n---\n\n  You check things.\n",
		"---\nname: plain\ndescription: d\n---\nbody",
		"---\nname: none\ndescription: d\ntools: []\n---\n",
		"---\nkind: remote\nname: r\nagent_card_url: https://x.example/card.json\nauth:\n  type: http\n  scheme: Bearer\n  token: tok\n---\n",
		"---\nname: j\ndescription: inline\nagent_card_json: '{\"name\": \"j\"}'\nauth: {type: apiKey, key: k}\n---\n",
		"---\n- name: one\n  agent_card_url: http://a/card\n- name: two\n  agent_card_json: '{}'\n  auth:\n    type: google-credentials\n    scopes: [s1]\n---\n",
		"---\nname: a\ndescription: d\nmax_turns: 0\ntimeout_mins: 1.5\n---\n",
		"---\nname: a\ndescription: d\ntimeout_mins: 1e300\nmax_turns: 1e19\n---\n",
		"---\nname: a\nagent_card_url: http://a/b\nauth: {type: http, scheme: Basic, username: u}\n---\n",
		"---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n",
	} {
		f.Add(s, "Checks \"things\": all of them.")
	}
	f.Fuzz(func(t *testing.T, content, description string) {
		const path = "/agents/x.md"
		defs, err := ParseMarkdown(path, content)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.Path != path {
				t.Fatalf("ParseMarkdown(%q): %v, want a *LoadError naming the file", content, err)
			}
			return
		}
		for _, d := range defs {
			checkDefinition(t, content, d)
		}

		doc := "---\nname: a\ndescription: " + strconv.Quote(description) + "\n---\n"
		defs, err = ParseMarkdown(path, doc)
		if err != nil || len(defs) != 1 || defs[0].Description != description || defs[0].Name != "a" {
			if description == "" || !utf8.ValidString(description) {
				return // Required, or not text (strconv.Quote escapes the rest)
			}
			t.Fatalf("ParseMarkdown(%q) = %+v, %v", doc, defs, err)
		}
	})
}

func checkDefinition(t *testing.T, content string, d Definition) {
	t.Helper()
	if nameCheck(d.Name) != "" || d.Path == "" {
		t.Fatalf("ParseMarkdown(%q): name %q, path %q", content, d.Name, d.Path)
	}
	if d.Kind == Local {
		if d.Description == "" || d.MaxTurns <= 0 || d.Timeout <= 0 {
			t.Fatalf("ParseMarkdown(%q): description %q, max turns %d, time-out %v", content, d.Description, d.MaxTurns, d.Timeout)
		}
		for _, tool := range d.Tools {
			if validTool(tool) != "" {
				t.Fatalf("ParseMarkdown(%q): tool %q", content, tool)
			}
		}
	}
}
