package skills

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Installing, linking and uninstalling skills as Gemini CLI 0.61's
// `gemini skills install|link|uninstall` do (skillUtils.ts): a skill is
// copied (or linked) to <target>/<its name>, target being the user's
// ~/.gemini/skills or the workspace's .gemini/skills, so what one tool
// installed the other lists and removes.

// maxSkillArchive bounds what a .skill archive may unpack to.
const maxSkillArchive = 256 << 20

// LoadDir is the valid skills of dir, as 0.61's loadSkillsFromDir finds
// them: dir's SKILL.md and its subdirectories'; one that is not a skill
// is left out. A missing dir has none.
func LoadDir(dir string) []Skill {
	var out []Skill
	for _, path := range skillFiles(dir) {
		if s, err := Load(path); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// Installed is a skill put in place: its name and directory.
type Installed struct {
	Name, Location string
}

// Install is what to install, from where, to where.
type Install struct {
	// Source is a git repository's URL (git@..., http://, https://), a
	// .skill archive (a zip) or a local directory.
	Source string
	// Subpath is the directory within the source the skills are in.
	Subpath string
	// Target is the skills directory they go to.
	Target string
	// Log tells the user what is happening, in 0.61's words.
	Log func(string)
	// Consent is asked with the skills found and the target before
	// anything is written; false cancels.
	Consent func(found []Skill, target string) (bool, error)
}

// IsGitSource reports whether source is installed with git, as 0.61
// decides it.
func IsGitSource(source string) bool {
	return strings.HasPrefix(source, "git@") || strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://")
}

// Run installs the skills: each skill directory found is copied to
// Target/<name>, replacing what was there.
func (in Install) Run(ctx context.Context) ([]Installed, error) {
	source := in.Source
	isArchive := strings.HasSuffix(strings.ToLower(in.Source), ".skill")
	var temp string
	if IsGitSource(in.Source) || isArchive {
		dir, err := os.MkdirTemp("", "gemini-skill-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		temp, source = dir, dir
		if IsGitSource(in.Source) {
			in.Log("Cloning skill from " + in.Source + "...")
			if err := clone(ctx, in.Source, dir); err != nil {
				return nil, err
			}
		} else {
			in.Log("Extracting skill from " + in.Source + "...")
			if err := unzip(in.Source, dir); err != nil {
				return nil, fmt.Errorf("extracting %s: %w", in.Source, err)
			}
		}
	}
	if in.Subpath != "" {
		source = filepath.Join(source, in.Subpath)
	}
	source, err := filepath.Abs(source)
	if err != nil {
		return nil, err
	}
	if temp != "" && !within(temp, source) {
		return nil, errors.New("Invalid path: Directory traversal not allowed.")
	}
	in.Log("Searching for skills in " + source + "...")
	found := LoadDir(source)
	if len(found) == 0 {
		at := ""
		if in.Subpath != "" {
			at = fmt.Sprintf(" at path %q", in.Subpath)
		}
		return nil, fmt.Errorf("No valid skills found in %s%s. Ensure a SKILL.md file exists with valid frontmatter.", in.Source, at)
	}
	ok, err := in.Consent(found, in.Target)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("Skill installation cancelled by user.")
	}
	return place(found, in.Target, in.Log, "Skill %q already exists. Overwriting...", func(from, to string) error {
		return copyDir(from, to)
	})
}

// Link links each skill found in source into target (Target/<name> a
// symbolic link to its directory), as 0.61's skills link.
func Link(source, target string, log func(string), consent func([]Skill, string) (bool, error)) ([]Installed, error) {
	source, err := filepath.Abs(source)
	if err != nil {
		return nil, err
	}
	log("Searching for skills in " + source + "...")
	found := LoadDir(source)
	if len(found) == 0 {
		return nil, fmt.Errorf("No valid skills found in %q. Ensure a SKILL.md file exists with valid frontmatter.", source)
	}
	seen := map[string]string{}
	for _, s := range found {
		if at, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("Duplicate skill name %q found at multiple locations:\n  - %s\n  - %s", s.Name, at, s.Location)
		}
		seen[s.Name] = s.Location
	}
	ok, err := consent(found, target)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("Skill linking cancelled by user.")
	}
	return place(found, target, log, "Skill %q already exists at destination. Overwriting...", os.Symlink)
}

