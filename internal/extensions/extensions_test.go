package extensions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// home is a user's Gemini directory with its extensions directory.
func home(t *testing.T) (userDir, extDir string) {
	userDir = filepath.Join(t.TempDir(), ".gemini")
	return userDir, Dir(userDir)
}

func names(exts []Extension) []string {
	var out []string
	for _, e := range exts {
		out = append(out, e.Name)
	}
	return out
}

func TestLoadCopiedAndLinked(t *testing.T) {
	userDir, extDir := home(t)
	ws := t.TempDir()
	write(t, filepath.Join(extDir, "copied", ManifestFile), `{
		"name": "copied", "version": "1.0.0", "description": "a copy",
		"mcpServers": {"srv": {"command": "${extensionPath}${/}server", "args": ["${workspacePath}", "$GREETING", "${MISSING:-fallback}", "$UNSET"], "cwd": "${extensionPath}", "trust": true}},
		"excludeTools": ["run_shell_command"]
	}`)
	write(t, filepath.Join(extDir, "copied", InstallMetadataFile), `{"source": "/src/copied", "type": "local"}`)
	write(t, filepath.Join(extDir, "copied", DefaultContextFile), "copied context")

	src := t.TempDir() // the developer's directory a link points at
	write(t, filepath.Join(src, ManifestFile), `{"name": "linked", "version": "0.2.0", "contextFileName": ["CONTEXT.md", "ABSENT.md"]}`)
	write(t, filepath.Join(src, "CONTEXT.md"), "linked context")
	write(t, filepath.Join(extDir, "linked", InstallMetadataFile), `{"source": `+strconv.Quote(src)+`, "type": "link"}`)

	got := Load(Config{UserDir: userDir, Workspace: ws, Getenv: func(k string) string {
		if k == "GREETING" {
			return "hello"
		}
		return ""
	}})
	if len(got.Errs) != 0 {
		t.Fatalf("errors: %v", got.Errs)
	}
	if want := []string{"copied", "linked"}; !slices.Equal(names(got.Active()), want) {
		t.Fatalf("active = %v, want %v", names(got.Active()), want)
	}
	copied, linked := got.All[0], got.All[1]
	path := filepath.Join(extDir, "copied")
	srv := copied.MCPServers["srv"]
	if srv.Command != filepath.Join(path, "server") || srv.Cwd != path {
		t.Errorf("server = %+v: ${extensionPath} and ${/} not replaced", srv)
	}
	if want := []string{ws, "hello", "fallback", "$UNSET"}; !slices.Equal(srv.Args, want) {
		t.Errorf("args = %q, want %q", srv.Args, want)
	}
	if copied.Redacted["hello"] != "GREETING" {
		t.Errorf("Redacted = %v, want the value $GREETING gave", copied.Redacted)
	}
	if srv.Trust {
		t.Error("an extension's server kept its trust")
	}
	if !slices.Equal(copied.ExcludeTools, []string{"run_shell_command"}) {
		t.Errorf("excludeTools = %v", copied.ExcludeTools)
	}
	if want := []string{filepath.Join(path, DefaultContextFile)}; !slices.Equal(copied.ContextFiles, want) {
		t.Errorf("copied context files = %v, want %v", copied.ContextFiles, want)
	}
	if linked.Path != src || linked.InstallDir != filepath.Join(extDir, "linked") {
		t.Errorf("linked path = %s (installed in %s), want %s", linked.Path, linked.InstallDir, src)
	}
	if want := []string{filepath.Join(src, "CONTEXT.md")}; !slices.Equal(linked.ContextFiles, want) {
		t.Errorf("linked context files = %v, want %v", linked.ContextFiles, want)
	}
	if linked.CommandsDir() != filepath.Join(src, "commands") || linked.HooksFile() != filepath.Join(src, "hooks", "hooks.json") ||
		linked.SkillsDir() != filepath.Join(src, "skills") || linked.PoliciesDir() != filepath.Join(src, "policies") {
		t.Error("a linked extension's directories are not in its source")
	}
	if got := linked.Variables.Hydrate("${extensionPath}/x ${other}"); got != src+"/x ${other}" {
		t.Errorf("Hydrate = %q", got)
	}
}

