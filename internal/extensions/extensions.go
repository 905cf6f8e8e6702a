package extensions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// The files Gemini CLI names in an extension's directory.
const (
	ManifestFile        = "gemini-extension.json"
	InstallMetadataFile = ".gemini-extension-install.json"
	SettingsFile        = ".env"
	// DefaultContextFile is the context file of a manifest that names none.
	DefaultContextFile = "GEMINI.md"
)

// maxFileSize bounds each file of an extension's that gemini-ls reads
// (its manifest, install metadata, .env, hooks) and the enablement file.
const maxFileSize = 1 << 20

// Dir is the directory extensions are installed in, for userDir as
// settings.UserDir gives it (~/.gemini); "" when it is "".
func Dir(userDir string) string {
	if userDir == "" {
		return ""
	}
	return filepath.Join(userDir, "extensions")
}

// Extension is one installed extension, as its manifest and install
// metadata describe it, its variables resolved.
type Extension struct {
	Name        string
	Version     string
	Description string
	// Path is the extension's directory: the installed copy, or for a
	// linked one the directory it links to. ${extensionPath} is Path.
	Path string
	// InstallDir is its directory in ~/.gemini/extensions.
	InstallDir string
	// Install is how it was installed ("local", "link", "git",
	// "github-release") and from where; zero when it has no
	// .gemini-extension-install.json.
	Install InstallMetadata
	// Enabled: extension-enablement.json enables it for the workspace.
	Enabled bool

	// MCPServers are its servers, by name, "trust" dropped.
	MCPServers map[string]settings.MCPServer
	// ContextFiles are its context files that exist, absolute, in Path.
	ContextFiles []string
	// ExcludeTools are the tools it keeps from the model.
	ExcludeTools []string
	// Settings are the values its user asked for on install, as its
	// manifest's "settings" declares them.
	Settings []Setting

	// Variables are what ${…} means in its files, for those who read
	// the rest of its directory (hooks/hooks.json, skills): the path
	// variables, and the values of its .env file, as Gemini CLI's
	// hydration context holds them.
	Variables Variables
	// SettingsEnv are its settings' values that are set, by envVar: the
	// environment Gemini CLI adds for its servers and its command hooks.
	SettingsEnv map[string]string
	// Redacted are the values variables gave its manifest, with their
	// variables' names, to keep out of messages (settings.Settings.Redact).
	Redacted map[string]string
}

// Setting is one of a manifest's "settings": a value the extension asks
// its user for on install, kept in its .env file.
type Setting struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	EnvVar      string `json:"envVar"`
	Sensitive   bool   `json:"sensitive"`
	// Set: a value is in the extension's .env file (a sensitive one is in
	// the system keychain, which gemini-ls does not read).
	Set bool `json:"-"`
	// Value is its value in the .env file, for a setting Set and not
	// Sensitive (a sensitive one's is kept out of what is shown).
	Value string `json:"-"`
}

// InstallMetadata is .gemini-extension-install.json.
type InstallMetadata struct {
	Source string `json:"source"`
	Type   string `json:"type"`
	Ref    string `json:"ref,omitempty"`
}

// CommandsDir is the directory of its TOML commands.
func (e Extension) CommandsDir() string { return filepath.Join(e.Path, "commands") }

// SkillsDir is the directory of its agent skills (skills/<name>/SKILL.md).
func (e Extension) SkillsDir() string { return filepath.Join(e.Path, "skills") }

// PoliciesDir is the directory of its policy engine rules (*.toml).
func (e Extension) PoliciesDir() string { return filepath.Join(e.Path, "policies") }

// HooksFile is its hooks' file; ${…} in it means what Variables say.
func (e Extension) HooksFile() string { return filepath.Join(e.Path, "hooks", "hooks.json") }

