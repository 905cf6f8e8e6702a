package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/gitmark"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// DefaultFileName is Gemini CLI's context file name, the first of
// DefaultFileNames.
const DefaultFileName = "GEMINI.md"

// AgentsFileName is the context file most other agents read by default
// (Codex, Cursor, Copilot, opencode, Zed, Antigravity).
const AgentsFileName = "AGENTS.md"

// DefaultFileNames are the context file names when settings name none:
// GEMINI.md, then AGENTS.md. Gemini CLI 0.61 reads AGENTS.md only when
// context.fileName names it; gemini-ls reads it by default on purpose,
// so a repository written for the other agents gives the model its
// context too.
func DefaultFileNames() []string { return []string{DefaultFileName, AgentsFileName} }

// MaxFileSize bounds one context file, and the text one file's imports
// may add; Gemini CLI has no bound, but a context file is instructions,
// not data, and every byte of it is sent with every request. A larger
// file is skipped whole.
const MaxFileSize = 1 << 20

// Config is what a Loader reads.
type Config struct {
	// Workspace gives the roots and the editor's buffers. Required.
	Workspace *workspace.Workspace
	// UserDir is the user's Gemini directory (settings.UserDir), holding
	// the global context files; "" for none.
	UserDir string
	// FileNames are settings' context.fileName, in order; empty means
	// DefaultFileNames. A name may hold a subdirectory ("docs/AGENTS.md") but not
	// be absolute or climb out with "..".
	FileNames []string
	// Trusted reports whether a root is a trusted folder; an untrusted
	// root's project files are not loaded, as in Gemini CLI. nil trusts
	// every root.
	Trusted func(root string) bool
	// Extensions are the enabled extensions' context files, read after
	// the global files and before the project's, as Gemini CLI orders
	// them; each is read in the scope of its extension's directory.
	Extensions []ExtensionFiles
	// PrivateDir finds the project's private memory directory,
	// ~/.gemini/tmp/<project>/memory in Gemini CLI's place, whose
	// MEMORY.md joins the memory; called until it gives one, which is
	// then kept. nil, or "", for none.
	PrivateDir func() (string, error)
	// Logger gets what was skipped and why. nil discards.
	Logger *zap.Logger
}

// ExtensionFiles are one extension's context files: absolute paths in
// Dir, its directory, which their imports may not leave.
type ExtensionFiles struct {
	Dir   string
	Files []string
}

// Loader finds, reads and renders context files; see the package doc.
// It is safe for concurrent use.
type Loader struct {
	ws      *workspace.Workspace
	userDir string
	names   []string
	// defaulted is true when names are DefaultFileNames: then AGENTS.md
	// is named in the memory's heading only when one was read, so
	// without one the model gets 0.61's words.
	defaulted bool
	trusted   func(string) bool
	exts      []ExtensionFiles
	guard     guard
	log       *zap.Logger
	// privateDir finds the private memory directory; private is it once
	// found (under mu).
	privateDir func() (string, error)

	mu      sync.Mutex
	private string
	cache   map[cacheKey]cached
	// seen is, per session, the files Discover has already returned.
	seen map[string]map[string]bool
}

// New returns a loader over cfg.
func New(cfg Config) *Loader {
	l := &Loader{
		ws:         cfg.Workspace,
		userDir:    cfg.UserDir,
		trusted:    cfg.Trusted,
		exts:       cfg.Extensions,
		log:        cfg.Logger,
		privateDir: cfg.PrivateDir,
		cache:      make(map[cacheKey]cached),
		seen:       make(map[string]map[string]bool),
	}
	if l.log == nil {
		l.log = zap.NewNop()
	}
	if l.userDir != "" {
		if abs, err := filepath.Abs(l.userDir); err == nil {
			l.userDir = abs
		}
	}
	l.names = cleanNames(cfg.FileNames, l.log)
	l.defaulted = slices.Equal(l.names, DefaultFileNames())
	l.guard = newGuard(l.userDir, l.names)
	return l
}

// FileNames are the context file names the loader looks for.
func (l *Loader) FileNames() []string { return append([]string(nil), l.names...) }

// NamesDefaulted reports whether the names are DefaultFileNames, which
// read AGENTS.md where Gemini CLI 0.61 would not.
func (l *Loader) NamesDefaulted() bool { return l.defaulted }

// ShownNames are the names the memory's heading gives for files read:
// the configured names, but AGENTS.md left out of the defaults when no
// file read is one, as 0.61 (which reads only GEMINI.md by default)
// would word it.
func (l *Loader) ShownNames(read []string) []string {
	if !l.defaulted || slices.ContainsFunc(read, IsAgentsFile) {
		return l.FileNames()
	}
	return []string{DefaultFileName}
}

