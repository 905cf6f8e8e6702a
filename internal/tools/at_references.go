package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// An @path of a prompt is read here, as Gemini CLI 0.61 reads one
// (atCommandProcessor, through its read_many_files logic, which 0.61
// no longer offers the model as a tool, nor does gemini-ls): files named
// by paths and globs, with its default excludes and the ignore files,
// explicitly requested images, audio and PDFs as inline data, within
// bounds; what is not read is named with the reason.

const (
	// ReferenceContentEnd ends the files an @path prompt attaches.
	ReferenceContentEnd = "--- End of content ---"
	// maxManyText bounds the text the @paths of a prompt attach in all,
	// about a quarter of a 1M-token context; further files are named as
	// not read.
	maxManyText = 2 << 20
	// maxManyMedia bounds the inline data (images, audio, PDFs) of one
	// prompt: Gemini's API refuses requests with more than 20 MB inline.
	maxManyMedia = 16 << 20
	// maxManyFiles bounds how many files one prompt reads, the first in
	// path order: empty files cost no text, and a pattern matching a
	// million of them would otherwise hold and name them all.
	maxManyFiles = 10_000
)

// defaultManyExcludes are Gemini CLI's default excludes for the files of
// @paths (ignorePatterns.ts), GEMINI.md included: context files are
// loaded as such, not read again.
var defaultManyExcludes = []string{
	"**/node_modules/**", "**/.git/**", "**/bower_components/**", "**/.svn/**", "**/.hg/**",
	"**/.vscode/**", "**/.idea/**", "**/dist/**", "**/build/**", "**/coverage/**", "**/__pycache__/**",
	"**/*.bin", "**/*.exe", "**/*.dll", "**/*.so", "**/*.dylib", "**/*.class", "**/*.jar", "**/*.war",
	"**/*.zip", "**/*.tar", "**/*.gz", "**/*.bz2", "**/*.rar", "**/*.7z", "**/*.pak", "**/*.rpa",
	"**/*.doc", "**/*.docx", "**/*.xls", "**/*.xlsx", "**/*.ppt", "**/*.pptx", "**/*.odt", "**/*.ods", "**/*.odp",
	"**/*.pyc", "**/*.pyo",
	"**/.DS_Store", "**/.env",
	"**/GEMINI.md",
}

// newReferenceReader validates the patterns of the @paths of a prompt.
func newReferenceReader(ws *workspace.Workspace, include, exclude []string) (*referenceReader, error) {
	c := &referenceReader{ws: ws, include: include, timeout: searchTimeout, ignoredBudget: maxIgnoredWalk, maxFiles: maxManyFiles}
	for _, p := range include {
		if !doublestar.ValidatePattern(filepath.ToSlash(p)) {
			return nil, fmt.Errorf("params/include: invalid glob pattern %q", p)
		}
	}
	for _, p := range exclude {
		p = filepath.ToSlash(p)
		if strings.HasSuffix(p, "/") {
			p += "**" // "temp/" excludes what is inside temp
		}
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("params/exclude: invalid glob pattern %q", p)
		}
		c.exclude = append(c.exclude, strings.ToLower(p))
	}
	c.excludes = newExcludeSet(c.exclude)
	return c, nil
}

// referenceReader reads the files the @paths of a prompt name.
type referenceReader struct {
	ws            *workspace.Workspace
	include       []string
	exclude       []string // lower-cased, slash-separated, relative to a root
	excludes      excludeSet
	timeout       time.Duration // for finding the files the patterns name
	ignoredBudget int           // ignored directories entered at most, to count their matches
	maxFiles      int           // read at most, the first in path order
}

// ManyFiles is what the @paths of a prompt read.
type ManyFiles struct {
	// Files in path order, each text or inline data.
	Files []ManyFile
	// Skipped says what was not read and why, for the model and the user.
	Skipped []SkippedFile
}

// ManyFile is one file an @path read.
type ManyFile struct {
	Path string // absolute
	Rel  string // relative to its root, slash-separated
	// Text is the file's text (LF line endings, at most 2000 lines of at
	// most 2000 characters), unless Part holds it as inline data.
	Text string
	// Truncated: Text is not the whole file.
	Truncated bool
	// Binary: the file is not text; Text says it cannot be shown.
	Binary bool
	Part   *genai.Part
}

