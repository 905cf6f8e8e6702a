package extensions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Install types, as .gemini-extension-install.json's "type" says them.
const (
	TypeLocal         = "local"
	TypeLink          = "link"
	TypeGit           = "git"
	TypeGitHubRelease = "github-release"
)

// InstallWarning is Gemini CLI's warning before any install.
const InstallWarning = "The extension you are about to install may have been created by a third-party developer and sourced from a public repository. Google does not vet, endorse, or guarantee the functionality or security of extensions. Please carefully inspect any extension and its source code before installing to understand the permissions it requires and the actions it may perform."

// skillsWarning is Gemini CLI's warning for an extension with skills.
const skillsWarning = "Agent skills inject specialized instructions and domain-specific knowledge into the agent's system prompt. This can change how the agent interprets your requests and interacts with your environment. Review the skill definitions at the location(s) provided below to ensure they meet your security standards."

// Record is .gemini-extension-install.json as Gemini CLI 0.61 writes it:
// its fields in its order, those it leaves undefined left out.
type Record struct {
	Source          string `json:"source"`
	Type            string `json:"type"`
	Ref             string `json:"ref,omitempty"`
	AutoUpdate      *bool  `json:"autoUpdate,omitempty"`
	AllowPreRelease *bool  `json:"allowPreRelease,omitempty"`
	ReleaseTag      string `json:"releaseTag,omitempty"`
}

// gitPrefixes are the sources Gemini CLI 0.61 takes for git repositories;
// gemini-ls also takes file:// (a local repository), which 0.61 reports
// as "Install source not found.".
var gitPrefixes = []string{"http://", "https://", "git@", "sso://", "github:", "gitlab:", "ssh://", "file://"}

// InferSource is what installing source means, as Gemini CLI's
// inferInstallMetadata decides: a git repository for a URL, else a local
// directory, which must exist and takes neither a ref nor auto-update.
func InferSource(source, ref string, autoUpdate, preRelease *bool) (Record, error) {
	if IsRemote(source) {
		return Record{Source: source, Type: TypeGit, Ref: ref, AutoUpdate: autoUpdate, AllowPreRelease: preRelease}, nil
	}
	if ref != "" || autoUpdate != nil {
		return Record{}, errors.New("--ref and --auto-update are not applicable for local extensions.")
	}
	if _, err := os.Stat(source); err != nil {
		return Record{}, errors.New("Install source not found.")
	}
	return Record{Source: source, Type: TypeLocal}, nil
}

// IsRemote reports whether source names a git repository (InferSource),
// not a local directory.
func IsRemote(source string) bool {
	for _, p := range gitPrefixes {
		if strings.HasPrefix(source, p) {
			return true
		}
	}
	return false
}

// GitHubRepo is owner/repo of a source on github.com, as Gemini CLI's
// tryParseGithubUrl finds it ("" when the source is elsewhere): Gemini
// CLI downloads such a source's latest release rather than clone it.
func GitHubRepo(source string) string {
	if strings.HasPrefix(source, "git@") {
		if !strings.HasPrefix(source, "git@github.com:") {
			return ""
		}
		source = strings.TrimPrefix(source, "git@github.com:")
	}
	base, _ := url.Parse("https://github.com/")
	u, err := base.Parse(source)
	if err != nil || u.Host != "github.com" {
		return ""
	}
	var parts []string
	for _, p := range strings.Split(u.Path, "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) != 2 {
		return ""
	}
	return parts[0] + "/" + strings.Replace(parts[1], ".git", "", 1)
}