func TestLoadBrokenNamedOthersKept(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "good", ManifestFile), `{"name": "good", "version": "1"}`)
	write(t, filepath.Join(extDir, "bad-json", ManifestFile), `{"name": "bad-json",`)
	write(t, filepath.Join(extDir, "no-version", ManifestFile), `{"name": "no-version"}`)
	write(t, filepath.Join(extDir, "bad_name", ManifestFile), `{"name": "bad_name", "version": "1"}`)
	write(t, filepath.Join(extDir, "escape", ManifestFile), `{"name": "escape", "version": "1", "contextFileName": "../../secret.md"}`)
	write(t, filepath.Join(extDir, "twin", ManifestFile), `{"name": "good", "version": "2"}`)
	write(t, filepath.Join(extDir, "empty", "README"), "no manifest")
	write(t, filepath.Join(extDir, "dangling", InstallMetadataFile), `{"source": `+strconv.Quote(filepath.Join(t.TempDir(), "nowhere"))+`, "type": "link"}`)

	got := Load(Config{UserDir: userDir, Workspace: t.TempDir()})
	if want := []string{"good"}; !slices.Equal(names(got.All), want) {
		t.Fatalf("loaded %v, want %v", names(got.All), want)
	}
	wantBroken := map[string]string{
		"bad-json":   "not valid JSON",
		"no-version": `missing "version"`,
		"bad_name":   "invalid extension name",
		"escape":     "must be within the extension directory",
		"twin":       "already loaded",
		"empty":      "no " + ManifestFile,
		"dangling":   "no " + ManifestFile,
	}
	if len(got.Errs) != len(wantBroken) {
		t.Fatalf("errors = %v, want one for each of %d", got.Errs, len(wantBroken))
	}
	for _, err := range got.Errs {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%v is not an *Error", err)
		}
		if want, ok := wantBroken[e.Name]; !ok || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "extension "+e.Name) {
			t.Errorf("%s: %v, want it named and saying %q", e.Name, err, want)
		}
	}
}

func TestEnablement(t *testing.T) {
	userDir, extDir := home(t)
	for _, n := range []string{"everywhere", "off-here", "off-below", "on-again", "off-elsewhere"} {
		write(t, filepath.Join(extDir, n, ManifestFile), `{"name": "`+n+`", "version": "1"}`)
	}
	ws := filepath.Join(t.TempDir(), "proj")
	write(t, filepath.Join(extDir, EnablementFile), `{
		"off-here": {"overrides": [`+strconv.Quote("!"+withSlashes(ws))+`]},
		"off-below": {"overrides": [`+strconv.Quote("!"+withSlashes(filepath.Dir(ws))+"*")+`]},
		"on-again": {"overrides": ["!/*", `+strconv.Quote(withSlashes(ws))+`]},
		"off-elsewhere": {"overrides": ["!/somewhere/else/*"]}
	}`)
	got := Load(Config{UserDir: userDir, Workspace: ws})
	if len(got.Errs) != 0 {
		t.Fatal(got.Errs)
	}
	if want := []string{"everywhere", "off-elsewhere", "on-again"}; !slices.Equal(names(got.Active()), want) {
		t.Errorf("active = %v, want %v", names(got.Active()), want)
	}
	if len(got.All) != 5 {
		t.Errorf("all = %v: a disabled extension must still be listed", names(got.All))
	}
}

func TestEnablementUnreadableEnablesAll(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "one", ManifestFile), `{"name": "one", "version": "1"}`)
	write(t, filepath.Join(extDir, EnablementFile), `{not json`)
	got := Load(Config{UserDir: userDir, Workspace: t.TempDir()})
	if len(got.Active()) != 1 || len(got.Errs) != 1 || !strings.Contains(got.Errs[0].Error(), EnablementFile) {
		t.Errorf("active %v, errors %v", names(got.Active()), got.Errs)
	}
}

func TestSettingsFromEnvFile(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "api", ManifestFile), `{"name": "api", "version": "1",
		"settings": [{"name": "API Key", "envVar": "API_KEY"}, {"name": "Host", "envVar": "API_HOST"}],
		"mcpServers": {"s": {"command": "x", "env": {"KEY": "$API_KEY"}}}}`)
	write(t, filepath.Join(extDir, "api", SettingsFile), "API_KEY=from-env-file\n")
	got := Load(Config{UserDir: userDir, Workspace: t.TempDir(), Getenv: func(string) string { return "from-process" }})
	if len(got.All) != 1 {
		t.Fatal(got.Errs)
	}
	e := got.All[0]
	if v := e.MCPServers["s"].Env["KEY"]; v != "from-env-file" {
		t.Errorf("KEY = %q, want the extension's .env value first", v)
	}
	if v, ok := e.MCPServers["s"].Env["API_KEY"]; v != "from-env-file" || !ok {
		t.Errorf("API_KEY = %q, want the setting handed to the extension's server", v)
	}
	if _, ok := e.MCPServers["s"].Env["API_HOST"]; ok {
		t.Error("a setting without a value was handed to the server")
	}
	if got := e.SettingsEnv; len(got) != 1 || got["API_KEY"] != "from-env-file" {
		t.Errorf("SettingsEnv = %v", got)
	}
	if got := e.Variables.Hydrate("${API_KEY} ${extensionPath}"); got != "from-env-file "+e.Path {
		t.Errorf("Hydrate = %q, want the .env value and the path", got)
	}
	if !e.Settings[0].Set || e.Settings[1].Set {
		t.Errorf("settings = %+v", e.Settings)
	}
}