// SkippedFile is a file, or a count of files, left out with the reason.
type SkippedFile struct {
	Path   string
	Reason string
}

// ReadReferences reads the files of an @path prompt: specs are paths or
// globs relative to the first root (or absolute), read with Gemini CLI's
// default excludes and the ignore files respected.
func ReadReferences(ctx context.Context, ws *workspace.Workspace, specs []string) (ManyFiles, error) {
	c, err := newReferenceReader(ws, specs, defaultManyExcludes)
	if err != nil {
		return ManyFiles{}, err
	}
	return c.read(ctx)
}

// QuoteName shows a file name on one line, Go-quoted when it holds
// anything but printable text, so that it cannot forge lines of output.
func QuoteName(name string) string { return quoteName(name) }

// candidate is a file a pattern matched.
type candidate struct {
	path, rel string
}

// matched collects what the include patterns name, holding no more of it
// than can be read: the first files in path order, and counts.
type matched struct {
	// first is the files found that come first in path order, at most
	// limit of them, a heap (laterCandidate); found counts them all.
	first []candidate
	limit int
	found int
	// Matches left out: ignored by ignore files, or excluded.
	ignored, excluded int
	// ignoredCut: ignored directories were left unvisited, so ignored is
	// a lower bound.
	ignoredCut bool
	// outside holds patterns that lead outside every root.
	outside map[string]bool
	omitted workspace.Omitted
	// nested are the roots inside other roots: the files below them, and
	// the files named literally, may be reached twice, so their paths
	// are kept in seen (by kind) to count them once. No other file is
	// reached twice: a root's walks do not overlap.
	nested []string
	seen   map[seenMatch]bool
}

// seenMatch is a match of one kind at one path.
type seenMatch struct {
	kind byte
	path string
}

// Kinds of match, for matched.add.
const (
	matchFound    = 'f'
	matchIgnored  = 'i'
	matchExcluded = 'e'
)

// newMatched collects matches over roots, keeping at most limit files.
func newMatched(roots []string, limit int) *matched {
	m := &matched{limit: limit, outside: map[string]bool{}, seen: map[seenMatch]bool{}}
	for _, r := range roots {
		if slices.ContainsFunc(roots, func(outer string) bool { return outer != r && isBelow(outer, r) }) {
			m.nested = append(m.nested, r)
		}
	}
	return m
}

// add counts a match of kind at c.path once, keeping a file found while
// it is among the first limit in path order; literal: named by a path.
func (m *matched) add(kind byte, c candidate, literal bool) {
	key := seenMatch{kind, c.path}
	if m.seen[key] {
		return
	}
	if literal || slices.ContainsFunc(m.nested, func(r string) bool { return isBelow(r, c.path) }) {
		m.seen[key] = true
	}
	switch kind {
	case matchIgnored:
		m.ignored++
	case matchExcluded:
		m.excluded++
	default:
		m.found++
		switch {
		case len(m.first) < m.limit:
			heapPush(&m.first, c, laterCandidate)
		case m.limit > 0 && c.path < m.first[0].path:
			m.first[0] = c
			heapDown(m.first, 0, laterCandidate)
		}
	}
}

// laterCandidate reports whether a's path comes after b's: the last in
// path order is the heap's top, the one an earlier path replaces.
func laterCandidate(a, b candidate) bool { return a.path > b.path }