// ID is an extension's id as Gemini CLI computes it: the SHA-256 of its
// GitHub repository's URL, else of its install source, else of its name.
func ID(name string, rec *Record) string {
	value := name
	if rec != nil {
		value = rec.Source
		if rec.Type == TypeGit || rec.Type == TypeGitHubRelease {
			if repo := GitHubRepo(rec.Source); repo != "" {
				value = "https://github.com/" + repo
			}
		}
	}
	return hash(value)
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Manager changes the extensions installed in Config.UserDir as Gemini
// CLI 0.61's ExtensionManager does, writing the files it writes.
type Manager struct {
	Config
	// Home is the user's home directory: enabling or disabling for the
	// "user" scope is for it and below.
	Home string
	// Consent is asked, with Gemini CLI's description of what the
	// extension will do, before it is installed or updated to do
	// something else; false cancels.
	Consent func(description string) (bool, error)
	// Warn gets what Gemini CLI warns of on the way (missing settings).
	Warn func(string)
}

func (m Manager) dir() string { return Dir(m.UserDir) }

func (m Manager) warn(s string) {
	if m.Warn != nil {
		m.Warn(s)
	}
}

// Installed are the extensions that load, as Gemini CLI's
// loadExtensions finds them; those that do not are left out.
func (m Manager) Installed() []Extension { return Load(m.Config).All }

// find is the installed extension called name.
func (m Manager) find(name string) (Extension, bool) {
	for _, e := range m.Installed() {
		if e.Name == name {
			return e, true
		}
	}
	return Extension{}, false
}

// config is a manifest as Gemini CLI's loadExtensionConfig reads it: the
// path variables replaced, the name checked.
type config struct {
	raw  map[string]any
	m    manifest
	path string // the manifest's path
}

// loadConfig reads dir's manifest, with Gemini CLI's messages.
func (m Manager) loadConfig(dir string) (config, error) {
	path := filepath.Join(dir, ManifestFile)
	if _, err := os.Stat(path); err != nil {
		return config{}, fmt.Errorf("Configuration file not found at %s", path)
	}
	fail := func(err error) (config, error) {
		return config{}, fmt.Errorf("Failed to load extension config from %s: %w", path, err)
	}
	data, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return fail(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return fail(err)
	}
	if raw == nil {
		return fail(errors.New("it is not a JSON object"))
	}
	name, _ := raw["name"].(string)
	version, _ := raw["version"].(string)
	switch {
	case name == "" && raw["name"] == nil || raw["name"] == "" || raw["name"] == false:
		return fail(fmt.Errorf(`Invalid configuration in %s: missing "name"`, path))
	case raw["version"] == nil || raw["version"] == "" || raw["version"] == false:
		return fail(fmt.Errorf(`Invalid configuration in %s: missing "version"`, path))
	}
	vars := Variables{
		"extensionPath": dir,
		"workspacePath": m.Workspace,
		"/":             string(filepath.Separator),
		"pathSeparator": string(filepath.Separator),
	}
	walkStrings(raw, vars.Hydrate)
	var c config
	c.raw, c.path = raw, path
	if err := decode(raw, &c.m); err != nil {
		return fail(err)
	}
	if name == "" || version == "" {
		// A number or a list where a string belongs: Gemini CLI's checks
		// pass it and its name check fails on it.
		c.m.Name = fmt.Sprint(raw["name"])
	}
	if !validName.MatchString(c.m.Name) {
		return fail(fmt.Errorf(`Invalid extension name: "%s". Only letters (a-z, A-Z), numbers (0-9), and dashes (-) are allowed.`, c.m.Name))
	}
	return c, nil
}

// Install installs the extension rec names (TypeLocal, TypeLink or
// TypeGit, as InferSource gives it) as `gemini extensions install` and
// `link` do: the source copied (a link recorded) into
// ~/.gemini/extensions/<name> with its .gemini-extension-install.json,
// then enabled for the user. Nothing is left behind when it fails.
func (m Manager) Install(ctx context.Context, rec Record) (Extension, error) {
	return m.installOrUpdate(ctx, rec, nil)
}

// permitsInstall is security.allowedExtensions and blockGitExtensions,
// as Gemini CLI checks them before installing.
func (m Manager) permitsInstall(rec Record) error {
	if len(m.Allowed) > 0 {
		source := rec.Source
		if real, err := filepath.EvalSymlinks(source); err == nil {
			source = real
		}
		for _, pattern := range m.Allowed {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return fmt.Errorf(`Invalid regex pattern in allowedExtensions setting: "%s. Error: %v`, pattern, err)
			}
			if re.MatchString(source) {
				return nil
			}
		}
		return fmt.Errorf(`Installing extension from source "%s" is not allowed by the "allowedExtensions" security setting.`, rec.Source)
	}
	if (rec.Type == TypeGit || rec.Type == TypeGitHubRelease) && m.BlockGit {
		return errors.New("Installing extensions from remote sources is disallowed by your current settings.")
	}
	return nil
}