// place puts each skill's directory at target/<name> with put, what was
// there removed first.
func place(found []Skill, target string, log func(string), overwriting string, put func(from, to string) error) ([]Installed, error) {
	target, err := filepath.Abs(target)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(target, 0o755); err != nil {
		return nil, err
	}
	var out []Installed
	for _, s := range found {
		dest := filepath.Join(target, s.Name)
		if !strictlyWithin(target, dest) {
			return out, errors.New("Invalid skill name: Path traversal detected.")
		}
		if _, err := os.Lstat(dest); err == nil {
			log(fmt.Sprintf(overwriting, s.Name))
			if err := os.RemoveAll(dest); err != nil {
				return out, err
			}
		}
		if err := put(s.Dir(), dest); err != nil {
			return out, fmt.Errorf("putting skill %s in %s: %w", s.Name, dest, err)
		}
		out = append(out, Installed{Name: s.Name, Location: dest})
	}
	return out, nil
}

// Uninstall removes the skill called name from target, as 0.61's skills
// uninstall: the directory of the skill of that name there, else
// target/name itself when it exists. location is "" when there was none.
func Uninstall(name, target string) (location string, err error) {
	target, err = filepath.Abs(target)
	if err != nil {
		return "", err
	}
	dir := ""
	for _, s := range LoadDir(target) {
		if s.Name == name {
			dir = s.Dir()
			break
		}
	}
	if dir == "" {
		dir = filepath.Join(target, name)
		if _, err := os.Lstat(dir); err != nil {
			return "", nil
		}
	}
	if !strictlyWithin(target, dir) {
		return "", nil
	}
	// A linked skill is its link: RemoveAll removes the link alone.
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("removing %s: %w", dir, err)
	}
	return dir, nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// strictlyWithin reports whether path is below dir, not dir itself.
func strictlyWithin(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return within(dir, path) && err == nil && rel != "."
}

// clone clones the repository at url into dir with the git binary, its
// default branch's last commit only, as 0.61 does.
func clone(ctx context.Context, url, dir string) error {
	cmd := spawn.Command(ctx, spawn.Helper{Name: "git"}, "git", "clone", "--depth", "1", "--quiet", "--", url, dir)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(err, spawn.ErrNotFound) {
			return fmt.Errorf("Failed to clone Git repository from %s: git is not installed (https://git-scm.com), and a skill is cloned with it", url)
		}
		return fmt.Errorf("Failed to clone Git repository from %s %v: %s", url, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// unzip extracts the zip archive at path into dir: no entry outside it,
// no more than maxSkillArchive bytes.
func unzip(path, dir string) error {
	r, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer r.Close()
	var total int64
	for _, f := range r.File {
		dest := filepath.Join(dir, f.Name)
		if !within(dir, dest) {
			return fmt.Errorf("the entry %q would go outside the archive's directory", f.Name)
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			continue // links and devices: nothing a skill needs
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		n, err := extract(f, dest, maxSkillArchive-total)
		if err != nil {
			return err
		}
		total += n
	}
	return nil
}

func extract(f *zip.File, dest string, room int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, f.Mode().Perm()|0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, room+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = fmt.Errorf("it unpacks to more than %d bytes", maxSkillArchive)
	}
	return n, err
}

// copyDir copies the directory from to to, as Node's fs.cp with
// recursive does: files with their modes, symbolic links as links.
func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dest := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dest, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, dest)
		case info.Mode().IsRegular():
			return copyFile(path, dest, info.Mode().Perm())
		}
		return nil // a FIFO or device is no part of a skill
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ConsentText is what 0.61 shows before installing (or linking) found
// from source into target (skillsConsentString).
func ConsentText(found []Skill, source, target string, link bool) string {
	action := "Installing"
	dest := "Install"
	if link {
		action, dest = "Linking", "Link"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s agent skill(s) from \"%s\".\n", action, source)
	fmt.Fprintf(&b, "\nThe following agent skill(s) will be %s:\n\n", strings.ToLower(action))
	for _, s := range found {
		fmt.Fprintf(&b, "  * %s: %s\n", s.Name, s.Description)
		count := " \u26a0\ufe0f (Could not count items in directory)"
		if entries, err := os.ReadDir(s.Dir()); err == nil {
			count = fmt.Sprintf(" (%d items in directory)", len(entries))
		}
		fmt.Fprintf(&b, "    (Source: %s)%s\n\n", s.Location, count)
	}
	if target != "" {
		fmt.Fprintf(&b, "%s Destination: %s\n", dest, target)
	}
	b.WriteString("\nAgent skills inject specialized instructions and domain-specific knowledge into the agent's system prompt. This can change how the agent interprets your requests and interacts with your environment. Review the skill definitions at the location(s) provided below to ensure they meet your security standards.")
	return b.String()
}