// Error is an extension that was left out, and why.
type Error struct {
	// Name is the extension's directory name in ~/.gemini/extensions,
	// which Gemini CLI expects to be its name.
	Name string
	Dir  string
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("extension %s (%s) was not loaded: %v", e.Name, e.Dir, e.Err)
}
func (e *Error) Unwrap() error { return e.Err }

// Config is where Load looks.
type Config struct {
	// UserDir is the user's Gemini directory (settings.UserDir).
	UserDir string
	// Workspace is the workspace directory (the first root): what
	// ${workspacePath} means, and where enablement is decided.
	Workspace string
	// Getenv resolves $VAR in manifests, after the extension's settings.
	Getenv func(string) string
	// Allowed (security.allowedExtensions), when not empty, are regular
	// expressions one of which an extension's install source must match;
	// else BlockGit (security.blockGitExtensions) leaves out those
	// installed from git.
	Allowed  []string
	BlockGit bool
	// Only, when not empty, are the names of the only extensions enabled,
	// their enablement file aside; ["none"] enables none (Gemini CLI's
	// -e). Names compare without case.
	Only []string
}

// Loaded is every extension installed, enabled or not.
type Loaded struct {
	// All are the extensions that loaded, by name.
	All []Extension
	// Errs are the extensions left out (each an *Error), and an
	// enablement file that could not be read.
	Errs []error
}

// Active are the enabled extensions, by name: those that contribute.
func (l Loaded) Active() []Extension {
	var out []Extension
	for _, e := range l.All {
		if e.Enabled {
			out = append(out, e)
		}
	}
	return out
}

// Load reads every extension in cfg.UserDir's extensions directory. A
// missing directory has none, and is no error.
func Load(cfg Config) Loaded {
	dir := Dir(cfg.UserDir)
	if dir == "" {
		return Loaded{}
	}
	entries, err := safefile.ReadDir(dir, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Loaded{}
	}
	if err != nil {
		return Loaded{Errs: []error{fmt.Errorf("reading the extensions in %s: %w", dir, err)}}
	}
	var out Loaded
	on, err := readEnablement(dir)
	if err != nil {
		out.Errs = append(out.Errs, err)
	}
	seen := map[string]string{} // name → the directory that has it
	for _, entry := range entries {
		installDir := filepath.Join(dir, entry.Name())
		if fi, err := os.Stat(installDir); err != nil || !fi.IsDir() {
			continue // the enablement file, or a dangling link: no extension
		}
		ext, err := load(cfg, installDir)
		if err == nil && seen[ext.Name] != "" {
			err = fmt.Errorf("an extension named %q is already loaded, from %s", ext.Name, seen[ext.Name])
		}
		if err != nil {
			out.Errs = append(out.Errs, &Error{Name: entry.Name(), Dir: installDir, Err: err})
			continue
		}
		seen[ext.Name] = installDir
		ext.Enabled = cfg.enabled(on, ext.Name)
		out.All = append(out.All, ext)
	}
	slices.SortFunc(out.All, func(a, b Extension) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// manifest is gemini-extension.json, as far as gemini-ls uses it.
type manifest struct {
	Name            string                        `json:"name"`
	Version         string                        `json:"version"`
	Description     string                        `json:"description"`
	MCPServers      map[string]settings.MCPServer `json:"mcpServers"`
	ContextFileName contextFileNames              `json:"contextFileName"`
	ExcludeTools    []string                      `json:"excludeTools"`
	Settings        []Setting                     `json:"settings"`
}

// contextFileNames is "contextFileName": one name, or a list.
type contextFileNames []string

func (c *contextFileNames) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*c = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return errors.New(`"contextFileName" must be a string or a list of strings`)
	}
	*c = many
	return nil
}

// validName is the names Gemini CLI accepts.
var validName = lazyregexp.New(`^[a-zA-Z0-9-]+$`)

