// Package geminidir finds Gemini CLI's directories of a project under
// ~/.gemini: its temporary directory (tmp/<id>, where /chat checkpoints
// and /restore's checkpoints/ live) and its history directory
// (history/<id>, the checkpointing shadow git repository), named as
// Gemini CLI 0.61 names them, so either program finds what the other
// wrote.
package geminidir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// Gemini CLI keeps a project's files (the /chat checkpoints among them) in
// ~/.gemini/tmp/<id>, where id is the short name its project registry
// gives the project's root (packages/core/src/config/projectRegistry.ts):
// the root's base name made a slug, "-1", "-2"… when taken. A directory
// is claimed by a .project_root file holding the root's path, in tmp and
// in history alike; ~/.gemini/projects.json maps roots to ids, but the
// markers decide, and Gemini CLI finds a claimed directory by them when
// the registry does not name it. Older versions named the directory by
// the SHA-256 of the root; Gemini CLI moves such a directory on start.
const (
	projectRootFile = ".project_root"
	registryFile    = "projects.json"
	// maxRegistrySize and maxMarkerSize bound what is read of Gemini
	// CLI's files; MaxScanned bounds the directories searched for a
	// marker.
	maxRegistrySize = 4 << 20
	maxMarkerSize   = 64 << 10
	MaxScanned      = 10000
)

// validSlug is an id the registry may hold, as Gemini CLI checks it.
var validSlug = lazyregexp.New(`^[a-z0-9-]+$`)

// Dirs finds Gemini CLI's directories of a project.
type Dirs struct {
	geminiDir string // ~/.gemini
	root      string // the project's root, absolute and clean
}

func New(geminiDir, root string) (Dirs, error) {
	if geminiDir == "" {
		return Dirs{}, errors.New("there is no home directory, so there is no ~/.gemini to keep checkpoints in")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Dirs{}, fmt.Errorf("finding the project's root: %w", err)
	}
	// Gemini CLI's root is its working directory, which the system gives
	// with every symlink resolved.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return Dirs{geminiDir: geminiDir, root: abs}, nil
}

func (p Dirs) tmp() string     { return filepath.Join(p.geminiDir, "tmp") }
func (p Dirs) history() string { return filepath.Join(p.geminiDir, "history") }

// Find is the project's temporary directory as Gemini CLI would find it
// now, "" when it has none yet.
func (p Dirs) Find() (string, error) {
	if slug := p.registered(); slug != "" {
		return filepath.Join(p.tmp(), slug), nil
	}
	slug, err := p.marked()
	if err != nil {
		return "", err
	}
	if slug != "" {
		return filepath.Join(p.tmp(), slug), nil
	}
	sum := sha256.Sum256([]byte(p.root))
	legacy := filepath.Join(p.tmp(), hex.EncodeToString(sum[:]))
	if fi, err := os.Stat(legacy); err == nil && fi.IsDir() {
		return legacy, nil
	}
	return "", nil
}

// FindOrClaim is the project's temporary directory, claimed (created,
// with its markers) as Gemini CLI claims one when the project has none.
// A claim is made under the registry's lock (internal/sharedlock), which
// Gemini CLI 0.61 holds while it claims, so that the two never claim at
// once; the project is looked for again once it is held. Its callers
// (the session store among them) have no context to give: the wait is
// bounded by sharedlock.MaxWait.
func (p Dirs) FindOrClaim() (string, error) {
	dir, err := p.Find()
	if err != nil || dir != "" {
		return dir, err
	}
	if err := os.MkdirAll(p.geminiDir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", p.geminiDir, err)
	}
	lock, err := sharedlock.Acquire(context.Background(), filepath.Join(p.geminiDir, registryFile))
	if err != nil {
		return "", fmt.Errorf("claiming Gemini CLI's directory of the project: %w", err)
	}
	defer lock.Release()
	if dir, err := p.Find(); err != nil || dir != "" {
		return dir, err // claimed meanwhile, by Gemini CLI or another gemini-ls
	}
	base := slugify(filepath.Base(p.root))
	taken := map[string]bool{}
	for _, slug := range p.registry() {
		taken[slug] = true
	}
	for n := 0; n < MaxScanned; n++ {
		slug := base
		if n > 0 {
			slug = fmt.Sprintf("%s-%d", base, n)
		}
		if taken[slug] {
			continue
		}
		switch err := p.claim(slug); {
		case err == nil:
			return filepath.Join(p.tmp(), slug), nil
		case errors.Is(err, fs.ErrExist):
			continue // another project's
		default:
			return "", fmt.Errorf("creating Gemini CLI's directory of the project in %s: %w", p.tmp(), err)
		}
	}
	return "", fmt.Errorf("no free directory for the project in %s", p.tmp())
}

// registered is the id the registry gives the root, if the markers agree.
func (p Dirs) registered() string {
	slug := p.registry()[p.root]
	if !validSlug.MatchString(slug) {
		return ""
	}
	for _, base := range []string{p.tmp(), p.history()} {
		if owner, err := p.owner(filepath.Join(base, slug)); err == nil && owner != p.root {
			return "" // the registry is out of date; Gemini CLI picks again
		}
	}
	return slug
}

// registry is ~/.gemini/projects.json's map of roots to ids; empty when
// it cannot be read, as Gemini CLI starts over from the markers then.
func (p Dirs) registry() map[string]string {
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := safefile.Read(filepath.Join(p.geminiDir, registryFile), maxRegistrySize); err == nil {
		_ = jsjson.Decode(data, &reg) // as Gemini CLI's JSON.parse: "Projects" is not "projects"
	}
	return reg.Projects
}

// marked is the directory of tmp whose marker names the root, "" for none.
func (p Dirs) marked() (string, error) {
	entries, err := safefile.ReadDir(p.tmp(), MaxScanned)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", p.tmp(), err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if owner, err := p.owner(filepath.Join(p.tmp(), e.Name())); err == nil && owner == p.root {
				return e.Name(), nil
			}
		}
	}
	return "", nil
}

// owner is the root dir's marker names; an error when it has none.
func (p Dirs) owner(dir string) (string, error) {
	data, err := safefile.Read(filepath.Join(dir, projectRootFile), maxMarkerSize)
	if err != nil {
		return "", err
	}
	return filepath.Clean(strings.TrimSpace(string(data))), nil
}

// claim marks slug's directories (in tmp and history, as Gemini CLI
// does) as the root's; fs.ErrExist when one is another project's.
func (p Dirs) claim(slug string) error {
	for _, base := range []string{p.tmp(), p.history()} {
		dir := filepath.Join(base, slug)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(dir, projectRootFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			if owner, rerr := p.owner(dir); rerr == nil && owner == p.root {
				continue
			}
			return fs.ErrExist
		}
		if err != nil {
			return err
		}
		_, err = f.WriteString(p.root)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// slugify is Gemini CLI's: lower case, runs of anything but a-z and 0-9
// one "-", none at either end; "project" when nothing is left.
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "project"
	}
	return b.String()
}

// Root is the project's root, absolute, clean and with symlinks resolved.
func (p Dirs) Root() string { return p.root }

// HistoryOf is the history directory of the project whose temporary
// directory is tmp: Gemini CLI names both by the same id.
func (p Dirs) HistoryOf(tmp string) string {
	return filepath.Join(p.history(), filepath.Base(tmp))
}