// read finds the files the patterns name in every root and reads them
// within the output bounds.
func (c *referenceReader) read(ctx context.Context) (ManyFiles, error) {
	roots := c.ws.Roots()
	m := newMatched(roots, c.maxFiles)
	for _, pattern := range c.include {
		if !insideSomeRoot(roots, pattern) {
			m.outside[pattern] = true
		}
	}
	findCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	timedOut := false
	for _, root := range roots {
		if err := c.matchRoot(findCtx, root, m); err != nil {
			if timedOut = ctx.Err() == nil && findCtx.Err() != nil; !timedOut {
				return ManyFiles{}, err
			}
			break
		}
	}
	var out ManyFiles
	for _, pattern := range c.include {
		if m.outside[pattern] {
			out.Skipped = append(out.Skipped, SkippedFile{Path: pattern, Reason: "Security: Path not in workspace"})
			delete(m.outside, pattern) // once, however often it is given
		}
	}
	files := m.first
	slices.SortFunc(files, func(x, y candidate) int { return strings.Compare(x.path, y.path) })

	text, media, considered := 0, 0, 0
	for _, f := range files {
		if text >= maxManyText || media >= maxManyMedia {
			break
		}
		considered++
		mf, reason, err := c.readOne(ctx, f)
		if err != nil {
			return ManyFiles{}, err
		}
		if reason != "" {
			out.Skipped = append(out.Skipped, SkippedFile{Path: f.rel, Reason: reason})
			continue
		}
		if mf.Part != nil {
			media += len(mf.Part.InlineData.Data)
		}
		text += len(mf.Text)
		out.Files = append(out.Files, mf)
	}
	if rest := m.found - considered; rest > 0 {
		out.Skipped = append(out.Skipped, SkippedFile{
			Path: fmt.Sprintf("%d file(s)", rest),
			Reason: fmt.Sprintf("not read: the output limit (%s of text, %s of data, %d files) was reached; read them in smaller groups",
				workspace.FormatSize(maxManyText), workspace.FormatSize(maxManyMedia), c.maxFiles),
		})
	}
	if n := m.excluded; n > 0 {
		out.Skipped = append(out.Skipped, SkippedFile{Path: fmt.Sprintf("%d file(s)", n), Reason: "excluded by the exclude patterns or the default excludes"})
	}
	if n := m.ignored; n > 0 {
		count := fmt.Sprintf("%d file(s)", n)
		if m.ignoredCut {
			count = "at least " + count
		}
		out.Skipped = append(out.Skipped, SkippedFile{Path: count, Reason: "ignored by project ignore files"})
	}
	if note := omittedNote(m.omitted); note != "" {
		out.Skipped = append(out.Skipped, SkippedFile{Path: "the search", Reason: strings.Trim(note, "()")})
	}
	if timedOut {
		out.Skipped = append(out.Skipped, SkippedFile{Path: "the search", Reason: fmt.Sprintf("stopped after %s; the files found by then were read: name narrower paths to see the rest", c.timeout)})
	}
	return out, nil
}

// rootGlob is an include pattern within one root: files below base whose
// path relative to base matches rest (lower-cased).
type rootGlob struct {
	base, rest string
}

// matchRoot adds what the include patterns name below root: a file, a
// directory (everything below it), or a glob, matched case-insensitively.
// Each directory is walked at most once, so what a walk leaves out is
// counted once.
func (c *referenceReader) matchRoot(ctx context.Context, root string, m *matched) error {
	var globs []rootGlob
	for _, pattern := range c.include {
		rel, ok := relToRoot(root, pattern)
		if !ok {
			continue
		}
		// A path that exists is taken literally, even with glob characters.
		abs, err := c.ws.Resolve(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, workspace.ErrOutsideRoots) {
			m.outside[pattern] = true // through a symlink
			continue
		}
		if err == nil {
			if isDir, err := c.ws.Stat(abs); err == nil {
				if !isDir {
					c.addLiteral(ctx, root, abs, m)
				} else {
					globs = append(globs, rootGlob{base: abs, rest: "**"})
				}
				continue
			}
		}
		base, rest := doublestar.SplitPattern(rel)
		dir := root
		if base != "." {
			abs, err := c.ws.Resolve(filepath.Join(root, filepath.FromSlash(base)))
			if errors.Is(err, workspace.ErrOutsideRoots) {
				m.outside[pattern] = true
				continue
			}
			if err != nil {
				continue
			}
			if isDir, err := c.ws.Stat(abs); err != nil || !isDir {
				continue
			}
			dir = abs
		}
		globs = append(globs, rootGlob{base: dir, rest: strings.ToLower(rest)})
	}
	// Walk each base not below another one.
	var bases []string
	for _, g := range globs {
		bases = append(bases, g.base)
	}
	slices.Sort(bases)
	bases = slices.Compact(bases)
	var walks []string
	for _, b := range bases {
		if !slices.ContainsFunc(walks, func(w string) bool { return isBelow(w, b) }) {
			walks = append(walks, b)
		}
	}
	for _, dir := range walks {
		om, err := c.walk(ctx, root, dir, globs, m)
		if err != nil {
			return err
		}
		m.omitted.Outside += om.Outside
		m.omitted.Special += om.Special
		m.omitted.Broken += om.Broken
		m.omitted.Unreadable += om.Unreadable
	}
	return nil
}

