package settings

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestLoadListsEachKeyItDoesNotRead(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	user := writeSettings(t, home, `{
		"$schema": "https://example.com/schema.json",
		"general": {"vimMode": true, "defaultApprovalMode": "auto_edit", "preferredEditor": "vim", "defaultAproval": "yolo"},
		"modle": {"name": "gemini-2.5-pro"},
		"ui": {"theme": "GitHub", "footer": {"hideCWD": true}},
		"model": {"name": "gemini-2.5-flash", "thinkingBudget": 0},
		"telemetry": {"traces": false},
		"colour": "blue",
		"tools": {"sandboxAllowedPaths": ["/x"], "core": ["read_file"], "shel": {}},
		"mcpServers": {"s": {"command": "srv", "description": "a server", "tpc": "x"}},
	}`)
	project := writeSettings(t, root, `{"ui": {"theme": "Dracula"}, "advanced": {"dnsResolutionOrder": "ipv4first"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	want := []Unread{
		{File: user, Key: "colour", Unknown: true},
		{File: user, Key: "general.defaultAproval", Unknown: true, Meant: "general.defaultApprovalMode"},
		{File: user, Key: "general.preferredEditor"},
		{File: user, Key: "general.vimMode"},
		{File: user, Key: "mcpServers.s.description"},
		{File: user, Key: "mcpServers.s.tpc", Unknown: true, Meant: "mcpServers.s.tcp"},
		{File: user, Key: "modle", Unknown: true, Meant: "model"},
		{File: user, Key: "telemetry.traces"},
		{File: user, Key: "tools.shel", Unknown: true, Meant: "tools.shell"},
		{File: user, Key: "ui.footer.hideCWD"},
		{File: user, Key: "ui.theme"},
		{File: project, Key: "advanced.dnsResolutionOrder"},
		{File: project, Key: "ui.theme"},
	}
	if got := s.UnreadKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("UnreadKeys:\n got %+v\nwant %+v", got, want)
	}
	if s.Model.Name != "gemini-2.5-flash" || s.General.DefaultApprovalMode != "auto_edit" {
		t.Errorf("the keys that are read were lost: %+v", s)
	}
	// An editor's options go over the files; what the files held that is
	// not read stays listed.
	over, err := s.With(map[string]any{"model": "m"})
	if err != nil || len(over.UnreadKeys()) != len(want) {
		t.Errorf("With: %v, %d unread keys, want %d", err, len(over.UnreadKeys()), len(want))
	}
}

func TestUntrustedFolderKeysAreNotListed(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, root, `{"ui": {"theme": "Dracula"}}`)
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": "false"}), []string{root})
	if got := s.UnreadKeys(); len(got) != 0 {
		t.Errorf("a file not read listed keys: %+v", got)
	}
}

// TestCatalogueCoversTheDocs checks the catalogue against Gemini CLI
// 0.61's reference/configuration.md (a copy in testdata): every key it
// documents is in the catalogue, so none is called unknown.
func TestCatalogueCoversTheDocs(t *testing.T) {
	keys, fields := documentedKeys(t, "testdata/gemini-cli-0.61-configuration.md")
	if len(keys) < 200 || len(fields) < 10 {
		t.Fatalf("read %d keys and %d MCP server fields from the docs; the parser is broken", len(keys), len(fields))
	}
	c := newCatalogue()
	for _, key := range keys {
		if _, ok := c.keys[key]; !ok {
			t.Errorf("the docs' %s is not in the catalogue", key)
		}
	}
	for _, f := range fields {
		if _, ok := c.mcp[f]; !ok {
			t.Errorf("the docs' mcpServers field %s is not in the catalogue", f)
		}
	}
}

// documentedKeys reads the settings keys of the docs' "Available settings"
// part: each "- **`key`**" entry (mcpServers.<SERVER_NAME> giving its
// fields, "  - `field`"), and each "**`property`**" of telemetry's list.
func documentedKeys(t *testing.T, path string) (keys, mcpFields []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entry := regexp.MustCompile("^- \\*\\*`([^`]+)`\\*\\*")
	field := regexp.MustCompile("^  - `([A-Za-z]+)` \\(")
	property := regexp.MustCompile("^  - \\*\\*`([A-Za-z]+)`\\*\\*")
	section, inSettings := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### Available settings"):
			inSettings = true
		case strings.HasPrefix(line, "## "):
			inSettings = false
		case strings.HasPrefix(line, "#### "):
			section = strings.Trim(strings.TrimPrefix(line, "#### "), "`")
		}
		if m := entry.FindStringSubmatch(line); m != nil && (inSettings || strings.HasPrefix(m[1], "security.")) {
			if m[1] != "mcpServers.<SERVER_NAME>" {
				keys = append(keys, m[1])
			}
		}
		if m := field.FindStringSubmatch(line); m != nil && inSettings && section == "mcpServers" {
			mcpFields = append(mcpFields, m[1])
		}
		if m := property.FindStringSubmatch(line); m != nil && inSettings && section == "telemetry" {
			keys = append(keys, "telemetry."+m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys, mcpFields
}

// The keys of issue 21's parts are named as they are read: what a part
// left out (the hooks' notifications, extensions.disabled) is named,
// what it reads (policyPaths, the BeforeModel and AfterModel hooks among
// them) is not.
func TestUnreadKeysOfTheInstalledWorld(t *testing.T) {
	home := t.TempDir()
	user := writeSettings(t, home, `{
		"policyPaths": ["/p"],
		"hooks": {"BeforeTool": [], "BeforeModel": [], "AfterModel": []},
		"hooksConfig": {"enabled": true, "notifications": true},
		"extensions": {"disabled": ["x"]},
		"skills": {"disabled": ["s"]},
		"security": {"allowedExtensions": ["a"], "blockGitExtensions": true},
		"mcpServers": {"s": {"url": "http://127.0.0.1:1", "type": "sse", "oauth": {"enabled": true}}}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range s.UnreadKeys() {
		if u.File != user || u.Unknown {
			t.Errorf("unexpected %+v", u)
		}
		got = append(got, u.Key)
	}
	want := []string{"extensions.disabled", "hooksConfig.notifications"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnreadKeys = %q, want %q", got, want)
	}
}

// policyPaths is read from any file; adminPolicyPaths, which puts rules in
// the administrator's tier, only from the system settings file: anywhere
// else it is refused, by name.
func TestPolicyPaths(t *testing.T) {
	home := t.TempDir()
	user := writeSettings(t, home, `{"policyPaths": ["/mine"], "adminPolicyPaths": ["/not-admin"]}`)
	system := filepath.Join(t.TempDir(), "system.json")
	if err := os.WriteFile(system, []byte(`{"adminPolicyPaths": ["/admin"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": system}), nil)
	if err == nil || !strings.Contains(err.Error(), user) || !strings.Contains(err.Error(), "adminPolicyPaths is read only from the system settings file") {
		t.Errorf("the user's adminPolicyPaths was not refused: %v", err)
	}
	if !reflect.DeepEqual(s.PolicyPaths, []string{"/mine"}) || !reflect.DeepEqual(s.AdminPolicyPaths, []string{"/admin"}) {
		t.Errorf("policyPaths %q, adminPolicyPaths %q", s.PolicyPaths, s.AdminPolicyPaths)
	}
}
