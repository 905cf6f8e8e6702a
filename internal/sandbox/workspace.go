package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// governingPath, in each workspace root, configures what runs outside
// the sandbox later: gemini-ls's and Gemini CLI's project settings (their
// hooks, MCP servers, commands, policies) and git's hooks and config,
// which the user's own git runs. A sandboxed command may read them but
// not change them, lest it plant what runs unsandboxed next.
type governingPath struct {
	rel   string
	isDir bool
	// pinned is mounted writable onto itself: its contents stay the
	// command's to change, but a mount point cannot be renamed or
	// removed, so the read-only paths inside it cannot be moved aside
	// and replaced (mv .git .old; mkdir -p .git/hooks).
	pinned bool
}

var governingPaths = []governingPath{
	{rel: ".gemini", isDir: true},
	{rel: ".git", isDir: true, pinned: true},
	{rel: ".git/hooks", isDir: true},
	{rel: ".git/config"},
}

// governing are the mounts that keep the governing paths read-only. As
// 0.61's LinuxSandboxManager (ensureGovernanceFilesExist), those missing
// are first made, empty, so that none can be planted where none was; a
// .git that is a file (a git worktree's pointer to its git directory) is
// read-only itself.
func (s *Sandbox) governing() ([]mount, error) {
	var out []mount
	for _, root := range s.roots() {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			continue // a root gone: nothing to plant in, nothing to make
		}
		for _, g := range governingPaths {
			p := filepath.Join(root, g.rel)
			info, err := ensureExists(p, g.isDir)
			switch {
			case cannotCreate(err):
				// Not even gemini-ls may make it here, so neither may the
				// command, which runs as the same user with fewer rights.
				continue
			case err != nil:
				return nil, fmt.Errorf("making the empty %s the sandbox keeps read-only: %w", p, err)
			case g.pinned && info.IsDir():
				out = append(out, mount{[]string{"--bind", p, p}, p})
			default:
				out = append(out, mount{[]string{"--ro-bind", p, p}, p})
			}
		}
	}
	return out, nil
}

// ensureExists makes p, an empty directory or file, unless something is
// there already, and says what is there.
func ensureExists(p string, isDir bool) (fs.FileInfo, error) {
	if info, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return info, err
	}
	var err error
	if isDir {
		err = os.MkdirAll(p, 0o755)
	} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
		var f *os.File
		if f, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

// cannotCreate says that err is the file system refusing the path for
// any user: no permission, read-only, or a file where a directory would
// be (a worktree's .git).
func cannotCreate(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}

// maskDepth and maskSkipped are how far 0.61 looks for .env files under
// each writable path (find -maxdepth 3) and the directories it does not
// enter.
const maskDepth = 3

var maskSkipped = []string{".git", "node_modules", ".venv", "__pycache__", "dist", "build"}

// masked are the mounts that hide the .env and .env.* files in the
// writable paths, as 0.61 masks them: they hold the project's secrets.
// Each reads as empty and cannot be written.
func (s *Sandbox) masked() []mount {
	var out []mount
	for _, dir := range s.writable() {
		for _, p := range secretFiles(dir) {
			out = append(out, mount{[]string{"--ro-bind", os.DevNull, p}, p})
		}
	}
	return out
}

// secretFiles are the .env and .env.* files under dir, at most maskDepth
// deep, outside the skipped directories. An unreadable directory is
// passed over, as find does.
func secretFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		depth := 0
		if p != dir {
			depth = strings.Count(p[len(dir):], string(filepath.Separator))
		}
		switch {
		case d.IsDir() && p != dir && (depth >= maskDepth || slices.Contains(maskSkipped, d.Name())):
			return filepath.SkipDir
		case !d.IsDir() && isSecretFile(d.Name()) && isRegular(p):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// isSecretFile is 0.61's: .env, or .env.<anything>.
func isSecretFile(name string) bool {
	return name == ".env" || strings.HasPrefix(name, ".env.")
}

// isRegular says p is, or links to, a regular file.
func isRegular(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}
