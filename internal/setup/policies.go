package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// loadPolicies reads the policy files of every tier Gemini CLI reads
// (extensions, the trusted roots' .gemini/policies, ~/.gemini/policies
// or settings' policyPaths, the system's and settings'
// adminPolicyPaths), for sessions that can ask unless Unattended, and
// tells the user of every file or rule that could not be used.
func (b *Built) loadPolicies(set settings.Settings, extensions []policy.Source) *policy.Engine {
	engine := policy.Load(b.policySources(b.withPolicyPaths(set), extensions), !b.opts.Unattended, policy.ConfirmationRequired(set.Tools.ConfirmationRequired)...)
	for _, p := range engine.Problems() {
		b.opts.Warn("a policy file could not be used as written", errors.New(p.String()))
	}
	if set.Security.DisableAlwaysAllow {
		engine = engine.WithoutAlwaysAllow()
	}
	return engine
}

// withPolicyPaths is set with the command line's policy paths, which
// replace the settings' policyPaths and adminPolicyPaths.
func (b *Built) withPolicyPaths(set settings.Settings) settings.Settings {
	if len(b.opts.PolicyPaths) > 0 {
		set.PolicyPaths = b.opts.PolicyPaths
	}
	if len(b.opts.AdminPolicyPaths) > 0 {
		set.AdminPolicyPaths = b.opts.AdminPolicyPaths
	}
	return set
}

// alwaysAllow is what set's security make of the user's "always allow":
// one for all future sessions is saved in the user's
// ~/.gemini/policies/auto-saved.toml, where Gemini CLI 0.61's
// updatePolicy saves it: its workspace policies are switched off
// (disableWorkspacePolicies), so it never saves in the workspace's.
func (b *Built) alwaysAllow(set settings.Settings) agent.AlwaysAllow {
	sec := set.Security
	a := agent.AlwaysAllow{Disabled: sec.DisableAlwaysAllow, SaveByDefault: sec.AutoAddToPolicyByDefault}
	userDir := settings.UserDir(b.Getenv)
	if sec.EnablePermanentToolApproval && !sec.DisableAlwaysAllow && userDir != "" {
		a.SavedPolicy = filepath.Join(userDir, "policies", policy.AutoSavedFile)
	}
	return a
}

// policySources are where policy files are read, by tier. A root that is
// not a trusted folder gives none, as its settings give none; nor does
// one whose .gemini is the user's own (the home folder).
func (b *Built) policySources(set settings.Settings, extensions []policy.Source) []policy.Source {
	sources := append([]policy.Source(nil), extensions...)
	userDir := settings.UserDir(b.Getenv)
	for _, root := range b.opts.Workspace.Roots() {
		dir := configfiles.GeminiDir(root)
		if b.Trust.Trusted(root) && dir != userDir {
			sources = append(sources, policy.Source{Tier: policy.TierWorkspace, Path: filepath.Join(dir, "policies")})
		}
	}
	// policyPaths replace the user's policies directory, as Gemini CLI's
	// getPolicyDirectories has it.
	switch {
	case len(set.PolicyPaths) > 0:
		for _, p := range set.PolicyPaths {
			sources = append(sources, policy.Source{Tier: policy.TierUser, Path: b.UserPath(p)})
		}
	case userDir != "":
		sources = append(sources, policy.Source{Tier: policy.TierUser, Path: filepath.Join(userDir, "policies")})
	}
	dir := systemPoliciesDir()
	if err := secureDir(dir); err != nil {
		b.opts.Warn("the system policies were skipped", fmt.Errorf("Security Warning: Skipping system policies from %s: %w", dir, err))
	} else {
		sources = append(sources, policy.Source{Tier: policy.TierAdmin, Path: dir})
	}
	return append(sources, b.adminPolicySources(set, dir)...)
}

// adminPolicySources are the settings' adminPolicyPaths, in the admin
// tier; none, and the user told, when the system directory holds
// policies already: a central policy is not overridden (Gemini CLI's
// createPolicyEngineConfig).
func (b *Built) adminPolicySources(set settings.Settings, systemDir string) []policy.Source {
	if len(set.AdminPolicyPaths) == 0 {
		return nil
	}
	if tomls, _ := filepath.Glob(filepath.Join(systemDir, "*.toml")); len(tomls) > 0 {
		b.opts.Warn("adminPolicyPaths were skipped", fmt.Errorf("Security Warning: Ignoring adminPolicyPaths because system policies are already defined in %s", systemDir))
		return nil
	}
	var out []policy.Source
	for _, p := range set.AdminPolicyPaths {
		out = append(out, policy.Source{Tier: policy.TierAdmin, Path: b.UserPath(p)})
	}
	return out
}

// systemPoliciesDir is where Gemini CLI reads the administrator's
// policies (Storage.getSystemPoliciesDir).
func systemPoliciesDir() string {
	return filepath.Join(settings.SystemConfigDir(), "policies")
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
	case writableByOthers(info):
		return errors.New("it is writable by group or others")
	}
	if !ownedByRoot(info) {
		return errors.New("it is not owned by root")
	}
	return nil
}