// walk visits dir, adding the files any of globs matches.
func (c *referenceReader) walk(ctx context.Context, root, dir string, globs []rootGlob, m *matched) (workspace.Omitted, error) {
	// Ignored directories are entered to count the matches they hide, up
	// to a budget, so big ignored trees do not spend the walk's.
	ignoredBudget := c.ignoredBudget
	// mu guards m and the budget: the walk calls from every core, and
	// what it finds does not depend on the order (m keeps the first files
	// in path order).
	var mu sync.Mutex
	return c.ws.Walk(ctx, dir, workspace.WalkOptions{}, func(e workspace.DirEntry) error {
		r := relSlash(root, e.Path)
		if e.IsDir {
			if c.excludesDir(r) {
				return fs.SkipDir
			}
			if e.Ignored {
				mu.Lock()
				defer mu.Unlock()
				if ignoredBudget--; ignoredBudget < 0 {
					m.ignoredCut = true
					return fs.SkipDir
				}
			}
			return nil
		}
		if !slices.ContainsFunc(globs, func(g rootGlob) bool {
			return isBelow(g.base, e.Path) && doublestar.MatchUnvalidated(g.rest, strings.ToLower(relSlash(g.base, e.Path)))
		}) {
			return nil
		}
		kind := byte(matchFound)
		switch {
		case c.excluded(r):
			kind = matchExcluded
		case e.Ignored:
			kind = matchIgnored
		}
		mu.Lock()
		defer mu.Unlock()
		m.add(kind, candidate{path: e.Path, rel: r}, false)
		return nil
	})
}

// relToRoot is pattern relative to root, slash-separated, or false when it
// is absolute and outside root or climbs out of it.
func relToRoot(root, pattern string) (string, bool) {
	rel := filepath.ToSlash(pattern)
	if abs, ok := absolutePattern(pattern, root); ok {
		r, err := filepath.Rel(root, abs)
		if err != nil {
			return "", false
		}
		rel = filepath.ToSlash(r)
	}
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return rel, true
}

