package memory

import (
	"path/filepath"
	"strings"

	"go.uber.org/zap"
)

// IndexFileName is the private project memory's index, the one file of
// that directory given to the model; its sibling notes are read on
// demand (Gemini CLI 0.61's PROJECT_MEMORY_INDEX_FILENAME).
const IndexFileName = "MEMORY.md"

// tier is where a context file comes from, which decides the section
// Gemini CLI's object-form memory puts it in.
type tier int

const (
	tierGlobal tier = iota
	tierExtension
	tierProject
	tierPrivate
)

// PrivateDir is the project's private memory directory
// (~/.gemini/tmp/<project>/memory), "" when there is none (no home).
func (l *Loader) PrivateDir() string {
	if l.privateDir == nil {
		return ""
	}
	l.mu.Lock()
	dir := l.private
	l.mu.Unlock()
	if dir != "" {
		return dir
	}
	// Outside mu: a claim may wait for Gemini CLI's registry lock. Two
	// first calls both looking is harmless, the claim being locked.
	dir, err := l.privateDir()
	if err != nil {
		l.log.Warn("finding the project's private memory directory", zap.Error(err))
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.private == "" {
		l.private = dir // the project's directory never moves once found
	}
	return l.private
}

// PrivateIndex is the path of the private memory's index, MEMORY.md,
// whether or not it exists yet; "" without a private memory directory.
func (l *Loader) PrivateIndex() string {
	dir := l.PrivateDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, IndexFileName)
}

// GlobalFile is the global context file the model is told to keep
// cross-project facts in: the first context file name in the user's
// Gemini directory, as Gemini CLI's getGlobalMemoryFilePath; "" without
// one.
func (l *Loader) GlobalFile() string {
	if l.userDir == "" {
		return ""
	}
	return filepath.Join(l.userDir, l.names[0])
}

// privateFiles is what Gemini CLI's getUserProjectMemoryPaths finds:
// the index, or, without one, the context files older versions kept in
// that directory. Unlike GEMINI.md in a project, it is read in an
// untrusted folder too: the directory is the user's own.
func (l *Loader) privateFiles() []file {
	dir := l.PrivateDir()
	if dir == "" {
		return nil
	}
	sc, err := newScope(dir, nil, l.ws.Documents())
	if err != nil {
		return nil // no directory, no memory
	}
	if p := filepath.Join(dir, IndexFileName); present(l.ws.Documents(), p) {
		return []file{{path: p, scope: sc, tier: tierPrivate}}
	}
	var files []file
	for _, name := range l.names {
		if p := filepath.Join(dir, name); present(l.ws.Documents(), p) {
			files = append(files, file{path: p, scope: sc, tier: tierPrivate})
		}
	}
	return files
}

// renderTiers is Gemini CLI's renderUserMemory for an object memory, the
// form its system instruction takes once the private memory has text:
// each tier's blocks in its own tag, the private index framed as private.
func renderTiers(blocks map[tier][]string) string {
	var sections []string
	add := func(t tier, open, close string) {
		if len(blocks[t]) > 0 {
			sections = append(sections, open+"\n"+strings.Join(blocks[t], "\n\n")+"\n"+close)
		}
	}
	add(tierGlobal, "<global_context>", "</global_context>")
	add(tierPrivate, "<user_project_memory>\n--- Private Project Memory Index (private, not committed to repo) ---",
		"--- End Private Project Memory Index ---\n</user_project_memory>")
	add(tierExtension, "<extension_context>", "</extension_context>")
	add(tierProject, "<project_context>", "</project_context>")
	return "---\n\n<loaded_context>\n" + strings.Join(sections, "\n") + "\n</loaded_context>"
}
