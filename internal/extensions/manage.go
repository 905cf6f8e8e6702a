package extensions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// ErrNotFound is an extension no installed one answers to.
var ErrNotFound = errors.New("Extension not found.")

// Uninstall removes the installed extension whose name or install source
// is identifier (either in any case), as `gemini extensions uninstall`
// does: its directory in ~/.gemini/extensions (a linked extension's
// source is left alone) and its entry in the enablement file. It returns
// the extension's name.
func (m Manager) Uninstall(ctx context.Context, identifier string) (string, error) {
	var ext Extension
	found := false
	for _, e := range m.Installed() {
		if strings.EqualFold(e.Name, identifier) || e.Install.Source != "" && strings.EqualFold(e.Install.Source, identifier) {
			ext, found = e, true
			break
		}
	}
	if !found {
		return "", ErrNotFound
	}
	if err := os.RemoveAll(ext.InstallDir); err != nil {
		return "", fmt.Errorf("removing %s: %w", ext.InstallDir, err)
	}
	return ext.Name, removeEnablement(ctx, m.UserDir, ext.Name)
}

// removeEnablement drops name's entry from the enablement file, as
// Gemini CLI's remove does; a file without one is left as it is.
func removeEnablement(ctx context.Context, userDir, name string) error {
	return changeEnablement(ctx, filepath.Join(Dir(userDir), EnablementFile), func(e enablement) error {
		if _, ok := e[name]; !ok {
			return sharedlock.ErrUnchanged
		}
		delete(e, name)
		return nil
	})
}

// SetEnabledFor enables (or disables) the installed extension called
// name for scope "user" (the home directory and below) or "workspace"
// (Manager.Workspace and below), as `gemini extensions enable|disable
// --scope` do.
func (m Manager) SetEnabledFor(ctx context.Context, name string, enable bool, scope string) error {
	if _, ok := m.find(name); !ok {
		return fmt.Errorf("Extension with name %s does not exist.", name)
	}
	dir := m.Home
	if strings.EqualFold(scope, "workspace") {
		dir = m.Workspace
	}
	return SetEnabled(ctx, m.UserDir, name, enable, dir)
}

// EnabledIn reports whether the extension called name is enabled in dir,
// as the enablement file says.
func (m Manager) EnabledIn(name, dir string) bool { return isEnabled(m.dir(), name, dir) }

// Update states, as Gemini CLI names them.
const (
	UpdateAvailable = "update available"
	UpToDate        = "up to date"
	NotUpdatable    = "not updatable"
	UpdateError     = "error"
)

// CheckUpdate is Gemini CLI's checkForExtensionUpdate: a local extension
// has one when its source's version differs, a git one when its remote's
// ref moved; a linked one never has one. Why it could not tell goes to
// Manager.Warn.
func (m Manager) CheckUpdate(ctx context.Context, ext Extension) string {
	rec := ext.Install
	switch rec.Type {
	case TypeLocal:
		c, err := m.loadConfig(rec.Source)
		if err != nil {
			m.warn(fmt.Sprintf(`Failed to check for update for local extension "%s". Could not load extension from source path: %s. Error: %v`, ext.Name, rec.Source, err))
			return NotUpdatable
		}
		if c.m.Version != ext.Version {
			return UpdateAvailable
		}
		return UpToDate
	case TypeGit:
		remote, err := fetchsource.RemoteHead(ctx, ext.Path, rec.Ref)
		if err == nil {
			var local string
			if local, err = fetchsource.Head(ctx, ext.Path); err == nil {
				if remote == local {
					return UpToDate
				}
				return UpdateAvailable
			}
		}
		m.warn(fmt.Sprintf(`Failed to check for updates for extension "%s": %v`, rec.Source, err))
		return UpdateError
	case TypeGitHubRelease:
		m.warn(fmt.Sprintf(`Failed to check for updates for extension "%s": it was installed from a GitHub release, and gemini-ls does not reach GitHub's release downloads; update it with "gemini extensions update %s"`, rec.Source, ext.Name))
		return UpdateError
	}
	return NotUpdatable
}

// Update installs ext again from its source, as `gemini extensions
// update` does: a git clone fetched anew, a local directory copied
// anew. Its enablement and settings (.env) stay. It returns the
// extension as it now is.
func (m Manager) Update(ctx context.Context, ext Extension) (Extension, error) {
	meta, err := readRecord(ext.InstallDir)
	if err != nil || meta.Type == "" {
		return Extension{}, fmt.Errorf("Extension %s cannot be updated, type is unknown.", ext.Name)
	}
	if meta.Type == TypeLink {
		return Extension{}, errors.New("Extension is linked so does not need to be updated")
	}
	return m.installOrUpdate(ctx, meta, &ext)
}

// readRecord reads an install directory's .gemini-extension-install.json
// with every field Gemini CLI writes.
func readRecord(installDir string) (Record, error) {
	path := filepath.Join(installDir, InstallMetadataFile)
	data, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return Record{}, fmt.Errorf("reading %s: %w", path, err)
	}
	var rec Record
	if err := jsjson.Decode(data, &rec); err != nil {
		return Record{}, fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return rec, nil
}
