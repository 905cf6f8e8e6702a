package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// FactsHeader is the heading /memory add puts facts under, in the user's
// global GEMINI.md, as Gemini CLI's save_memory spelled it.
const FactsHeader = "## Gemini Added Memories"

// maxFactSize bounds one fact: a memory is a short statement, loaded with
// every request of every later session.
const maxFactSize = 4 << 10

// maxFactAttempts bounds how often adding a fact starts over because
// another program (Gemini CLI, which takes no lock) changed the file
// meanwhile.
const maxFactAttempts = 8

// errChanged is an attempt finding the file changed since it read it.
var errChanged = errors.New("GEMINI.md changed while the fact was being added")

// AddFact adds fact, as one list item under FactsHeader, to the context
// file at path (the user's global GEMINI.md), and returns only once it is
// on disk. Every byte already there is kept.
func AddFact(ctx context.Context, path, fact string) error {
	return factWriter{}.add(ctx, path, fact)
}

// factWriter adds facts; interleave, when set, runs in each attempt
// between reading the file and replacing it: the tests' other writer.
type factWriter struct {
	interleave func(path string)
}

// add writes the fact into the file as it is now. Writers in gemini-ls
// (any session, any process) take turns through the file's lock
// (internal/sharedlock, Gemini CLI's kind); Gemini CLI 0.61 takes none on
// memory files, so the file is replaced only if it still holds what was
// read, and read back after, starting over when another write got in
// between.
func (w factWriter) add(ctx context.Context, path, fact string) error {
	if factItem(fact) == "- " {
		return errors.New("missing the text to remember")
	}
	if n := len(factItem(fact)); n > maxFactSize {
		return fmt.Errorf("the fact is %s; a memory must be at most %s, a short single statement", workspace.FormatSize(int64(n)), workspace.FormatSize(maxFactSize))
	}
	target := factTarget(path)
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	lock, err := sharedlock.Acquire(ctx, target)
	if err != nil {
		return err
	}
	defer lock.Release()
	for range maxFactAttempts {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := w.addOnce(target, path, fact, lock)
		if !errors.Is(err, errChanged) {
			return err
		}
	}
	return fmt.Errorf("%s kept changing while the fact was being added (another program is writing it); the fact was not saved, try again", path)
}

// addOnce adds the fact to target as read now; errChanged means another
// write got in the way and the fact is not on disk.
func (w factWriter) addOnce(target, path, fact string, lock *sharedlock.Lock) error {
	before, err := readFactsFile(target)
	if err != nil {
		return err
	}
	after := withFact(before, fact)
	if len(after) > MaxFileSize {
		return fmt.Errorf("adding this fact would make %s %s, over the %s a context file is loaded up to: "+
			"the whole file, your own instructions included, would no longer be loaded. The file was left unchanged",
			path, workspace.FormatSize(int64(len(after))), workspace.FormatSize(MaxFileSize))
	}
	if w.interleave != nil {
		w.interleave(target)
	}
	err = safefile.WriteIf(target, []byte(after), func() error {
		if err := lock.Held(); err != nil {
			return err
		}
		now, err := readFactsFile(target)
		if err == nil && now != before {
			return errChanged
		}
		return err
	})
	if err != nil {
		return err
	}
	// A writer that read before the rename and wrote after it drops
	// the fact; it is then added again.
	now, err := readFactsFile(target)
	if err != nil {
		return err
	}
	if item := factItem(fact); countLines(now, item) < countLines(after, item) {
		return errChanged
	}
	return nil
}

// factTarget is the file to write for path: the file a symlink points
// to, so a GEMINI.md kept in a dotfiles repository stays a link.
func factTarget(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	return path
}

// readFactsFile returns the text of the file at path, "" when it is
// missing: a regular file the loader would load.
func readFactsFile(path string) (string, error) {
	data, err := safefile.Read(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return string(data), nil
}

// countLines counts the lines of text that are line.
func countLines(text, line string) int {
	n := 0
	for l := range strings.Lines(text) {
		if strings.TrimRight(l, "\r\n") == line {
			n++
		}
	}
	return n
}

// OneLine is fact on one line, as it is quoted back.
func OneLine(fact string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", " ", "\n", " ").Replace(fact))
}

// leadingDashes are list markers in front of a fact.
var leadingDashes = lazyregexp.New(`^(-+\s*)+`)

// factItem is the list item for fact: one line, so a fact cannot inject
// Markdown structure (headings) into the file, and no import.
func factItem(fact string) string {
	return "- " + escapeImports(strings.TrimSpace(leadingDashes.ReplaceAllString(OneLine(fact), "")))
}

// escapeImports puts a backslash before each @ of text that would start
// an "@path" import in a context file: an @ at the start (the item's "- "
// comes before it) or after a space, tab or line break, which is how both
// this package's and Gemini CLI's import processors find them. A fact is
// data: "@./oauth_creds.json" must not make every later session load the
// file, in gemini-ls or in Gemini CLI reading the same GEMINI.md. "\@" is
// Markdown's escape for "@", so the text still reads the same.
func escapeImports(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '@' && (i == 0 || strings.IndexByte(" \t\r\n", text[i-1]) >= 0) {
			b.WriteByte('\\')
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// withFact returns content with fact added as the last item of the facts
// section, creating the section at the end when there is none. Every
// byte of content is kept: the item is only inserted, after the section's
// last non-blank line, in the file's line-break style.
func withFact(content, fact string) string {
	item := factItem(fact)
	eol := "\n"
	if strings.Contains(content, "\r\n") {
		eol = "\r\n"
	}
	lines := strings.SplitAfter(content, "\n")
	header := -1
	for i, line := range lines {
		if strings.TrimRight(line, " \t\r\n") == FactsHeader {
			header = i
			break
		}
	}
	if header < 0 {
		sep := ""
		switch {
		case content == "" || strings.HasSuffix(content, eol+eol):
		case strings.HasSuffix(content, "\n"):
			sep = eol
		default:
			sep = eol + eol
		}
		return content + sep + FactsHeader + eol + item + eol
	}
	// The section runs to the next heading of level 1 or 2.
	end := len(lines)
	for i := header + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "# ") || strings.HasPrefix(lines[i], "## ") {
			end = i
			break
		}
	}
	last := header // the section's last non-blank line
	for i := header + 1; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			last = i
		}
	}
	var b strings.Builder
	for _, line := range lines[:last+1] {
		b.WriteString(line)
	}
	if !strings.HasSuffix(lines[last], "\n") {
		b.WriteString(eol)
	}
	b.WriteString(item + eol)
	for _, line := range lines[last+1:] {
		b.WriteString(line)
	}
	return b.String()
}
