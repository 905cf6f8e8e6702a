package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Config says where skills are found.
type Config struct {
	// UserDir is the user's Gemini directory (~/.gemini); its skills
	// directory and the .agents/skills beside it are the user's tier. ""
	// when there is no home directory.
	UserDir string
	// Roots are the workspace roots, first the default; Trusted says which
	// are trusted folders, whose skills alone are read.
	Roots   []string
	Trusted func(root string) bool
	// Extensions are the active extensions' skill directories.
	Extensions []ExtensionDir
	// Disabled are skills.disabled: the names, in any case, of skills the
	// model is not offered.
	Disabled []string
}

// ExtensionDir is one extension's skills directory.
type ExtensionDir struct {
	Extension string
	Dir       string
	// Hydrate fills the extension's variables into its skills'
	// descriptions and instructions, as Gemini CLI does; none when nil.
	Hydrate func(string) string
}

// Problem is a skill directory or SKILL.md that was skipped or overridden,
// for the user; Path names it.
type Problem struct {
	Path string
	Err  error
}

func (p Problem) Error() string { return p.Path + ": " + p.Err.Error() }

// Catalog is the discovered skills. It is safe for concurrent use:
// Reload replaces them while sessions read them.
type Catalog struct {
	cfg Config // fixed but for Disabled

	mu     sync.Mutex // guards skills and cfg.Disabled
	skills []Skill    // in precedence order of first discovery, as Gemini CLI's
}

// Discover finds the skills cfg names, reporting what it skipped.
func Discover(cfg Config) (*Catalog, []Problem) {
	c := &Catalog{cfg: cfg}
	return c, c.Reload()
}

// Reload finds the skills again (/skills reload), replacing those found
// before, and reports what it skipped.
func (c *Catalog) Reload() []Problem {
	c.mu.Lock()
	disabled := c.cfg.Disabled
	c.mu.Unlock()
	d := discovery{byName: map[string]int{}}
	for _, ext := range c.cfg.Extensions {
		dir, err := filepath.Abs(ext.Dir)
		if err != nil {
			d.problems = append(d.problems, Problem{Path: ext.Dir, Err: err})
			continue
		}
		d.addDir(dir, ext.Extension, ext.Hydrate)
	}
	if c.cfg.UserDir != "" {
		d.addDir(filepath.Join(c.cfg.UserDir, "skills"), "", nil)
		d.addDir(configfiles.Skills(filepath.Dir(c.cfg.UserDir))[1], "", nil)
	}
	// The first root is read last: it wins.
	for _, root := range slices.Backward(c.cfg.Roots) {
		dirs := configfiles.Skills(root)
		if c.cfg.Trusted == nil || !c.cfg.Trusted(root) {
			d.noticeUntrusted(dirs)
			continue
		}
		for _, dir := range dirs {
			d.addDir(dir, "", nil)
		}
	}
	markDisabled(d.skills, disabled)
	c.mu.Lock()
	c.skills = d.skills
	c.mu.Unlock()
	return d.problems
}

// SetDisabled makes names, in any case, the disabled skills, from now on
// and at every Reload.
func (c *Catalog) SetDisabled(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Disabled = slices.Clone(names)
	c.skills = slices.Clone(c.skills)
	markDisabled(c.skills, names)
}

func markDisabled(list []Skill, names []string) {
	for i := range list {
		list[i].Disabled = slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, list[i].Name) })
	}
}

// All is every skill found, disabled ones too (/skills list).
func (c *Catalog) All() []Skill {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.skills)
}

// Enabled is the skills the model is offered.
func (c *Catalog) Enabled() []Skill {
	var out []Skill
	for _, s := range c.All() {
		if !s.Disabled {
			out = append(out, s)
		}
	}
	return out
}

// Get is the enabled skill called name, in any case, as Gemini CLI finds
// it.
func (c *Catalog) Get(name string) (Skill, bool) {
	for _, s := range c.Enabled() {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return Skill{}, false
}

// discovery is one pass over the tiers.
type discovery struct {
	skills   []Skill
	byName   map[string]int // index in skills
	problems []Problem
}

// addDir adds the skills of dir, over those of the same name found
// before; a missing dir has none.
func (d *discovery) addDir(dir, extension string, hydrate func(string) string) {
	info, err := os.Stat(dir)
	switch {
	case err != nil && missing(err):
		return
	case err != nil:
		d.problems = append(d.problems, Problem{Path: dir, Err: fmt.Errorf("its skills were not read: %w", err)})
		return
	case !info.IsDir():
		d.problems = append(d.problems, Problem{Path: dir, Err: fmt.Errorf("its skills were not read: it is %s, not a directory", safefile.DescribeMode(info.Mode()))})
		return
	}
	for _, path := range skillFiles(dir) {
		s, err := Load(path)
		if err != nil {
			d.problems = append(d.problems, Problem{Path: path, Err: fmt.Errorf("skipped, not a skill: %w", err)})
			continue
		}
		s.Extension = extension
		if hydrate != nil {
			s.Description, s.Body = hydrate(s.Description), hydrate(s.Body)
		}
		d.add(s)
	}
}

func (d *discovery) add(s Skill) {
	i, ok := d.byName[s.Name]
	if !ok {
		d.byName[s.Name] = len(d.skills)
		d.skills = append(d.skills, s)
		return
	}
	if old := d.skills[i]; old.Location != s.Location {
		// Gemini CLI's warning, word for word: the paths as they are, not
		// Go-quoted (which doubles Windows's backslashes).
		d.problems = append(d.problems, Problem{Path: s.Location, Err: fmt.Errorf(
			`Skill conflict detected: "%s" from "%s" is overriding the same skill from "%s".`, s.Name, s.Location, old.Location)})
	}
	d.skills[i] = s
}

var errUntrusted = errors.New("its skills were not loaded: as in Gemini CLI, workspace skills are read only in a trusted folder")

// noticeUntrusted reports the skill directories of an untrusted root,
// unread.
func (d *discovery) noticeUntrusted(dirs []string) {
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			d.problems = append(d.problems, Problem{Path: dir, Err: errUntrusted})
		}
	}
}

// skillFiles are dir's SKILL.md and its subdirectories' (symlinks
// followed, hidden ones left out), as Gemini CLI's glob of SKILL.md and
// */SKILL.md finds them, sorted. A SKILL.md that is not a regular file
// (a FIFO) is among them, for Load to refuse and the user to be told.
func skillFiles(dir string) []string {
	var out []string
	if isFile(filepath.Join(dir, FileName)) {
		out = append(out, filepath.Join(dir, FileName))
	}
	entries, err := safefile.ReadDir(dir, 0)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		if path := filepath.Join(dir, e.Name(), FileName); isFile(path) {
			out = append(out, path)
		}
	}
	return out
}

// isFile reports whether path, symlinks followed, is there and is not a
// directory.
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// missing reports whether err says there is no such directory.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
