package extensions

import (
	"bytes"
	"encoding/json"
	"fmt"

	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Describe is the extension as `gemini extensions list` shows it (its
// toOutputString): ✓ or ✗ for the workspace, then its id, the hash of
// its name, where it is, its source, its enablement for the user and
// the workspace, and what it contributes.
func (m Manager) Describe(ext Extension) string {
	var b strings.Builder
	status := "✗"
	if ext.Enabled {
		status = "✓"
	}
	rec, _ := readRecord(ext.InstallDir)
	fmt.Fprintf(&b, "%s %s (%s)", status, ext.Name, ext.Version)
	fmt.Fprintf(&b, "\n ID: %s", m.id(ext))
	fmt.Fprintf(&b, "\n name: %s", hash(ext.Name))
	fmt.Fprintf(&b, "\n Path: %s", ext.Path)
	if ext.Install.Type != "" || ext.Install.Source != "" {
		fmt.Fprintf(&b, "\n Source: %s (Type: %s)", rec.Source, rec.Type)
		if rec.Ref != "" {
			fmt.Fprintf(&b, "\n Ref: %s", rec.Ref)
		}
		if rec.ReleaseTag != "" {
			fmt.Fprintf(&b, "\n Release tag: %s", rec.ReleaseTag)
		}
	}
	fmt.Fprintf(&b, "\n Enabled (User): %t", m.EnabledIn(ext.Name, m.Home))
	fmt.Fprintf(&b, "\n Enabled (Workspace): %t", ext.Enabled)
	if len(ext.ContextFiles) > 0 {
		b.WriteString("\n Context files:")
		for _, f := range ext.ContextFiles {
			b.WriteString("\n  " + f)
		}
	}
	raw := manifestBytes(ext.Path)
	if servers := objectKeys(raw, "mcpServers"); servers != nil {
		b.WriteString("\n MCP servers:")
		for _, k := range servers {
			b.WriteString("\n  " + k)
		}
	}
	if hasField(raw, "excludeTools") {
		b.WriteString("\n Excluded tools:")
		for _, t := range ext.ExcludeTools {
			b.WriteString("\n  " + t)
		}
	}
	if found := dirSkills(ext.SkillsDir()); len(found) > 0 {
		b.WriteString("\n Agent skills:")
		for _, s := range found {
			fmt.Fprintf(&b, "\n  %s: %s", s.Name, s.Description)
		}
	}
	if len(ext.Settings) > 0 {
		b.WriteString("\n Settings:")
		values, _ := readSettings(ext.InstallDir)
		for _, s := range ext.Settings {
			value, scope := "[not set]", ""
			if v, ok := values[s.EnvVar]; ok {
				scope = "(User - " + filepath.Join(ext.InstallDir, SettingsFile) + ")"
				switch {
				case v == "":
					value = "[not set]"
				case s.Sensitive:
					value = "***"
				default:
					value = v
				}
			}
			fmt.Fprintf(&b, "\n  %s: %s %s", s.Name, value, scope)
		}
	}
	return b.String()
}

// id is the extension's id from its full install record.
func (m Manager) id(ext Extension) string {
	rec, err := readRecord(ext.InstallDir)
	if err != nil {
		return ID(ext.Name, nil)
	}
	return ID(ext.Name, &rec)
}

// Listed is an extension as `gemini extensions list -o json` prints it:
// the fields of Gemini CLI's that gemini-ls knows.
type Listed struct {
	Name             string          `json:"name"`
	Version          string          `json:"version"`
	Path             string          `json:"path"`
	ContextFiles     []string        `json:"contextFiles"`
	InstallMetadata  *Record         `json:"installMetadata,omitempty"`
	MCPServers       json.RawMessage `json:"mcpServers,omitempty"`
	ExcludeTools     []string        `json:"excludeTools,omitempty"`
	IsActive         bool            `json:"isActive"`
	ID               string          `json:"id"`
	Settings         []Setting       `json:"settings,omitempty"`
	ResolvedSettings []resolved      `json:"resolvedSettings"`
	Skills           []listedSkill   `json:"skills"`
	Agents           []struct{}      `json:"agents"`
}

type resolved struct {
	Name      string `json:"name"`
	EnvVar    string `json:"envVar"`
	Value     string `json:"value,omitempty"`
	Sensitive bool   `json:"sensitive"`
	Scope     string `json:"scope,omitempty"`
	Source    string `json:"source,omitempty"`
}

type listedSkill struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	Location      string `json:"location"`
	Body          string `json:"body"`
	ExtensionName string `json:"extensionName"`
}

// JSON is ext as `list -o json` lists it.
func (m Manager) JSON(ext Extension) Listed {
	l := Listed{
		Name: ext.Name, Version: ext.Version, Path: ext.Path,
		ContextFiles: ext.ContextFiles, ExcludeTools: ext.ExcludeTools,
		IsActive: ext.Enabled, ID: m.id(ext), Settings: ext.Settings,
		ResolvedSettings: []resolved{}, Skills: []listedSkill{}, Agents: []struct{}{},
	}
	if l.ContextFiles == nil {
		l.ContextFiles = []string{}
	}
	if rec, err := readRecord(ext.InstallDir); err == nil {
		l.InstallMetadata = &rec
	}
	if len(ext.MCPServers) > 0 {
		var servers map[string]map[string]any
		if data, err := json.Marshal(ext.MCPServers); err == nil && json.Unmarshal(data, &servers) == nil {
			l.MCPServers, _ = json.Marshal(servers)
		}
	}
	values, _ := readSettings(ext.InstallDir)
	for _, s := range ext.Settings {
		r := resolved{Name: s.Name, EnvVar: s.EnvVar, Sensitive: s.Sensitive}
		if v, ok := values[s.EnvVar]; ok {
			r.Value, r.Scope, r.Source = v, "user", filepath.Join(ext.InstallDir, SettingsFile)
		}
		l.ResolvedSettings = append(l.ResolvedSettings, r)
	}
	for _, s := range dirSkills(ext.SkillsDir()) {
		l.Skills = append(l.Skills, listedSkill{s.Name, s.Description, s.Location, s.Body, ext.Name})
	}
	return l
}

// manifestBytes is dir's manifest as written; nil when unreadable.
func manifestBytes(dir string) []byte {
	data, err := safefile.Read(filepath.Join(dir, ManifestFile), maxFileSize)
	if err != nil {
		return nil
	}
	return data
}

// hasField reports whether the manifest data has field, at its top.
func hasField(data []byte, field string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return false
	}
	v, ok := obj[field]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// objectKeys are the keys of the object at field of the manifest data,
// in the order they are written (as JavaScript keeps them); nil when
// there is no such object.
func objectKeys(data []byte, field string) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	v, ok := obj[field]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	keys := []string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, fmt.Sprint(t))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