func TestNoExtensionsDirectory(t *testing.T) {
	userDir, _ := home(t)
	if got := Load(Config{UserDir: userDir}); len(got.All)+len(got.Errs) != 0 {
		t.Errorf("got %+v", got)
	}
	if got := Load(Config{}); len(got.All)+len(got.Errs) != 0 {
		t.Errorf("no user directory: got %+v", got)
	}
}

// security.allowedExtensions and security.blockGitExtensions leave out
// the extensions they do not allow, each named with why, as in Gemini CLI.
func TestLoadSecuritySettings(t *testing.T) {
	userDir, extDir := home(t)
	for name, meta := range map[string]string{
		"from-git":   `{"source": "https://github.com/acme/from-git", "type": "git"}`,
		"from-local": `{"source": "/opt/ext/from-local", "type": "local"}`,
		"no-meta":    "",
	} {
		write(t, filepath.Join(extDir, name, ManifestFile), `{"name": "`+name+`", "version": "1"}`)
		if meta != "" {
			write(t, filepath.Join(extDir, name, InstallMetadataFile), meta)
		}
	}
	tests := []struct {
		name        string
		cfg         Config
		loaded      []string
		errsContain []string
	}{
		{"none", Config{}, []string{"from-git", "from-local", "no-meta"}, nil},
		{"block git", Config{BlockGit: true}, []string{"from-local", "no-meta"}, []string{"blocked by security.blockGitExtensions"}},
		{"allowed", Config{Allowed: []string{`^https://github\.com/acme/`}, BlockGit: true}, []string{"from-git"},
			[]string{"/opt/ext/from-local is not allowed by security.allowedExtensions", "security.allowedExtensions is set and its " + InstallMetadataFile + " is missing"}},
		{"bad pattern", Config{Allowed: []string{`(`}}, nil, []string{"invalid regular expression"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.UserDir = userDir
			got := Load(tt.cfg)
			if !slices.Equal(names(got.All), tt.loaded) {
				t.Errorf("loaded %v, want %v", names(got.All), tt.loaded)
			}
			if len(got.Errs)+len(got.All) != 3 {
				t.Errorf("%d loaded and %d errors, want each extension once: %v", len(got.All), len(got.Errs), got.Errs)
			}
			for _, want := range tt.errsContain {
				if !slices.ContainsFunc(got.Errs, func(err error) bool { return strings.Contains(err.Error(), want) }) {
					t.Errorf("errors %v lack %q", got.Errs, want)
				}
			}
		})
	}
}

// SetEnabled writes what `gemini extensions disable|enable` writes, and
// Load reads it back: a later rule for a directory replaces those of it
// and below it, and leaves the others and the other extensions'.
func TestSetEnabled(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "one", ManifestFile), `{"name": "one", "version": "1"}`)
	write(t, filepath.Join(extDir, EnablementFile), `{"other": {"overrides": ["!/x/*"]}, "one": {"overrides": ["!/proj/sub/*", "/elsewhere/*", "/proj/"]}}`)
	ctx := context.Background()
	if err := SetEnabled(ctx, userDir, "one", false, "/proj"); err != nil {
		t.Fatal(err)
	}
	e, err := readEnablement(extDir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e["one"].Overrides, []string{"/elsewhere/*", "!/proj/*"}; !slices.Equal(got, want) {
		t.Errorf("one's overrides = %q, want %q", got, want)
	}
	if got := e["other"].Overrides; !slices.Equal(got, []string{"!/x/*"}) {
		t.Errorf("other's overrides = %q: another extension's rules changed", got)
	}
	if got := Load(Config{UserDir: userDir, Workspace: "/proj/sub"}); len(got.Active()) != 0 {
		t.Errorf("one is still enabled below /proj")
	}
	if err := SetEnabled(ctx, userDir, "one", true, "/proj/sub"); err != nil {
		t.Fatal(err)
	}
	if got := Load(Config{UserDir: userDir, Workspace: "/proj/sub/deeper"}); len(got.Active()) != 1 {
		t.Errorf("one is not enabled again below /proj/sub")
	}
	if got := Load(Config{UserDir: userDir, Workspace: "/proj"}); len(got.Active()) != 0 {
		t.Errorf("enabling /proj/sub enabled /proj")
	}

	write(t, filepath.Join(extDir, EnablementFile), `{broken`)
	if err := SetEnabled(ctx, userDir, "one", false, "/proj"); err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Errorf("SetEnabled over a broken file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(extDir, EnablementFile)); string(b) != `{broken` {
		t.Errorf("the broken file was overwritten: %q", b)
	}
}

