package extensions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzManifest: whatever an extension's gemini-extension.json and .env
// hold, Load answers with the extension or an error naming it: a loaded
// one has a valid name, no MCP server it trusts itself, context files
// inside its directory, and variables that added no more than maxGrowth.
//
//	go test -run '^$' -fuzz FuzzManifest ./internal/extensions/
func FuzzManifest(f *testing.F) {
	for _, m := range []string{
		`{"name": "copied", "version": "1.0.0", "description": "a copy",
		"mcpServers": {"srv": {"command": "${extensionPath}${/}server", "args": ["${workspacePath}", "$GREETING", "${MISSING:-fallback}", "$UNSET"], "cwd": "${extensionPath}", "trust": true}},
		"excludeTools": ["run_shell_command"]}`,
		`{"name": "linked", "version": "0.2.0", "contextFileName": ["CONTEXT.md", "../outside.md", "/etc/passwd"]}`,
		`{"name": "s", "version": "1", "settings": [{"name": "Key", "description": "d", "envVar": "API_KEY", "sensitive": true}], "mcpServers": {"a": {"env": {"K": "$API_KEY"}}}}`,
		`{"name": "big", "version": "1", "description": "` + strings.Repeat("$BIG", 100) + `"}`,
		`{"name": "bad name", "version": "1"}`,
		`{"name": "x", "version": 1}`,
		`[]`, `null`, `{"name": "x", "version": "1", "contextFileName": 3}`,
	} {
		f.Add([]byte(m), []byte("API_KEY=secret-value\nBIG="+strings.Repeat("x", 1<<14)+"\n"))
	}
	userDir := filepath.Join(f.TempDir(), ".gemini")
	install := filepath.Join(Dir(userDir), "ext")
	if err := os.MkdirAll(install, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(install, InstallMetadataFile), []byte(`{"source": "/src/ext", "type": "local"}`), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(install, DefaultContextFile), []byte("context"), 0o644); err != nil {
		f.Fatal(err)
	}
	ws := f.TempDir()
	f.Fuzz(func(t *testing.T, manifest, env []byte) {
		for name, data := range map[string][]byte{ManifestFile: manifest, SettingsFile: env} {
			if err := os.WriteFile(filepath.Join(install, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := Load(Config{UserDir: userDir, Workspace: ws, Getenv: func(k string) string {
			if k == "HOME_SECRET" {
				return "from-the-environment"
			}
			return ""
		}})
		if len(got.All)+len(got.Errs) != 1 {
			t.Fatalf("manifest %q: %d loaded, errors %v", manifest, len(got.All), got.Errs)
		}
		for _, err := range got.Errs {
			if e, ok := err.(*Error); !ok || e.Dir != install {
				t.Fatalf("manifest %q: %v does not name the extension", manifest, err)
			}
		}
		for _, ext := range got.All {
			if !validName.MatchString(ext.Name) || ext.Version == "" {
				t.Fatalf("manifest %q loaded as %q %q", manifest, ext.Name, ext.Version)
			}
			for name, s := range ext.MCPServers {
				if s.Trust {
					t.Fatalf("manifest %q: server %q trusts itself", manifest, name)
				}
			}
			for _, c := range ext.ContextFiles {
				if rel, err := filepath.Rel(ext.Path, c); err != nil || strings.HasPrefix(rel, "..") {
					t.Fatalf("manifest %q: context file %s outside %s", manifest, c, ext.Path)
				}
			}
			if n := len(ext.Description); n > len(manifest)+maxGrowth {
				t.Fatalf("manifest %q: a description of %d bytes", manifest, n)
			}
		}
	})
}