// isBelow reports whether path is dir or inside it; both absolute and clean.
func isBelow(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// insideSomeRoot reports whether pattern, relative to a root or absolute,
// stays inside one.
func insideSomeRoot(roots []string, pattern string) bool {
	first := ""
	if len(roots) > 0 {
		first = roots[0] // the workspace anchors \dir on the first root's drive
	}
	abs, ok := absolutePattern(pattern, first)
	if !ok {
		rel := path.Clean(filepath.ToSlash(pattern))
		return rel != ".." && !strings.HasPrefix(rel, "../")
	}
	return slices.ContainsFunc(roots, func(root string) bool { return isBelow(root, filepath.Clean(abs)) })
}

// addLiteral adds the file at abs unless excluded or ignored (inside
// .git too, which the walk never enters).
func (c *referenceReader) addLiteral(ctx context.Context, root, abs string, m *matched) {
	r := relSlash(root, abs)
	kind := byte(matchFound)
	switch {
	case c.excluded(r):
		kind = matchExcluded
	case hidden(ctx, c.ws, abs, false):
		kind = matchIgnored
	}
	m.add(kind, candidate{path: abs, rel: r}, true)
}

// hidden reports whether the file at abs is kept from being read: inside
// .git or an agents' worktree (inWorktrees), or ignored by the ignore
// files, .gitignore's not counted when liftGit (a call's argument lifted
// them).
func hidden(ctx context.Context, ws *workspace.Workspace, abs string, liftGit bool) bool {
	if inGitDir(ws, abs) || inWorktrees(ws, abs) {
		return true
	}
	if !liftGit {
		return isIgnored(ctx, ws, abs)
	}
	ignored, err := ws.IgnoredLiftingGit(ctx, abs)
	return err == nil && ignored
}

// readHidden reports whether f, read for the path checked (found not
// hidden, by hidden or a listing's Ignored), was read from another file
// that is: a symbolic link led there, one the path held when checked or
// one swapped in since. The rules hold of the file read (f.Real), not
// of the name asked for. A file whose rules cannot be told is hidden.
func readHidden(ctx context.Context, ws *workspace.Workspace, checked string, f workspace.File, liftGit bool) bool {
	if f.Real == checked {
		return false
	}
	if inGitDir(ws, f.Real) || inWorktrees(ws, f.Real) {
		return true
	}
	ignored := ws.Ignored
	if liftGit {
		ignored = ws.IgnoredLiftingGit
	}
	is, err := ignored(ctx, f.Real)
	return err != nil || is
}

// linkHidden reports whether e is a symbolic link leading where the
// model may not read (an ignored file or directory, .git), .gitignore's
// rules not counted when liftGit: a listing judges a link by where it
// leads, as a read judges the file it read, not by the link's name
// alone. A link that cannot be resolved again is hidden.
func linkHidden(ctx context.Context, ws *workspace.Workspace, e workspace.DirEntry, liftGit bool) bool {
	if !e.Symlink {
		return false
	}
	target, err := ws.Resolve(e.Path)
	return err != nil || hidden(ctx, ws, target, liftGit)
}

// isIgnored reports whether ignore files ignore the file or directory at
// abs (false when that cannot be told).
func isIgnored(ctx context.Context, ws *workspace.Workspace, abs string) bool {
	ignored, err := ws.Ignored(ctx, abs)
	return err == nil && ignored
}

func (c *referenceReader) excluded(rel string) bool {
	return c.excludes.match(strings.ToLower(rel))
}

// excludesDir reports whether an exclude pattern "P/**" takes in everything
// below the directory rel, so the walk need not enter it.
func (c *referenceReader) excludesDir(rel string) bool {
	rel = strings.ToLower(rel)
	for _, p := range c.exclude {
		if dirPattern, ok := strings.CutSuffix(p, "/**"); ok && doublestar.MatchUnvalidated(dirPattern, rel) {
			return true
		}
	}
	return false
}

// readOne reads one file; reason says why it was skipped instead.
func (c *referenceReader) readOne(ctx context.Context, f candidate) (ManyFile, string, error) {
	mime, _, isMedia := mediaType(f.path)
	if isMedia && !c.requested(f.path) {
		return ManyFile{}, "asset file (image/pdf/audio) was not explicitly requested by name or extension", nil
	}
	file, err := c.ws.ReadFile(ctx, f.path, maxReadSize)
	var tooLarge *workspace.TooLargeError
	switch {
	case ctx.Err() != nil:
		return ManyFile{}, "", ctx.Err()
	case errors.As(err, &tooLarge):
		return ManyFile{}, fmt.Sprintf("Read error: File size exceeds the 20MB limit (%.2fMB)", float64(tooLarge.Size)/(1<<20)), nil
	case err != nil:
		return ManyFile{}, "Read error: " + err.Error(), nil
	case readHidden(ctx, c.ws, f.path, file, false):
		return ManyFile{}, "ignored by project ignore files", nil
	}
	mf := ManyFile{Path: f.path, Rel: f.rel}
	if isMedia {
		mf.Part = &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: file.Content}}
		return mf, "", nil
	}
	if isBinary(file.Content) {
		mf.Binary = true
		mf.Text = "Cannot display content of binary file: " + f.rel
		return mf, "", nil
	}
	mf.Text, mf.Truncated = firstLines(string(file.Content), defaultReadLimit)
	return mf, "", nil
}

// requested reports whether the include patterns name the media file at
// path by its extension or its name, as Gemini CLI decides.
func (c *referenceReader) requested(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return slices.ContainsFunc(c.include, func(p string) bool {
		return strings.Contains(strings.ToLower(p), ext) || strings.Contains(p, stem)
	})
}

