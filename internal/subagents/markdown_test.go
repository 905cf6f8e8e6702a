package subagents

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func parseOne(t *testing.T, content string) Definition {
	t.Helper()
	defs, err := ParseMarkdown("/a/x.md", content)
	if err != nil {
		t.Fatalf("ParseMarkdown: %v", err)
	}
	if len(defs) != 1 {
		t.Fatalf("got %d agents", len(defs))
	}
	return defs[0]
}

// A local agent: its fields, its body the system prompt, 0.61's query
// and input, and its defaults (model inherit, temperature 1, topP 0.95,
// 30 turns, 10 minutes).
func TestMarkdownLocalAgent(t *testing.T) {
	d := parseOne(t, "---\nname: my-agent\ndescription: Checks things.\ndisplay_name: Mine\ntools:\n  - read_file\n  - mcp_srv_*\nmodel: gemini-2.5-flash\ntemperature: 0.2\nmax_turns: 7\ntimeout_mins: 3\n---\n\n  You check things.\n")
	if d.Name != "my-agent" || d.DisplayName != "Mine" || d.Description != "Checks things." || d.Kind != Local ||
		d.SystemPrompt != "You check things." || d.Query != "${query}" || d.Input != markdownInput ||
		d.Model != "gemini-2.5-flash" || *d.Temperature != 0.2 || *d.TopP != 0.95 || d.MaxTurns != 7 || d.Timeout != 3*time.Minute ||
		strings.Join(d.Tools, ",") != "read_file,mcp_srv_*" || d.Path != "/a/x.md" {
		t.Errorf("definition = %+v", d)
	}
	d = parseOne(t, "---\nname: plain\ndescription: d\n---\nbody")
	if d.Model != Inherit || *d.Temperature != 1 || *d.TopP != 0.95 || d.MaxTurns != 30 || d.Timeout != 10*time.Minute || d.Tools != nil {
		t.Errorf("defaults = %+v", d)
	}
	if d = parseOne(t, "---\nname: none\ndescription: d\ntools: []\n---\n"); d.Tools == nil || len(d.Tools) != 0 {
		t.Errorf("tools: [] = %#v, want no tools (not all)", d.Tools)
	}
}

func TestMarkdownRemoteAgents(t *testing.T) {
	d := parseOne(t, "---\nkind: remote\nname: r\nagent_card_url: https://x.example/card.json\nauth:\n  type: http\n  scheme: Bearer\n  token: tok\n---\n")
	if d.Kind != Remote || d.CardURL != "https://x.example/card.json" || d.Description != "" || d.Auth == nil ||
		d.Auth.Type != "http" || d.Auth.Scheme != "Bearer" || d.Auth.Token != "tok" || d.Input.Name != "query" {
		t.Errorf("remote = %+v auth %+v", d, d.Auth)
	}
	// kind may be left out: the card makes it remote.
	d = parseOne(t, "---\nname: j\ndescription: inline\nagent_card_json: '{\"name\": \"j\"}'\nauth: {type: apiKey, key: k}\n---\n")
	if d.Kind != Remote || d.CardJSON != `{"name": "j"}` || d.Auth.Type != "apiKey" || d.Auth.Key != "k" {
		t.Errorf("inline card = %+v", d)
	}
	defs, err := ParseMarkdown("/a/list.md", "---\n- name: one\n  agent_card_url: http://a/card\n- name: two\n  agent_card_json: '{}'\n  auth:\n    type: google-credentials\n    scopes: [s1]\n---\n")
	if err != nil || len(defs) != 2 || defs[0].Name != "one" || defs[1].Name != "two" || defs[1].Auth.Scopes[0] != "s1" {
		t.Errorf("list = %+v, %v", defs, err)
	}
}

