package setup

import (
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// protectedFiles are the files an edit of which always asks a person
// (internal/protected): its names, and the places set, the environment
// and the command line put what decides what the agent may run or read
// outside them: the system's settings, defaults and policies, the policy
// paths, the trusted folders file, gemini-ls's state directory, a
// GEMINI_SYSTEM_MD file, git's, Neovim's and fish's configuration where
// XDG_CONFIG_HOME puts it, and the enabled extensions' directories (their MCP servers, hooks, policies
// and commands; a linked one's is anywhere).
func (b *Built) protectedFiles(set settings.Settings) protected.Set {
	getenv := b.Getenv
	paths := []protected.Path{
		{Path: settings.SystemSettingsPath(getenv), What: "Gemini CLI's system settings, which override every other"},
		{Path: settings.SystemDefaultsPath(getenv), What: "Gemini CLI's system defaults"},
		{Path: systemPoliciesDir(), What: "the administrator's policies"},
		{Path: settings.TrustedFoldersPath(getenv), What: "the record of the folders the user trusts"},
		// The sandboxes' trail (its accepted/ trusts a folder again) and
		// the saved sessions, whose history a resumed session obeys.
		{Path: settings.StateDir(getenv), What: "gemini-ls's own records: saved sessions, and the sandboxes' trail that decides which folders are trusted again"},
	}
	set = b.withPolicyPaths(set)
	for _, p := range set.PolicyPaths {
		paths = append(paths, protected.Path{Path: b.UserPath(p), What: "the user's policies (policyPaths)"})
	}
	for _, p := range set.AdminPolicyPaths {
		paths = append(paths, protected.Path{Path: b.UserPath(p), What: "the administrator's policies (adminPolicyPaths)"})
	}
	dir := projectDir(b.projectRoots)
	if path, on := resolvePathVar(getenv("GEMINI_SYSTEM_MD"), getenv, dir, configfiles.In(dir, "system.md")); on {
		paths = append(paths, protected.Path{Path: path, What: "the system prompt (GEMINI_SYSTEM_MD)"})
	}
	paths = append(paths, protected.XDGConfig(getenv("XDG_CONFIG_HOME"))...)
	for _, e := range b.Extensions.Active() {
		paths = append(paths, protected.Path{Path: e.Path, What: "the extension " + e.Name + ": its MCP servers, hooks, policies and commands"})
	}
	return protected.New(paths...)
}