// Variables cannot make a manifest grow without bound: the extension is
// reported instead.
func TestLoadBoundsExpansion(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "big", ManifestFile), `{"name": "big", "version": "1", "description": "`+strings.Repeat("$BIG", 100)+`"}`)
	big := strings.Repeat("x", 64<<10)
	got := Load(Config{UserDir: userDir, Getenv: func(string) string { return big }})
	if len(got.All) != 0 || len(got.Errs) != 1 || !strings.Contains(got.Errs[0].Error(), "expanding its variables") {
		t.Errorf("loaded %v, errors %v", names(got.All), got.Errs)
	}
}

// An extension's hooks/hooks.json gives its hooks, with its variables and
// settings filled in, as Gemini CLI's loadExtensionHooks does; none is
// no hooks, and a broken file is named.
func TestExtensionHooks(t *testing.T) {
	dir := t.TempDir()
	ext := Extension{Name: "audit", Path: dir, Variables: Variables{"extensionPath": dir, "/": string(filepath.Separator)},
		SettingsEnv: map[string]string{"AUDIT_LOG": "/var/log/audit"}}
	if h, err := ext.Hooks(); h != nil || err != nil {
		t.Fatalf("no hooks file: %v, %v", h, err)
	}
	write(t, ext.HooksFile(), `{"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
		{"type": "command", "command": "${extensionPath}${/}check.sh ${AUDIT_LOG}", "timeout": 5000}]}]}}`)
	h, err := ext.Hooks()
	if err != nil {
		t.Fatal(err)
	}
	defs := h["BeforeTool"]
	if len(defs) != 1 || defs[0].Matcher != "write_file" || len(defs[0].Hooks) != 1 {
		t.Fatalf("hooks = %+v", h)
	}
	if got, want := defs[0].Hooks[0].Command, filepath.Join(dir, "check.sh")+" /var/log/audit"; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
	write(t, ext.HooksFile(), `{"BeforeTool": []}`)
	if _, err := ext.Hooks(); err == nil || !strings.Contains(err.Error(), `"hooks" property must be an object`) || !strings.Contains(err.Error(), "audit") {
		t.Errorf("a file without a hooks object: %v", err)
	}
}

// SetEnabled waits for a fresh lock on the enablement file.
func TestSetEnabledWaitsForTheLock(t *testing.T) {
	userDir, extDir := home(t)
	path := filepath.Join(extDir, EnablementFile)
	write(t, path, `{"other": {"overrides": ["!/x/*"]}}`)
	locktest.Waits(t, path, func(ctx context.Context) error { return SetEnabled(ctx, userDir, "one", false, "/proj") })
	if e, err := readEnablement(extDir); err != nil || len(e["one"].Overrides) != 1 || len(e["other"].Overrides) != 1 {
		t.Errorf("after the wait: %+v, %v", e, err)
	}
}

// Uninstall removes the extension's directory and its entry in the
// enablement file, and leaves a file without one as it is, not even
// written again.
func TestUninstallDropsItsEnablement(t *testing.T) {
	userDir, extDir := home(t)
	write(t, filepath.Join(extDir, "one", ManifestFile), `{"name": "one", "version": "1"}`)
	write(t, filepath.Join(extDir, "two", ManifestFile), `{"name": "two", "version": "1"}`)
	path := filepath.Join(extDir, EnablementFile)
	write(t, path, `{"other": {"overrides": ["!/x/*"]}, "one": {"overrides": ["!/proj/*"]}}`)
	m := Manager{Config: Config{UserDir: userDir}}
	if name, err := m.Uninstall(t.Context(), "ONE"); err != nil || name != "one" {
		t.Fatalf("Uninstall = %q, %v", name, err)
	}
	if _, err := os.Stat(filepath.Join(extDir, "one")); !os.IsNotExist(err) {
		t.Errorf("one's directory is still there: %v", err)
	}
	e, err := readEnablement(extDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e["one"]; ok || !slices.Equal(e["other"].Overrides, []string{"!/x/*"}) {
		t.Errorf("the enablement file after uninstalling one: %v", e)
	}
	before, _ := os.Stat(path)
	if _, err := m.Uninstall(t.Context(), "two"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("the enablement file was written again though it had no entry for two")
	}
}
