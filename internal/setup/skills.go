package setup

import (
	"errors"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// discoverSkills finds the agent skills where Gemini CLI finds them
// (package skills): the extensions', the user's, and the trusted roots'.
// Every SKILL.md skipped, conflict and untrusted skills directory is told
// to the user. nil when settings turn skills off (skills.enabled false).
func (b *Built) discoverSkills(set settings.Settings) *skills.Catalog {
	if !set.Skills.SkillsEnabled() {
		return nil
	}
	catalog, problems := skills.Discover(skills.Config{
		UserDir:    settings.UserDir(b.Getenv),
		Roots:      b.projectRoots,
		Trusted:    b.Trust.Trusted,
		Extensions: extensionSkills(b.Extensions),
		Disabled:   set.Skills.Disabled,
	})
	for _, p := range b.untrustedSkillsToldOnce(problems) {
		b.opts.Warn("agent skills", p)
	}
	return catalog
}

// skillSource is b.Skills as the agent takes it: no interface holding a
// nil catalog.
func (b *Built) skillSource() agent.SkillSource {
	if b.Skills == nil {
		return nil
	}
	return b.Skills
}

// ReloadSkills finds the agent skills again (/skills reload), with
// skills.disabled as the settings say now, and reports what was skipped.
// The change counts from the next request of every session.
func (b *Built) ReloadSkills() ([]skills.Problem, error) {
	if b.Skills == nil {
		return nil, errors.New("agent skills are off: skills.enabled is false in the settings (a change to it takes effect when gemini-ls starts again)")
	}
	set, err := b.loadSettings()
	if err != nil {
		return nil, err
	}
	b.Skills.SetDisabled(set.Skills.Disabled)
	return b.Skills.Reload(), nil
}

// SkillSettingsFiles are the settings files /skills enable and disable
// write skills.disabled in: the user's, and the first root's when it is
// a trusted folder ("" otherwise, or when there is no home directory or
// root): an untrusted folder's settings are never read, so a change
// there would do nothing.
func (b *Built) SkillSettingsFiles() (user, workspace string) {
	if dir := settings.UserDir(b.Getenv); dir != "" {
		user = filepath.Join(dir, "settings.json")
	}
	if roots := b.opts.Workspace.Roots(); len(roots) > 0 && b.Trust.Trusted(roots[0]) {
		workspace = configfiles.ProjectSettings(roots[0])
		if workspace == user {
			workspace = "" // the home directory's file is the user's
		}
	}
	return user, workspace
}
