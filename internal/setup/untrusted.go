package setup

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// UntrustedProject is what Options.Warn is called with, once per process
// for each project root that is not trusted and has a .gemini directory
// (or a system prompt variable naming a file in it): nothing of it was
// read or written.
const UntrustedProject = "the workspace's .gemini/ was not read"

// maxListed bounds the names of a .gemini directory the notice lists.
const maxListed = 12

// tellUntrusted says, once per process for each untrusted project root
// (one no rule decides too, as the agents' and skills' notices did),
// what of its .gemini/ was left out (its entries: commands, agents,
// skills, settings, system.md…) and which system prompt variables were
// not used (withheld), and how to have them used.
func (b *Built) tellUntrusted(withheld []withheldVar) {
	for _, root := range b.Trust.Untrusted() {
		var mine []string
		for _, w := range withheld {
			if insideAny([]string{root}, w.path) {
				mine = append(mine, fmt.Sprintf("%s (%s)", w.name, w.path))
			}
		}
		names := dotGeminiEntries(root)
		// A folder asked about again is told of whatever changed (an
		// .agents file, a .env), with or without a .gemini.
		again := b.Trust.Changed(root) != ""
		if len(names) == 0 && len(mine) == 0 && !again {
			continue
		}
		if !b.opts.Told.first("untrusted\x00" + root) {
			continue
		}
		var what []string
		if len(names) > 0 {
			what = append(what, root+"'s .gemini/ ("+strings.Join(names, ", ")+") is neither read nor written")
		}
		if len(mine) > 0 {
			what = append(what, strings.Join(mine, " and ")+" not used (the built-in system prompt is)")
		}
		if len(what) == 0 {
			what = append(what, root+"'s own configuration is not used")
		}
		b.opts.Warn(UntrustedProject, fmt.Errorf("%s: %v", strings.Join(what, ", and "), b.Trust.Why(root)))
	}
}

// dotGeminiEntries are the names in root's .gemini directory, sorted,
// at most maxListed of them (then how many more); none when it has none.
func dotGeminiEntries(root string) []string {
	entries, err := os.ReadDir(configfiles.GeminiDir(root))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	if len(names) > maxListed {
		names = append(names[:maxListed], fmt.Sprintf("%d more", len(names)-maxListed))
	}
	return names
}

// inUntrustedDotGemini reports whether path is in the .gemini directory
// of a project root that is not trusted, which tellUntrusted tells of.
func (b *Built) inUntrustedDotGemini(path string) bool {
	for _, root := range b.Trust.Untrusted() {
		if workspace.Within(configfiles.GeminiDir(root), path) {
			return true
		}
	}
	return false
}

// untrustedSkillsToldOnce leaves out the skills problems tellUntrusted
// already tells of: an untrusted root's .gemini/skills.
func (b *Built) untrustedSkillsToldOnce(problems []skills.Problem) []skills.Problem {
	return slices.DeleteFunc(problems, func(p skills.Problem) bool { return b.inUntrustedDotGemini(p.Path) })
}

// untrustedSettingsToldOnce is err, settings.Load's, without what
// tellUntrusted tells of: an untrusted root's .gemini/settings.json, not
// read; nil when nothing else is left.
func (b *Built) untrustedSettingsToldOnce(err error) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	return errors.Join(slices.DeleteFunc(slices.Clone(joined.Unwrap()), func(e error) bool {
		f, ok := errors.AsType[*settings.FileError](e)
		return ok && b.inUntrustedDotGemini(f.Path)
	})...)
}