// load reads the extension installed in installDir.
func load(cfg Config, installDir string) (Extension, error) {
	ext := Extension{InstallDir: installDir, Path: installDir}
	meta, err := readInstallMetadata(installDir)
	if err != nil {
		return ext, err
	}
	ext.Install = meta
	if err := cfg.permits(meta); err != nil {
		return ext, err
	}
	if meta.Type == "link" {
		if !filepath.IsAbs(meta.Source) {
			return ext, fmt.Errorf("%s links to %q, which is not an absolute path", InstallMetadataFile, meta.Source)
		}
		ext.Path = filepath.Clean(meta.Source)
	}
	ext.Variables = Variables{
		"extensionPath": ext.Path,
		"workspacePath": cfg.Workspace,
		"/":             string(filepath.Separator),
		"pathSeparator": string(filepath.Separator),
	}
	raw, err := readManifest(ext.Path)
	if err != nil {
		return ext, err
	}
	var m manifest
	if err := decode(raw, &m); err != nil {
		return ext, fmt.Errorf("reading %s: %w", filepath.Join(ext.Path, ManifestFile), err)
	}
	if err := check(m); err != nil {
		return ext, fmt.Errorf("%s: %w", filepath.Join(ext.Path, ManifestFile), err)
	}
	// The variables resolve with the settings the manifest declares.
	custom, err := readSettings(installDir)
	if err != nil {
		return ext, err
	}
	for k, v := range custom {
		if _, taken := ext.Variables[k]; !taken {
			ext.Variables[k] = v
		}
	}
	if ext.Redacted, err = resolveVariables(raw, ext.Variables, custom, cfg.Getenv); err != nil {
		return ext, fmt.Errorf("%s: %w", filepath.Join(ext.Path, ManifestFile), err)
	}
	if err := decode(raw, &m); err != nil {
		return ext, fmt.Errorf("reading %s: %w", filepath.Join(ext.Path, ManifestFile), err)
	}
	ext.Name, ext.Version, ext.Description = m.Name, m.Version, m.Description
	ext.ExcludeTools = m.ExcludeTools
	ext.Settings, ext.SettingsEnv = settingValues(m.Settings, custom)
	ext.MCPServers = map[string]settings.MCPServer{}
	for name, s := range m.MCPServers {
		s.Trust = false // an extension cannot approve its own tools
		s.Env = withSettings(s.Env, ext.SettingsEnv)
		ext.MCPServers[name] = s
	}
	ext.ContextFiles, err = contextFiles(ext.Path, m.ContextFileName)
	return ext, err
}

// resolveVariables replaces, in place, the variables of every string of
// raw, a decoded manifest: vars' ${…} first, then the environment's (the
// extension's settings, then getenv). It returns the values the
// environment gave, to keep out of messages.
func resolveVariables(raw map[string]any, vars Variables, custom map[string]string, getenv func(string) string) (given map[string]string, err error) {
	env := newResolver(custom, getenv)
	walkStrings(raw, func(s string) string { return env.resolve(vars.Hydrate(s)) })
	if env.exceeded() {
		return nil, fmt.Errorf("expanding its variables would make it more than %d KiB longer", maxGrowth>>10)
	}
	return env.given, nil
}

// settingValues are the declared settings, each marked Set when custom
// (its .env file) has a value for it, and those values by envVar.
func settingValues(declared []Setting, custom map[string]string) ([]Setting, map[string]string) {
	values := map[string]string{}
	for i, s := range declared {
		if v, ok := custom[s.EnvVar]; ok && s.EnvVar != "" {
			declared[i].Set = true
			if !s.Sensitive {
				declared[i].Value = v
			}
			values[s.EnvVar] = v
		}
	}
	return declared, values
}