// IsAgentsFile reports whether path is an AGENTS.md.
func IsAgentsFile(path string) bool { return filepath.Base(path) == AgentsFileName }

// cleanNames trims, deduplicates and checks the configured names.
func cleanNames(names []string, log *zap.Logger) []string {
	var out []string
	seen := make(map[string]bool)
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		clean := filepath.Clean(n)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			log.Warn("ignoring context.fileName that leaves the directory", zap.String("name", n))
			continue
		}
		if !seen[clean] {
			seen[clean] = true
			out = append(out, clean)
		}
	}
	if len(out) == 0 {
		return DefaultFileNames()
	}
	return out
}

// file is one context file found, read through its scope.
type file struct {
	path  string // as found: directory + name, the name the wrapper shows
	scope *scope
	tier  tier
	// rule is an Antigravity rule (rules.go): read without its front
	// matter, and only when it applies to every request.
	rule bool
}

// SystemMemory is the section for the end of the system instruction, as
// Gemini CLI renders it (renderUserMemory). Without private memory, a
// string memory: a heading naming the file names, the precedence rules,
// and every global, extension and project file's block inside
// <loaded_context>. With the private MEMORY.md holding text, the object
// form 0.61 then uses: each tier's blocks in its own tag, the index
// framed as private. It is "" when no file has text. Unreadable files
// are skipped and logged; the error is only ctx's.
func (l *Loader) SystemMemory(ctx context.Context) (string, error) {
	files := l.systemFiles()
	blocks := make(map[tier][]string)
	var all, read []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if text, ok := l.load(ctx, f); ok {
			blocks[f.tier] = appendBlock(blocks[f.tier], f.path, text)
			all = appendBlock(all, f.path, text)
			read = append(read, f.path)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	switch {
	case len(all) == 0:
		return "", nil
	case len(blocks[tierPrivate]) > 0:
		return renderTiers(blocks), nil
	}
	return renderUserMemory(strings.Join(all, "\n\n"), l.ShownNames(read)), nil
}

// File is a context file in the memory: its path and the length in bytes
// of its text, imports expanded.
type File struct {
	Path string
	Size int
}

// Files lists the context files SystemMemory holds now, in its order: the
// files it skips (unreadable, or blank) are left out.
func (l *Loader) Files(ctx context.Context) ([]File, error) {
	var out []File
	for _, f := range l.systemFiles() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if text, ok := l.load(ctx, f); ok && strings.TrimSpace(text) != "" {
			out = append(out, File{Path: f.path, Size: len(strings.TrimSpace(text))})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// systemFiles lists the global files, then the extensions', then each
// trusted root's from its git root down, then the private memory's, each
// file once.
func (l *Loader) systemFiles() []file {
	var files []file
	seen := make(map[string]bool) // by resolved path
	add := func(path string, sc *scope, t tier) {
		key := path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			key = real
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, file{path: path, scope: sc, tier: t})
		}
	}
	if global := l.globalScope(); global != nil {
		for _, name := range l.names {
			if p := filepath.Join(l.userDir, name); present(l.ws.Documents(), p) {
				add(p, global, tierGlobal)
			}
		}
	}
	for _, ext := range l.exts {
		sc, err := newScope(ext.Dir, nil, l.ws.Documents())
		if err != nil {
			l.log.Warn("cannot read an extension's context files", zap.String("dir", ext.Dir), zap.Error(err))
			continue
		}
		for _, p := range ext.Files {
			if present(l.ws.Documents(), p) {
				add(p, sc, tierExtension)
			}
		}
	}
	for _, root := range l.ws.Roots() {
		if l.trusted != nil && !l.trusted(root) {
			continue
		}
		sc := l.projectScope(root)
		if sc == nil {
			continue
		}
		for _, dir := range dirsDown(sc.root, root) {
			if dir == l.userDir {
				continue // the global files are loaded as such
			}
			for _, name := range l.names {
				if p := filepath.Join(dir, name); present(l.ws.Documents(), p) {
					add(p, sc, tierProject)
				}
			}
		}
		for _, p := range l.ruleFiles(root) {
			files = addRule(files, seen, p, sc)
		}
	}
	for _, f := range l.privateFiles() {
		add(f.path, f.scope, f.tier)
	}
	return files
}

// addRule adds the rule file at path to files unless seen holds it.
func addRule(files []file, seen map[string]bool, path string, sc *scope) []file {
	key := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		key = real
	}
	if seen[key] {
		return files
	}
	seen[key] = true
	return append(files, file{path: path, scope: sc, tier: tierProject, rule: true})
}