// installOrUpdate is Gemini CLI's installOrUpdateExtension: previous is
// the extension being updated, nil for an install.
func (m Manager) installOrUpdate(ctx context.Context, rec Record, previous *Extension) (Extension, error) {
	if err := m.permitsInstall(rec); err != nil {
		return Extension{}, err
	}
	extDir, err := m.makeDir()
	if err != nil {
		return Extension{}, err
	}
	if (rec.Type == TypeLocal || rec.Type == TypeLink) && !filepath.IsAbs(rec.Source) {
		rec.Source = filepath.Join(m.Workspace, rec.Source)
	}
	from, cleanup, err := fetchFrom(ctx, &rec)
	if err != nil {
		return Extension{}, err
	}
	defer cleanup()
	in, err := m.planInstallation(rec, previous, from, extDir)
	if err != nil {
		return Extension{}, err
	}
	if err := m.askConsent(in); err != nil {
		return Extension{}, err
	}
	if in.takesNewName() && exists(in.dest) {
		return Extension{}, fmt.Errorf(`Cannot install extension "%s" because a directory with that name already exists. Please remove it manually.`, in.name)
	}
	if missing := missingSettings(in.c.m.Settings, from, in.dest); len(missing) > 0 {
		m.warn(fmt.Sprintf(`Extension "%s" has missing settings: %s. Please run "gemini extensions config %s [setting-name]" to configure them.`, in.name, strings.Join(missing, ", "), in.name))
	}
	if err := m.place(in); err != nil {
		return Extension{}, err
	}
	if err := m.recordIntegrity(ctx, in.name, in.rec); err != nil {
		m.warn(fmt.Sprintf("The integrity record of %s was not written: %v; Gemini CLI may refuse to update it until it is reinstalled with gemini extensions install.", in.name, err))
	}
	if err := m.carryEnablement(ctx, in); err != nil {
		return Extension{}, err
	}
	ext, err := load(m.Config, in.dest)
	if err != nil {
		return Extension{}, err
	}
	ext.Enabled = isEnabled(m.dir(), in.name, m.Workspace)
	return ext, nil
}

// makeDir makes the extensions directory if it is not there yet.
func (m Manager) makeDir() (string, error) {
	extDir := m.dir()
	if extDir == "" {
		return "", errors.New("the extensions directory is unknown: neither GEMINI_CLI_HOME nor " + settings.HomeVariable + " is set")
	}
	if err := os.MkdirAll(extDir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", extDir, err)
	}
	return extDir, nil
}

// fetchFrom is the directory holding the extension rec names: a clone
// for a git repository (rec's type then becomes TypeGit), which cleanup
// removes, else the local directory itself.
func fetchFrom(ctx context.Context, rec *Record) (from string, cleanup func(), err error) {
	switch rec.Type {
	case TypeGit, TypeGitHubRelease:
		if repo := GitHubRepo(rec.Source); repo != "" {
			return "", nil, fmt.Errorf("%s is a GitHub repository: Gemini CLI installs its latest release from GitHub's release downloads, which gemini-ls does not reach; install it with `gemini extensions install %s`", rec.Source, rec.Source)
		}
		tmp, err := os.MkdirTemp("", "gemini-extension")
		if err != nil {
			return "", nil, fmt.Errorf("creating a directory to clone into: %w", err)
		}
		cleanup := func() { os.RemoveAll(tmp) }
		if err := fetchsource.Clone(ctx, rec.Source, rec.Ref, tmp); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("Failed to clone Git repository from %s %w", rec.Source, err)
		}
		rec.Type = TypeGit
		return tmp, cleanup, nil
	case TypeLocal, TypeLink:
		from := rec.Source
		if real, err := filepath.EvalSymlinks(from); err == nil {
			from = real
		}
		return from, func() {}, nil
	default:
		return "", nil, fmt.Errorf("Unsupported install type: %s", rec.Type)
	}
}

