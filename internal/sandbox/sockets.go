package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// runtimeDirs hold the host's service sockets (Docker's, D-Bus's, the
// SSH and GPG agents' under /run/user/UID): each becomes an empty tmpfs,
// so that a named socket is the only one found there even where Unix
// sockets may be made (tools.sandboxAllowedSockets).
func runtimeDirs(env []string) []string {
	dirs := []string{"/run", "/var/run"}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok && filepath.IsAbs(v) {
			dirs = append(dirs, v)
		}
	}
	return dirs
}

// runtimeMounts mask the runtime directories, each at its real path
// (/var/run is most often a link to /run). What a program needs from
// them comes back: the links at their top (NixOS's /run/current-system,
// where its programs live) and /etc/resolv.conf's target (systemd-resolved
// keeps it in /run), read-only.
func runtimeMounts(env []string) []mount {
	var out []mount
	var masked []string
	for _, dir := range runtimeDirs(env) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || slices.Contains(masked, real) || real == "/" {
			continue
		}
		masked = append(masked, real)
		out = append(out, mount{[]string{"--tmpfs", real}, real})
		entries, _ := os.ReadDir(real)
		for _, e := range entries {
			p := filepath.Join(real, e.Name())
			if e.Type()&os.ModeSymlink == 0 {
				continue
			}
			if target, err := os.Readlink(p); err == nil {
				out = append(out, mount{[]string{"--symlink", target, p}, p})
			}
		}
	}
	if resolv, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
		for _, dir := range masked {
			if workspace.Within(dir, resolv) {
				out = append(out, mount{[]string{"--ro-bind", resolv, resolv}, resolv})
				break
			}
		}
	}
	return out
}

// socketMounts bring back the sockets the user named, at their real
// paths, over the masked runtime directories. A socket not there yet
// (its daemon not started) is skipped.
func (s *Sandbox) socketMounts() []mount {
	var out []mount
	for _, p := range s.cfg.AllowedSockets {
		real, err := filepath.EvalSymlinks(expandHome(s.home, p))
		if err != nil || !filepath.IsAbs(real) {
			continue
		}
		out = append(out, mount{[]string{"--ro-bind", real, real}, real})
	}
	return out
}