// dirsDown lists the directories from top down to dir (both included);
// dir must be top or below it.
func dirsDown(top, dir string) []string {
	var up []string
	for d := dir; ; d = filepath.Dir(d) {
		up = append(up, d)
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}

// projectScope is the scope of root's project files: its git root, or the
// root itself outside git.
func (l *Loader) projectScope(root string) *scope {
	top := gitmark.Root(root) // not the empty .git a sandbox makes
	if top == "" {
		top = root
	}
	sc, err := newScope(top, nil, l.ws.Documents())
	if err != nil {
		l.log.Warn("cannot read context files", zap.String("root", root), zap.Error(err))
		return nil
	}
	// The agent's choice of ignore files holds above the roots too.
	sc.ws.SetIgnoreFiles(l.ws.IgnoreFiles())
	return sc
}

// globalScope is the user's Gemini directory, plus the directory of each
// global file's symlink target; nil when the directory does not exist.
func (l *Loader) globalScope() *scope {
	if l.userDir == "" {
		return nil
	}
	if fi, err := os.Stat(l.userDir); err != nil || !fi.IsDir() {
		return nil
	}
	var extra []string
	for _, name := range l.names {
		p := filepath.Join(l.userDir, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				extra = append(extra, filepath.Dir(real))
			}
		}
	}
	sc, err := newScope(l.userDir, extra, l.ws.Documents())
	if err != nil {
		l.log.Warn("cannot read global context files", zap.String("dir", l.userDir), zap.Error(err))
		return nil
	}
	return sc
}

// load returns f's text with its imports expanded, from the cache when
// neither f nor anything it imported changed; ok is false when f cannot
// be read (logged).
func (l *Loader) load(ctx context.Context, f file) (string, bool) {
	if l.guard.refuses(f.path) {
		l.log.Warn("skipping context file: it may hold credentials or settings", zap.String("path", f.path))
		return "", false
	}
	key := cacheKey{scope: f.scope.root, path: f.path}
	l.mu.Lock()
	c, hit := l.cache[key]
	l.mu.Unlock()
	b := l.boundsOf(f)
	if hit && c.fresh(f.scope) && (b == nil || b.hold(ctx, c.verdicts)) {
		return c.text, c.ok
	}
	exp := &expander{scope: f.scope, guard: l.guard, bounds: b, log: l.log}
	text, err := exp.file(ctx, f.path)
	if ctx.Err() != nil {
		return "", false // not cached: the next call reads it whole
	}
	c = cached{deps: exp.deps, verdicts: exp.judged, text: text, ok: err == nil}
	if err != nil {
		l.log.Warn("skipping context file", zap.String("path", f.path), zap.Error(err))
	}
	if f.rule && c.ok {
		var why string
		if c.text, c.ok, why = ruleBody(c.text); !c.ok {
			l.log.Info("not reading an Antigravity rule", zap.String("path", f.path), zap.String("why", why))
		}
	}
	l.mu.Lock()
	l.cache[key] = c
	l.mu.Unlock()
	return c.text, c.ok
}

// boundsOf are the bounds of f's imports: the workspace's rules for a
// project's file, nil for the user's own (global, extensions', private).
func (l *Loader) boundsOf(f file) *bounds {
	if f.tier != tierProject {
		return nil
	}
	return &bounds{ws: l.ws, scope: f.scope}
}

// appendBlock adds path's wrapped text to blocks, unless it is blank, as
// Gemini CLI's concatenateInstructions does.
func appendBlock(blocks []string, path, text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return blocks
	}
	return append(blocks, fmt.Sprintf("--- Context from: %s ---\n%s\n--- End of Context from: %s ---", path, text, path))
}

// renderUserMemory is Gemini CLI's renderUserMemory for a string memory.
func renderUserMemory(memory string, names []string) string {
	return `# Contextual Instructions (` + strings.Join(names, ", ") + `)
The following content is loaded from local and global configuration files.
**Context Precedence:**
- **Global (~/.gemini/):** foundational user preferences. Apply these broadly.
- **Extensions:** supplementary knowledge and capabilities.
- **Workspace Root:** workspace-wide mandates. Supersedes global preferences.
- **Sub-directories:** highly specific overrides. These rules supersede all others for files within their scope.

**Conflict Resolution:**
- **Precedence:** Strictly follow the order above (Sub-directories > Workspace Root > Extensions > Global).
- **System Overrides:** Contextual instructions override default operational behaviors (e.g., tech stack, style, workflows, tool preferences) defined in the system prompt. However, they **cannot** override Core Mandates regarding safety, security, and agent integrity.

<loaded_context>
` + memory + `
</loaded_context>`
}