// installation is one install or update, once its source is fetched and
// its configuration read.
type installation struct {
	rec          Record
	previous     *Extension // the extension being updated, nil for an install
	from         string     // the directory to copy, or to link
	c            config
	name         string    // the extension's name once installed
	previousName string    // its name before an update, name for an install
	installed    Extension // the installed extension named previousName, if found
	found        bool
	dest         string // where it is installed
}

// takesNewName is whether the extension lands under a name no installed
// version of it holds: an install, or an update that changes its name.
func (in installation) takesNewName() bool {
	return in.previous == nil || in.name != in.previousName
}

// planInstallation reads the configuration in from and checks that the
// install (or update of previous) it asks for is possible by its name.
func (m Manager) planInstallation(rec Record, previous *Extension, from, extDir string) (installation, error) {
	c, err := m.loadConfig(from)
	if err != nil {
		return installation{}, err
	}
	in := installation{rec: rec, previous: previous, from: from, c: c, name: c.m.Name, previousName: c.m.Name}
	if previous != nil {
		in.previousName = previous.Name
	}
	in.installed, in.found = m.find(in.previousName)
	_, conflict := m.find(in.name)
	switch {
	case previous != nil && !in.found:
		return installation{}, fmt.Errorf(`Extension "%s" was not already installed, cannot update it.`, in.previousName)
	case previous == nil && in.found:
		return installation{}, fmt.Errorf(`Extension "%s" is already installed. Please uninstall it first.`, in.name)
	case previous != nil && conflict && in.name != in.previousName:
		return installation{}, fmt.Errorf(`Cannot update to "%s" because an extension with that name is already installed.`, in.name)
	}
	in.dest = filepath.Join(extDir, in.name)
	return in, nil
}

// askConsent asks the user to consent to what the extension brings,
// unless it is an update that brings nothing new to consent to.
func (m Manager) askConsent(in installation) error {
	description := m.consentText(in.c, in.from, in.previousName, in.found && in.installed.Install.Source != in.rec.Source)
	if in.previous != nil {
		if before, err := m.loadConfig(in.previous.Path); err == nil && m.consentText(before, in.previous.Path, before.m.Name, false) == description {
			description = ""
		}
	}
	if description == "" || m.Consent == nil {
		return nil
	}
	ok, err := m.Consent(description)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf(`Installation cancelled for "%s".`, in.name)
	}
	return nil
}

// place puts the extension at in.dest. It is built outside the
// extensions directory (on its file system: the user's Gemini
// directory), then renamed into it: a failed copy leaves the extension
// as it was (or absent), never half there, and a crash leaves nothing
// Gemini CLI would try to load as an extension.
func (m Manager) place(in installation) error {
	stage, err := m.stage(in)
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if in.previous == nil {
		if err := os.Rename(stage, in.dest); err != nil {
			return fmt.Errorf("installing %s: %w", in.name, err)
		}
		return nil
	}
	return m.replace(in, stage)
}

// stage builds the extension in a new directory of the user's Gemini
// directory, which it returns; nothing is left of it when it fails.
func (m Manager) stage(in installation) (stage string, err error) {
	staging := filepath.Join(m.UserDir, "tmp")
	if err := os.MkdirAll(staging, 0o700); err != nil {
		return "", fmt.Errorf("installing %s: %w", in.name, err)
	}
	stage, err = os.MkdirTemp(staging, ".extension-"+in.name+".installing-")
	if err != nil {
		return "", fmt.Errorf("installing %s: %w", in.name, err)
	}
	if err := m.stageFiles(in, stage); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	return stage, nil
}

