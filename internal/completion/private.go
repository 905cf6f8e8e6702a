package completion

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// recheckPrivacy is how long a file's privacy is taken as decided: an
// ignore file may change meanwhile.
const recheckPrivacy = 30 * time.Second

// privacy decides which files never leave the machine: secrets by their
// names, what the workspace ignores (.gitignore, .geminiignore, as the
// settings say), what inlineCompletion.exclude names, and anything outside
// the workspace's roots.
type privacy struct {
	ws *workspace.Workspace

	mu      sync.Mutex
	exclude []string
	decided map[string]privacyVerdict
}

type privacyVerdict struct {
	private bool
	at      time.Time
}

func (p *privacy) setExclude(globs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exclude = append([]string(nil), globs...)
	p.decided = nil
}

func (p *privacy) forget(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.decided, path)
}

// isPrivate reports whether nothing of path may be sent; when it cannot
// tell, it is.
func (p *privacy) isPrivate(ctx context.Context, path string) bool {
	now := time.Now()
	p.mu.Lock()
	v, ok := p.decided[path]
	exclude := p.exclude
	p.mu.Unlock()
	if ok && now.Sub(v.at) < recheckPrivacy {
		return v.private
	}
	private := p.decide(ctx, path, exclude)
	p.mu.Lock()
	if p.decided == nil {
		p.decided = make(map[string]privacyVerdict)
	}
	p.decided[path] = privacyVerdict{private: private, at: now}
	p.mu.Unlock()
	return private
}

func (p *privacy) decide(ctx context.Context, path string, exclude []string) bool {
	if secretName(filepath.Base(path)) {
		return true
	}
	if p.ws == nil {
		return true
	}
	resolved, err := p.ws.Resolve(path)
	if err != nil {
		return true // outside the roots, or unreadable
	}
	root := p.ws.RootOf(resolved)
	rel, err := filepath.Rel(root, resolved)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	for _, part := range strings.Split(rel, "/") {
		if secretDir(part) {
			return true
		}
	}
	for _, g := range exclude {
		if ok, err := doublestar.Match(g, rel); ok || err != nil {
			return true // a glob that does not parse keeps the files in
		}
	}
	// Every ignore file, whichever the agent's searches obey.
	ignored, err := p.ws.IgnoredByAny(ctx, resolved)
	return ignored || err != nil
}

// secretName reports whether a file's name says it holds secrets.
func secretName(name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case ".env", ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass",
		"credentials", "credentials.json", "application_default_credentials.json",
		"oauth_creds.json", "google_accounts.json", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
		"authorized_keys", "known_hosts", ".htpasswd", "secrets.json", "secrets.yaml", "secrets.yml":
		return true
	}
	if strings.HasPrefix(lower, ".env.") || strings.HasSuffix(lower, ".env") {
		return true
	}
	for _, prefix := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(lower, prefix) {
			return true
		}
	}
	switch filepath.Ext(lower) {
	case ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".gpg", ".asc", ".ppk", ".tfvars", ".tfstate":
		return true
	}
	return false
}

// secretDir reports whether a directory's name says what is in it is
// secret.
func secretDir(name string) bool {
	switch name {
	case ".ssh", ".gnupg", ".aws", ".gcloud", ".docker", ".kube":
		return true
	}
	return false
}
