package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Mount is one of SANDBOX_MOUNTS, FROM[:TO[:OPTS]] as 0.61 reads it: the
// host's path From at To in the sandbox (From when not given), with
// docker's --volume options Opts ("ro" when not given).
type Mount struct{ From, To, Opts string }

// writable says the mount may be written: docker's rule, read-write
// unless "ro" is among the options (one option here: SANDBOX_MOUNTS
// separates mounts by commas).
func (m Mount) writable() bool { return m.Opts != "ro" && m.Opts != "readonly" }

// parseMounts reads SANDBOX_MOUNTS, a comma-separated list of mounts.
func parseMounts(v string) ([]Mount, error) {
	var out []Mount
	for entry := range strings.SplitSeq(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		// A Windows path's drive letter is no separator.
		drive := ""
		if workspace.HasDrive(entry) {
			drive, entry = entry[:2], entry[2:]
		}
		parts := strings.Split(entry, ":")
		if len(parts) > 3 {
			return nil, fmt.Errorf("SANDBOX_MOUNTS entry '%s' is not FROM[:TO[:OPTS]]", drive+entry)
		}
		parts = append(parts, "", "")
		m := Mount{From: drive + parts[0], To: parts[1], Opts: parts[2]}
		if !filepath.IsAbs(m.From) {
			return nil, fmt.Errorf("Path '%s' listed in SANDBOX_MOUNTS must be absolute", m.From)
		}
		m.From = filepath.Clean(m.From)
		// TO is the container's path, a POSIX one, on Windows too; its
		// own path when not given.
		switch {
		case m.To == "":
			m.To = m.From
		case !path.IsAbs(m.To):
			return nil, fmt.Errorf("Path '%s' listed in SANDBOX_MOUNTS must be absolute", m.To)
		default:
			m.To = path.Clean(m.To)
		}
		if m.Opts == "" {
			m.Opts = "ro"
		}
		out = append(out, m)
	}
	return out, nil
}

// parseEnvList reads SANDBOX_ENV, a comma-separated list of KEY=VALUE.
func parseEnvList(v string) ([]string, error) {
	var out []string
	for entry := range strings.SplitSeq(v, ",") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		if k, _, ok := strings.Cut(entry, "="); !ok || k == "" {
			return nil, errors.New("SANDBOX_ENV must be a comma-separated list of key=value pairs")
		}
		out = append(out, entry)
	}
	return out, nil
}

// sensitiveSettingsFiles are 0.61's SENSITIVE_SETTINGS_FILENAMES: files
// no SANDBOX_MOUNTS entry may name, wherever they are.
var sensitiveSettingsFiles = []string{
	"oauth_creds.json", "google_accounts.json", "gemini-credentials.json", "mcp-oauth-tokens.json",
	"a2a-oauth-tokens.json", "trusted_hooks.json", "trustedfolders.json", "policy_integrity.json",
}

// checkMounts refuses a mount the sandbox cannot give, or must not:
//   - a path that is missing, as 0.61 refuses it;
//   - one 0.61 calls sensitive: the home directory or a directory above
//     it, the Gemini directory, a path in it or above it, a .env file,
//     a file named like the Gemini directory's secrets;
//   - gemini-ls's own: a path that is, lies in or holds one of the
//     credentials every sandbox hides (~/.ssh, ~/.config/gcloud, …);
//   - a writable path mounted elsewhere than at its own path, where the
//     project files the sandbox keeps read-only in a writable path
//     (.git/config, .git/hooks, .gemini, .env files) would be writable;
//   - a path mounted over the home directory, a writable path, or a
//     directory that holds one: the sandbox's own mounts go there;
//   - under bubblewrap, a path mounted where nothing is on the host:
//     bwrap cannot make a mount point in the read-only root.
func (s *Sandbox) checkMounts() error {
	if len(s.cfg.Mounts) == 0 {
		return nil // no paths to list at start-up
	}
	taken := append(s.writable(), s.home)
	s.mountedReal = make([]string, len(s.cfg.Mounts))
	for i, m := range s.cfg.Mounts {
		real, err := filepath.EvalSymlinks(m.From)
		if err != nil {
			return fmt.Errorf("Missing mount path '%s' listed in SANDBOX_MOUNTS", m.From)
		}
		s.mountedReal[i] = real
		if why := s.sensitive(real); why != "" {
			return fmt.Errorf("Mounting sensitive host path '%s' listed in SANDBOX_MOUNTS is strictly prohibited (%s)", m.From, why)
		}
		if m.writable() && m.To != m.From {
			return fmt.Errorf("SANDBOX_MOUNTS entry '%s:%s:%s': gemini-ls mounts a writable path at its own path only, where the project files it keeps read-only stay so; write it '%s::%s'", m.From, m.To, m.Opts, m.From, m.Opts)
		}
		if m.To != m.From {
			for _, p := range taken {
				if p != "" && workspace.Within(m.To, p) {
					return fmt.Errorf("SANDBOX_MOUNTS entry '%s:%s': %s holds %s, which the sandbox mounts itself", m.From, m.To, m.To, p)
				}
			}
		}
		if s.cfg.Command == Bubblewrap {
			if _, err := os.Stat(m.To); err != nil {
				return fmt.Errorf("SANDBOX_MOUNTS entry '%s:%s': under bubblewrap a path is mounted over one that exists on the host, and %s does not", m.From, m.To, m.To)
			}
		}
	}
	return nil
}

// unchanged refuses a command whose mounts no longer lead where they did
// when checked: a command may replace a path in a writable one with a
// link (to ~/.ssh, say), which the next sandbox's mount would follow.
func (s *Sandbox) unchanged() error {
	for i, m := range s.cfg.Mounts {
		checked := ""
		if i < len(s.mountedReal) {
			checked = s.mountedReal[i]
		}
		if real, err := filepath.EvalSymlinks(m.From); err != nil || real != checked {
			return fmt.Errorf("SANDBOX_MOUNTS path '%s' no longer leads where it did when the sandbox was set up; nothing is mounted from it", m.From)
		}
	}
	return nil
}

// sensitive says why real, a resolved path, must not be mounted: "" when
// it may be.
func (s *Sandbox) sensitive(real string) string {
	name := strings.ToLower(filepath.Base(real))
	switch {
	case isSecretFile(name):
		return "a .env file"
	case slices.Contains(sensitiveSettingsFiles, name):
		return "a file of Gemini's credentials or trust"
	}
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	if s.home != "" {
		if home := resolve(s.home); workspace.Within(real, home) {
			return "the home directory, or a directory that holds it"
		}
	}
	if s.geminiDir != "" {
		if g := resolve(s.geminiDir); workspace.Within(real, g) || workspace.Within(g, real) {
			return "the Gemini directory's"
		}
	}
	for _, rel := range secretPaths {
		if s.home == "" {
			break
		}
		secret := filepath.Join(s.home, rel)
		if _, err := os.Lstat(secret); err != nil {
			continue
		}
		if secret = resolve(secret); workspace.Within(real, secret) || workspace.Within(secret, real) {
			return "the user's credentials, ~/" + rel
		}
	}
	return ""
}