// firstLines is text with LF line endings, cut to its first max lines and
// each line to maxLineLen characters, and whether anything was cut.
func firstLines(text string, max int) (string, bool) {
	lines := strings.Split(toLF(text), "\n")
	cut := len(lines) > max
	lines = lines[:min(len(lines), max)]
	for i, line := range lines {
		var lineCut bool
		lines[i], lineCut = cutLine(line)
		cut = cut || lineCut
	}
	return strings.Join(lines, "\n"), cut
}

// Reference is where an @path of a prompt leads.
type Reference struct {
	// Spec is what ReadReferences is given: the path relative to the
	// first root (a directory as "dir/**"), or absolute outside it.
	Spec string
	// Path is the absolute file or directory.
	Path string
	// Ignored: ignore files ignore it, or it is in .git (which 0.61's
	// ignore rules always hold), so it is not read.
	Ignored bool
}

// ResolveReference finds what the @path name of a prompt refers to, as
// Gemini CLI does: a file, a directory (everything below it), else the
// most recently modified file matching the glob "**/*name*" that no
// ignore file ignores, by its name or where its link leads (of those
// found within searchTimeout). ok is false when nothing matches.
func ResolveReference(ctx context.Context, ws *workspace.Workspace, name string) (ref Reference, ok bool, err error) {
	if ref, ok := ResolvePath(ctx, ws, name); ok {
		return ref, true, nil
	}
	return searchReference(ctx, ws, name)
}

// ResolvePath is ResolveReference without the search: a file or a
// directory name names, ok false for neither (Gemini CLI's
// enableRecursiveFileSearch false).
func ResolvePath(ctx context.Context, ws *workspace.Workspace, name string) (Reference, bool) {
	abs, err := ws.Resolve(name)
	if err != nil {
		return Reference{}, false
	}
	isDir, err := ws.Stat(abs)
	if err != nil {
		return Reference{}, false
	}
	ref := Reference{Spec: referenceSpec(ws, abs), Path: abs, Ignored: hidden(ctx, ws, abs, false)}
	if isDir {
		ref.Spec += "/**"
	}
	return ref, true
}

// searchReference is the newest file matching "**/*name*" that no ignore
// file ignores.
func searchReference(ctx context.Context, ws *workspace.Workspace, name string) (ref Reference, ok bool, err error) {
	if filepath.IsAbs(name) || !doublestar.ValidatePattern("**/*"+filepath.ToSlash(name)+"*") {
		return Reference{}, false, nil
	}
	// Glob characters in name are a glob, as in Gemini CLI: a name that is
	// a path was taken literally above.
	pattern := strings.ToLower("**/*" + filepath.ToSlash(name) + "*")
	var best *workspace.DirEntry
	var bestMod int64
	// A search that runs out of time settles for the newest file found by
	// then, as a search that found one file would.
	findCtx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	var mu sync.Mutex // guards best: the walk calls from every core
	for _, root := range ws.Roots() {
		_, err := ws.Walk(findCtx, root, workspace.WalkOptions{}, func(e workspace.DirEntry) error {
			if e.Ignored {
				if e.IsDir {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir || !doublestar.MatchUnvalidated(pattern, strings.ToLower(relSlash(root, e.Path))) {
				return nil
			}
			if linkHidden(findCtx, ws, e, false) {
				return nil // a link to an ignored file is as ignored as the file
			}
			info, err := ws.Info(e)
			if err != nil {
				return nil // gone since the walk, or not to be stat-ed: not the one meant
			}
			mu.Lock()
			defer mu.Unlock()
			if best == nil || info.ModTime > bestMod || (info.ModTime == bestMod && e.Path < best.Path) {
				best, bestMod = &e, info.ModTime
			}
			return nil
		})
		if err != nil && (ctx.Err() != nil || findCtx.Err() == nil) {
			return Reference{}, false, fmt.Errorf("searching for %q: %w", name, err)
		}
		if best != nil {
			return Reference{Spec: referenceSpec(ws, best.Path), Path: best.Path}, true, nil
		}
		if err != nil { // out of time
			break
		}
	}
	return Reference{}, false, nil
}

// referenceSpec is abs relative to the first root when inside it.
func referenceSpec(ws *workspace.Workspace, abs string) string {
	return ws.Display(abs)
}
