package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
)

// governing are the mounts that keep read-only, in each workspace root,
// what configures the programs run outside the sandbox later: gemini-ls's
// and Gemini CLI's project settings, .gemini (their hooks, MCP servers,
// commands, policies), and every file through which git runs a program
// (gitProtector). As 0.61's LinuxSandboxManager (ensureGovernanceFilesExist),
// those missing are first made, empty, so that none can be planted where
// none was.
func (s *Sandbox) governing() ([]mount, error) {
	g := newGitProtector(s.writable(), s.home)
	for _, root := range s.roots() {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			continue // a root gone: nothing to plant in, nothing to make
		}
		for _, f := range configfiles.Names() {
			p := filepath.Join(root, filepath.FromSlash(f.Name))
			switch f.Sandbox {
			case configfiles.MadeEmpty:
				if err := g.keep(p, emptyDir); err != nil {
					return nil, err
				}
			case configfiles.KeptOrSetAside:
				// The editors', git's and the shell's project
				// configuration, and .agents, that is there. One not
				// there is not made, as .gemini is: an empty .vscode or
				// .nvim.lua in every project would be noise, and .envrc
				// or .nvim.lua ask the user to trust them when they
				// appear. One a command makes is set aside
				// (projectConfigs).
				if _, err := os.Lstat(p); err != nil {
					continue // not there: one stat, not keep's resolving of the path
				}
				if err := g.keep(p, none); err != nil {
					return nil, err
				}
			}
		}
		if err := g.root(root); err != nil {
			return nil, err
		}
	}
	for _, p := range s.cfg.UserConfig {
		if err := g.keep(p, emptyDir); err != nil {
			return nil, err
		}
	}
	// The repositories in subdirectories that were there when the
	// sandbox first looked (before its first command), the user's.
	for _, f := range s.gitWatch.userGitDirs() {
		if err := g.userRepo(f); err != nil {
			return nil, err
		}
	}
	// gemini-ls's own records of what sandboxes may do, where a command
	// could write them (a root that is the home directory, a state
	// directory in the workspace): erased, a planted .env would no
	// longer be moved aside, nor a planted .gemini asked about.
	for _, dir := range []string{s.cfg.WatchDir, s.cfg.Trail.Dir()} {
		if dir == "" {
			continue
		}
		if err := g.keep(dir, emptyDir); err != nil {
			return nil, err
		}
	}
	g.pinParents()
	return g.mounts, nil
}

// rootConfigs are the names in a root whose file configures a program
// run outside the sandbox later, that a sandbox keeps read-only where
// there and sets aside where a command makes one: those
// internal/configfiles declares so (KeptOrSetAside), .agents' MCP
// servers, .vscode's tasks, .zed's and .helix's language servers,
// .nvim.lua, .dir-locals.el, .envrc, .husky's hooks, .geminiignore (0.61
// keeps it read-only too). .gemini is made, .git and .env kept otherwise.
func rootConfigs() []string {
	var out []string
	for _, f := range configfiles.Names() {
		if f.Sandbox == configfiles.KeptOrSetAside {
			out = append(out, f.Name)
		}
	}
	return out
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
		// filepath.WalkDir does not follow a link it starts at: a root
		// opened through one is walked at its real path.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		for _, p := range secretFiles(dir) {
			// A .env that links elsewhere is masked where bwrap's mount
			// lands, its target, and ordered by it.
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			if !slices.ContainsFunc(out, func(m mount) bool { return m.dest == p }) {
				out = append(out, mount{[]string{"--ro-bind", os.DevNull, p}, p})
			}
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
