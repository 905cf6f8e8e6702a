package extensions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// Which of a server's env variables, headers and OAuth fields Gemini CLI
// masks in the consent text.
var (
	sensitiveEnv    = lazyregexp.New(`(?i)token|secret|password|passwd|key|auth|credential|creds|private|cert`)
	sensitiveHeader = lazyregexp.New(`(?i)authorization|key|cookie|token|secret`)
	sensitiveOAuth  = lazyregexp.New(`(?i)secret|token|password`)
)

// consentText is Gemini CLI's extensionConsentString: what installing
// the extension c (from dir) will do, which the user consents to.
// previousName is the name it is installed under now (an update);
// migrating: its source changes.
func (m Manager) consentText(c config, dir, previousName string, migrating bool) string {
	name := c.m.Name
	var out []string
	switch {
	case migrating && previousName != name:
		out = append(out, fmt.Sprintf(`Migrating extension "%s" to a new repository, renaming to "%s", and installing updates.`, previousName, name))
	case migrating:
		out = append(out, fmt.Sprintf(`Migrating extension "%s" to a new repository and installing updates.`, name))
	case previousName != name:
		out = append(out, fmt.Sprintf(`Renaming extension "%s" to "%s" and installing updates.`, previousName, name))
	default:
		out = append(out, fmt.Sprintf(`Installing extension "%s".`, name))
	}
	servers, _ := c.raw["mcpServers"].(map[string]any)
	if len(servers) > 0 {
		out = append(out, "This extension will run the following MCP servers:")
		// In the manifest's order, as JavaScript keeps an object's keys.
		names := objectKeys(manifestBytes(dir), "mcpServers")
		for _, k := range sortedKeys(servers) {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
		for _, key := range names {
			s, ok := servers[key].(map[string]any)
			if !ok {
				continue
			}
			out = append(out, serverLines(key, s)...)
		}
	}
	if v, ok := c.raw["contextFileName"]; ok && v != nil && v != "" {
		out = append(out, "This extension will append info to your gemini.md context using "+jsString(v))
	}
	if v, ok := c.raw["excludeTools"]; ok && v != nil {
		out = append(out, "This extension will exclude the following core tools: "+jsString(v))
	}
	if exists(filepath.Join(dir, "hooks", "hooks.json")) {
		out = append(out, "⚠️  This extension contains Hooks which can automatically execute commands.")
	}
	found := dirSkills(filepath.Join(dir, "skills"))
	if len(found) > 0 {
		out = append(out, "\nAgent Skills:", "\nThis extension will install the following agent skills:\n")
		for _, s := range found {
			items := ""
			if entries, err := os.ReadDir(s.Dir()); err == nil {
				items = fmt.Sprintf(" (%d items in directory)", len(entries))
			}
			out = append(out, fmt.Sprintf("  * %s: %s", s.Name, s.Description), fmt.Sprintf("    (Source: %s)%s", s.Location, items), "")
		}
	}
	out = append(out, "\n"+InstallWarning)
	if len(found) > 0 {
		out = append(out, "\n"+skillsWarning)
	}
	return strings.Join(out, "\n")
}

// dirSkills are the skills of dir (dir/<name>/SKILL.md), by directory name.
func dirSkills(dir string) []skills.Skill {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []skills.Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if s, err := skills.Load(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// serverLines describe one MCP server of the consent text.
func serverLines(key string, s map[string]any) []string {
	str := func(k string) string { v, _ := s[k].(string); return v }
	command := str("command")
	kind := "remote"
	if command != "" {
		kind = "local"
	}
	source := str("httpUrl")
	if _, ok := s["httpUrl"]; !ok {
		source = command
		if args, ok := s["args"].([]any); ok {
			parts := make([]string, len(args))
			for i, a := range args {
				parts[i] = jsString(a)
			}
			source += " " + strings.Join(parts, " ")
		}
	}
	out := []string{fmt.Sprintf("  * %s (%s): %s", key, kind, source)}
	if cwd := str("cwd"); cwd != "" {
		out = append(out, "    Working directory: "+cwd)
	}
	out = append(out, masked("    Environment variables:", s["env"], sensitiveEnv)...)
	out = append(out, masked("    Headers:", s["headers"], sensitiveHeader)...)
	for _, f := range []struct{ key, label string }{{"url", "URL"}, {"tcp", "TCP"}, {"type", "Type"}} {
		if v := str(f.key); v != "" {
			out = append(out, fmt.Sprintf("    %s: %s", f.label, v))
		}
	}
	if v, ok := s["timeout"]; ok && v != nil {
		out = append(out, "    Timeout: "+jsString(v))
	}
	if v, ok := s["trust"]; ok && v != nil {
		out = append(out, "    Trust: "+jsString(v))
	}
	if v := str("description"); v != "" {
		out = append(out, "    Description: "+v)
	}
	for _, f := range []struct{ key, label string }{{"includeTools", "Include tools"}, {"excludeTools", "Exclude tools"}} {
		if list, ok := s[f.key].([]any); ok && len(list) > 0 {
			parts := make([]string, len(list))
			for i, v := range list {
				parts[i] = jsString(v)
			}
			out = append(out, fmt.Sprintf("    %s: %s", f.label, strings.Join(parts, ", ")))
		}
	}
	for _, f := range []struct{ key, label string }{{"authProviderType", "Auth Provider Type"}, {"targetAudience", "Target Audience"}, {"targetServiceAccount", "Target Service Account"}} {
		if v := str(f.key); v != "" {
			out = append(out, fmt.Sprintf("    %s: %s", f.label, v))
		}
	}
	if oauth, ok := s["oauth"].(map[string]any); ok {
		out = append(out, "    OAuth Configuration:")
		for _, k := range sortedKeys(oauth) {
			v := jsString(oauth[k])
			if list, ok := oauth[k].([]any); ok {
				parts := make([]string, len(list))
				for i, x := range list {
					parts[i] = jsString(x)
				}
				v = strings.Join(parts, ", ")
			}
			if sensitiveOAuth.MatchString(k) && v != "" {
				v = "********"
			}
			out = append(out, fmt.Sprintf("      - %s: %s", k, v))
		}
	}
	return append(out, "    Config signature: "+serverSignature(s))
}

// masked lists a map of strings under title, sensitive keys' values hidden.
func masked(title string, v any, sensitive *lazyregexp.Regexp) []string {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return nil
	}
	out := []string{title}
	for _, k := range sortedKeys(obj) {
		val := jsString(obj[k])
		if obj[k] == nil {
			val = ""
		}
		if sensitive.MatchString(k) && val != "" {
			val = "********"
		}
		out = append(out, fmt.Sprintf("      - %s: %s", k, val))
	}
	return out
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// serverSignature is Gemini CLI's getMcpServerConfigHash: the SHA-256 of
// the server's JSON, keys sorted, without "extension".
func serverSignature(s map[string]any) string {
	copied := map[string]any{}
	for k, v := range s {
		if k != "extension" {
			copied[k] = v
		}
	}
	// encoding/json sorts the keys of every map, as the hash's replacer does.
	data, err := marshalIndent(copied)
	if err != nil {
		return ""
	}
	var compact []byte
	compact, err = compactJSON(data)
	if err != nil {
		return ""
	}
	return hash(string(compact))
}

func compactJSON(data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// jsString is a JSON value as JavaScript's String() shows it in a
// template: a list joined by commas, a string as it is.
func jsString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = jsString(x)
		}
		return strings.Join(parts, ",")
	case nil:
		return "null"
	case map[string]any:
		return "[object Object]"
	default:
		data, _ := json.Marshal(v)
		return string(data)
	}
}