// Each bad file is one error naming the file and the field, worded as
// 0.61's zod messages.
func TestMarkdownErrorsNameFileAndField(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"no front matter", "just text", []string{"Missing mandatory YAML frontmatter"}},
		{"bad YAML", "---\nname: [a\n---\n", []string{"YAML frontmatter parsing failed"}},
		{"bad name", "---\nname: My Agent\ndescription: d\n---\n", []string{"name: Name must be a valid slug"}},
		{"no description", "---\nname: a\ntools: [read_file]\n---\n", []string{"(Local Agent) description: Required"}},
		{"bad tool", "---\nname: a\ndescription: d\ntools: [read_file, rm_rf]\n---\n", []string{"(Local Agent) tools.1: Invalid tool name"}},
		{"unknown key", "---\nname: a\ndescription: d\nmodel: x\ncolour: red\n---\n", []string{"(Local Agent) Unrecognized key(s) in object: 'colour'"}},
		{"max_turns", "---\nname: a\ndescription: d\nmax_turns: 0\ntimeout_mins: 1.5\n---\n", []string{"max_turns: Number must be greater than 0", "timeout_mins: Expected integer, received float"}},
		{"temperature type", "---\nname: a\ndescription: d\ntemperature: hot\n---\n", []string{"temperature: Expected number, received string"}},
		{"a date is no string", "---\nname: a\ndescription: 2024-01-01\n---\n", []string{"description: Expected string, received date"}},
		{"mcp_servers", "---\nname: a\ndescription: d\nmcp_servers:\n  s:\n    command: x\n---\n", []string{"mcp_servers: gemini-ls does not run an agent's own MCP servers"}},
		{"bad url", "---\nkind: remote\nname: a\nagent_card_url: not a url\n---\n", []string{"(Remote Agent) agent_card_url: Invalid url"}},
		{"bad card JSON", "---\nname: a\nagent_card_json: '{x'\n---\n", []string{"agent_card_json: agent_card_json must be valid JSON"}},
		{"both cards", "---\nname: a\nagent_card_url: http://a/b\nagent_card_json: '{}'\n---\n", []string{"agent_card_json: Expected undefined, received string", "agent_card_url: Expected undefined, received string"}},
		{"api key", "---\nname: a\nagent_card_url: http://a/b\nauth:\n  type: apiKey\n  key: ''\n---\n", []string{"auth.key: API key is required"}},
		{"bearer", "---\nname: a\nagent_card_url: http://a/b\nauth: {type: http, scheme: Bearer}\n---\n", []string{`auth.token: Bearer scheme requires "token"`}},
		{"basic", "---\nname: a\nagent_card_url: http://a/b\nauth: {type: http, scheme: Basic, username: u}\n---\n", []string{`auth.password: Basic authentication requires "password"`}},
		{"other scheme", "---\nname: a\nagent_card_url: http://a/b\nauth: {type: http, scheme: Digest}\n---\n", []string{`auth.value: HTTP scheme "Digest" requires "value"`}},
		{"auth type", "---\nname: a\nagent_card_url: http://a/b\nauth: {type: magic}\n---\n", []string{"auth.type: Invalid discriminator value. Expected 'apiKey' | 'http' | 'google-credentials' | 'oauth'"}},
		{"oauth url", "---\nname: a\nagent_card_url: http://a/b\nauth: {type: oauth, token_url: nope}\n---\n", []string{"auth.token_url: Invalid url"}},
		{"list item", "---\n- name: a\n- name: b\n  agent_card_url: http://x/y\n---\n", []string{"Remote Agents List", "0.agent_card_url: Required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMarkdown("/dir/bad.md", tc.content)
			var le *LoadError
			if !errors.As(err, &le) || le.Path != "/dir/bad.md" {
				t.Fatalf("err = %v, want a LoadError of /dir/bad.md", err)
			}
			if !strings.HasPrefix(err.Error(), "Failed to load agent from /dir/bad.md: ") {
				t.Errorf("err = %q", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want %q in it", err, w)
				}
			}
		})
	}
}

// A file meant as local (it has local keys only) reports only the local
// branch's issues, as 0.61's guessIntendedKind has it.
func TestMarkdownErrorsOfTheMeantKindOnly(t *testing.T) {
	_, err := ParseMarkdown("/d/a.md", "---\nname: a\nmodel: x\n---\n")
	if err == nil || strings.Contains(err.Error(), "Remote Agent") || !strings.Contains(err.Error(), "(Local Agent) description: Required") {
		t.Errorf("err = %v", err)
	}
	_, err = ParseMarkdown("/d/a.md", "---\nname: a\nauth: {type: apiKey, key: k}\n---\n")
	if err == nil || strings.Contains(err.Error(), "Local Agent") || !strings.Contains(err.Error(), "(Remote Agent) agent_card_url: Required") {
		t.Errorf("err = %v", err)
	}
}

// Limits too large for an int or a Duration are the largest, never a
// conversion wrapped round to a negative limit that ends the agent at once.
func TestMarkdownHugeLimitsStayPositive(t *testing.T) {
	d := parseOne(t, "---\nname: a\ndescription: d\ntimeout_mins: 1e300\nmax_turns: 1e19\n---\n")
	if d.MaxTurns <= 1<<30 || d.Timeout < 100*365*24*time.Hour {
		t.Errorf("max turns %d, time-out %v: want the largest", d.MaxTurns, d.Timeout)
	}
}

// The numbers of an agent's front matter are typed as js-yaml types them
// in Gemini CLI: .5, 0x10 and +0o3 are numbers.
func TestMarkdownNumbersAsJSYAML(t *testing.T) {
	d := parseOne(t, "---\nname: a\ndescription: d\ntemperature: .5\nmax_turns: 0x10\ntimeout_mins: +0o3\n---\n")
	if *d.Temperature != 0.5 || d.MaxTurns != 16 || d.Timeout != 3*time.Minute {
		t.Errorf("temperature %v, max_turns %d, timeout %v; want 0.5, 16, 3m", *d.Temperature, d.MaxTurns, d.Timeout)
	}
}