// stageFiles puts into stage the extension's files (none for a link), the
// user's settings of a previous version and the install record.
func (m Manager) stageFiles(in installation, stage string) error {
	if in.rec.Type != TypeLink {
		if err := fetchsource.CopyDir(in.from, stage); err != nil {
			return fmt.Errorf("installing %s: %w", in.name, err)
		}
	}
	if in.previous != nil {
		// The user's settings of the extension (its .env) stay.
		if env, err := os.ReadFile(filepath.Join(in.installed.InstallDir, SettingsFile)); err == nil {
			if err := os.WriteFile(filepath.Join(stage, SettingsFile), env, 0o600); err != nil {
				return fmt.Errorf("installing %s: %w", in.name, err)
			}
		}
	}
	if err := writeRecord(filepath.Join(stage, InstallMetadataFile), in.rec); err != nil {
		return err
	}
	if err := os.Chmod(stage, 0o755&^umask()); err != nil {
		return fmt.Errorf("installing %s: %w", in.name, err)
	}
	return nil
}

// replace puts stage in place of the previous version, which is moved
// aside, and back if the new one cannot take its place.
func (m Manager) replace(in installation, stage string) error {
	aside := stage + ".previous"
	if err := os.Rename(in.installed.InstallDir, aside); err != nil {
		return fmt.Errorf("moving the previous version of %s aside: %w", in.previousName, err)
	}
	if err := os.Rename(stage, in.dest); err != nil {
		if back := os.Rename(aside, in.installed.InstallDir); back != nil {
			return fmt.Errorf("installing %s: %w; its previous version is in %s", in.name, err, aside)
		}
		return fmt.Errorf("installing %s: %w", in.name, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		m.warn(fmt.Sprintf("removing the previous version of %s (%s): %v", in.previousName, aside, err))
	}
	return nil
}

// carryEnablement enables a new extension for the user; a renamed one
// inherits the old name's enablement.
func (m Manager) carryEnablement(ctx context.Context, in installation) error {
	switch {
	case in.previous == nil:
		return SetEnabled(ctx, m.UserDir, in.name, true, m.Home)
	case in.name != in.previousName:
		wasUser := isEnabled(m.dir(), in.previousName, m.Home)
		wasWorkspace := isEnabled(m.dir(), in.previousName, m.Workspace)
		if err := removeEnablement(ctx, m.UserDir, in.previousName); err != nil {
			return err
		}
		if wasUser {
			if err := SetEnabled(ctx, m.UserDir, in.name, true, m.Home); err != nil {
				return err
			}
		}
		if wasWorkspace {
			return SetEnabled(ctx, m.UserDir, in.name, true, m.Workspace)
		}
	}
	return nil
}

// umask is the process's umask, for a directory made with MkdirTemp
// (0o700) to get the mode a plain mkdir would.
func umask() fs.FileMode {
	probe, err := os.MkdirTemp("", "umask")
	if err != nil {
		return 0o022
	}
	defer os.Remove(probe)
	if err := os.Chmod(probe, 0o777); err != nil {
		return 0o022
	}
	sub := filepath.Join(probe, "d")
	if err := os.Mkdir(sub, 0o777); err != nil {
		return 0o022
	}
	defer os.Remove(sub)
	info, err := os.Stat(sub)
	if err != nil {
		return 0o022
	}
	return 0o777 &^ info.Mode().Perm()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// isEnabled reads the enablement file of extDir for name in dir.
func isEnabled(extDir, name, dir string) bool {
	e, _ := readEnablement(extDir)
	return e.enabled(name, dir)
}

// writeRecord writes rec as Gemini CLI does: JSON indented by two
// spaces, no newline after it.
func writeRecord(path string, rec Record) error {
	data, err := marshalIndent(rec)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// marshalIndent is JSON.stringify(v, null, 2): no HTML escapes, no
// newline at the end.
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// missingSettings are the names of the declared settings that have no
// value in the extension's .env (in from, or the installed dest).
func missingSettings(declared []Setting, from, dest string) []string {
	values, _ := readSettings(dest)
	if len(values) == 0 {
		values, _ = readSettings(from)
	}
	var missing []string
	for _, s := range declared {
		if _, ok := values[s.EnvVar]; !ok && !s.Sensitive {
			missing = append(missing, s.Name)
		}
	}
	return missing
}