// permits says why the settings do not let an extension installed as
// meta load, as Gemini CLI decides it; nil when they do.
func (cfg Config) permits(meta InstallMetadata) error {
	if len(cfg.Allowed) > 0 {
		if meta.Source == "" {
			return fmt.Errorf("security.allowedExtensions is set and its %s is missing or has no source", InstallMetadataFile)
		}
		source := meta.Source
		if real, err := filepath.EvalSymlinks(source); err == nil {
			source = real
		}
		for _, pattern := range cfg.Allowed {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return fmt.Errorf("invalid regular expression %q in security.allowedExtensions: %w", pattern, err)
			}
			if re.MatchString(source) {
				return nil
			}
		}
		return fmt.Errorf("its source %s is not allowed by security.allowedExtensions", meta.Source)
	}
	if cfg.BlockGit && (meta.Type == "git" || meta.Type == "github-release") {
		return errors.New("extensions installed from git are blocked by security.blockGitExtensions")
	}
	return nil
}

// withSettings is a server's env with the values of the extension's
// settings that are set, under their envVar, as Gemini CLI hands them to
// an extension's servers whatever their names (the user gave them to the
// extension); a variable env names itself keeps env's value.
func withSettings(env, values map[string]string) map[string]string {
	for k, v := range values {
		if _, named := env[k]; named {
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
	}
	return env
}

// readInstallMetadata reads installDir's .gemini-extension-install.json;
// none is the zero metadata (an extension copied in by hand).
func readInstallMetadata(installDir string) (InstallMetadata, error) {
	path := filepath.Join(installDir, InstallMetadataFile)
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return InstallMetadata{}, nil
	}
	if err != nil {
		return InstallMetadata{}, fmt.Errorf("reading %s: %w", path, err)
	}
	var meta InstallMetadata
	if err := jsjson.Decode(data, &meta); err != nil {
		return InstallMetadata{}, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return meta, nil
}

// readManifest reads dir's manifest as JSON.
func readManifest(dir string) (map[string]any, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("it has no %s (looked for %s)", ManifestFile, path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s is not a JSON object", path)
	}
	return raw, nil
}

// decode fills m from raw, a decoded manifest, by exact member names as
// Gemini CLI reads it.
func decode(raw map[string]any, m *manifest) error {
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	*m = manifest{}
	return jsjson.Decode(data, m)
}

// check is the manifest's required fields, as Gemini CLI checks them.
func check(m manifest) error {
	switch {
	case m.Name == "":
		return errors.New(`missing "name"`)
	case m.Version == "":
		return errors.New(`missing "version"`)
	case !validName.MatchString(m.Name):
		return fmt.Errorf("invalid extension name %q: only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed", m.Name)
	}
	return nil
}

// readSettings are the values of the extension's .env file (its settings
// of user scope, in its install directory), as Gemini CLI reads them: none
// when there is no file; one that cannot be read is an error, as it fails
// Gemini CLI's load of the extension.
func readSettings(installDir string) (map[string]string, error) {
	data, err := readSettingsFile(filepath.Join(installDir, SettingsFile))
	if err != nil {
		return nil, err
	}
	return settings.ParseDotenv(data), nil
}

// readSettingsFile is the text of the .env file at path; none when there
// is no file.
func readSettingsFile(path string) ([]byte, error) {
	data, err := safefile.Read(path, maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// contextFiles are the files names (GEMINI.md when none) in dir that
// exist; a name leading out of dir is an error, as in Gemini CLI.
func contextFiles(dir string, names []string) ([]string, error) {
	if len(names) == 0 {
		names = []string{DefaultContextFile}
	}
	var out []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("invalid context file path %q: context files must be within the extension directory", name)
		}
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			out = append(out, path)
		}
	}
	return out, nil
}

// enabled reports whether the extension named name is enabled: as Only
// says when given, else as the enablement file on says for the workspace.
func (cfg Config) enabled(on enablement, name string) bool {
	if len(cfg.Only) == 0 {
		return on.enabled(name, cfg.Workspace)
	}
	if len(cfg.Only) == 1 && strings.EqualFold(cfg.Only[0], "none") {
		return false
	}
	return slices.ContainsFunc(cfg.Only, func(n string) bool { return strings.EqualFold(n, name) })
}
