package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/gemini-ls/gemini-ls/policy"
	"github.com/gemini-ls/gemini-ls/settings"
)

// loadPolicies reads the policy files of every tier Gemini CLI reads
// (extensions, the trusted roots' .gemini/policies, ~/.gemini/policies,
// the system's), for sessions that can ask unless Unattended, and tells
// the user of every file or rule that could not be used.
func (b *Built) loadPolicies(extensions []policy.Source) *policy.Engine {
	engine := policy.Load(b.policySources(extensions), !b.opts.Unattended)
	for _, p := range engine.Problems() {
		b.opts.Warn("a policy file could not be used as written", errors.New(p.String()))
	}
	return engine
}

// policySources are where policy files are read, by tier. A root that is
// not a trusted folder gives none, as its settings give none; nor does
// one whose .gemini is the user's own (the home folder).
func (b *Built) policySources(extensions []policy.Source) []policy.Source {
	sources := append([]policy.Source(nil), extensions...)
	userDir := settings.UserDir(b.Getenv)
	for _, root := range b.opts.Workspace.Roots() {
		dir := filepath.Join(root, ".gemini")
		if b.Trust.Trusted(root) && dir != userDir {
			sources = append(sources, policy.Source{Tier: policy.TierWorkspace, Path: filepath.Join(dir, "policies")})
		}
	}
	if userDir != "" {
		sources = append(sources, policy.Source{Tier: policy.TierUser, Path: filepath.Join(userDir, "policies")})
	}
	if dir := systemPoliciesDir(); dir != "" {
		if err := secureDir(dir); err != nil {
			b.opts.Warn("the system policies were skipped", fmt.Errorf("Security Warning: Skipping system policies from %s: %w", dir, err))
		} else {
			sources = append(sources, policy.Source{Tier: policy.TierAdmin, Path: dir})
		}
	}
	return sources
}

// systemPoliciesDir is where Gemini CLI reads the administrator's
// policies (Storage.getSystemPoliciesDir).
func systemPoliciesDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/policies"
	case "windows":
		return `C:\ProgramData\gemini-cli\policies`
	}
	return "/etc/gemini-cli/policies"
}

// secureDir says why dir may not hold the administrator's policies: as in
// Gemini CLI, it must be owned by root and writable by nobody else. A
// directory that does not exist is secure: it holds nothing.
func secureDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return errors.New("it is not a directory")
	case info.Mode().Perm()&0o022 != 0:
		return errors.New("it is writable by group or others")
	}
	if !ownedByRoot(info) {
		return errors.New("it is not owned by root")
	}
	return nil
}
