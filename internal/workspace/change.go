package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// ErrStale is returned by WriteFile when the file on disk is no longer
// what the change was prepared from, so writing would lose someone's edit.
var ErrStale = errors.New("the file changed since the change was prepared")

// PrepareChange builds the FileChange for writing newText (LF or any line
// endings, as the model wrote it) to path: Before from the overlay, else
// as ReadFile reads it (the editor's buffer through Buffers, or disk),
// After with the file's existing line endings and BOM preserved.
//
// Exists reports whether an open document or a file on disk holds path.
// A file that mostly uses \r\n gets its lone \n turned into \r\n; other
// text is kept as written. A BOM at the start of newText is moved to BOM.
func (w *Workspace) PrepareChange(ctx context.Context, path, newText string) (FileChange, error) {
	if err := w.checkResolved(path); err != nil {
		return FileChange{}, err
	}
	change := FileChange{Path: path}
	if doc, ok := w.docs.Get(path); ok {
		change.Exists, change.Open, change.Version = true, true, doc.Version
		change.Before = doc.Text
		change.HadBOM = w.diskHasBOM(path)
	} else {
		data, hadBOM, err := w.readChanged(ctx, path)
		switch {
		case errors.Is(err, ErrNotExist):
		case err != nil:
			return FileChange{}, fmt.Errorf("preparing a change: %w", err)
		default:
			change.Exists = true
			change.Before, change.HadBOM = string(data), hadBOM
		}
	}
	after, addsBOM := strings.CutPrefix(newText, bom)
	change.BOM = change.HadBOM || addsBOM
	if change.Exists && usesCRLF(change.Before) {
		after = toCRLF(after)
	}
	change.After = after
	return change, nil
}

// readChanged reads the file a change is prepared from, as ReadFile does
// when no document is open.
func (w *Workspace) readChanged(ctx context.Context, path string) ([]byte, bool, error) {
	real, err := w.resolveInside(path)
	if err != nil {
		return nil, false, err
	}
	return w.readText(ctx, path, real, MaxFileSize)
}

// usesCRLF reports whether most of text's line breaks are \r\n.
func usesCRLF(text string) bool {
	crlf := strings.Count(text, "\r\n")
	return crlf > 0 && crlf >= strings.Count(text, "\n")-crlf
}

// toCRLF turns every \n not already preceded by \r into \r\n.
func toCRLF(text string) string {
	var b strings.Builder
	b.Grow(len(text) + strings.Count(text, "\n"))
	for {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:nl])
		if nl == 0 || text[nl-1] != '\r' {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		text = text[nl+1:]
	}
}

// WriteFile writes a change to disk atomically (temp file + rename),
// creating parent directories, keeping the file's permission bits (a new
// file and directory get 0o666 and 0o777 less the umask, as with any Unix
// tool) and re-adding the BOM. Unless the change came from an open document, it
// first checks that disk still holds change.Before (or, for a new file,
// nothing) and returns ErrStale otherwise.
func WriteFile(ctx context.Context, change FileChange, content string) error {
	path := change.Path
	if !filepath.IsAbs(path) {
		return fmt.Errorf("writing %s: the path is not absolute", path)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("writing %s: it is a directory", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if !change.Open {
		if err := checkUnchanged(ctx, change, err == nil); err != nil {
			return err
		}
	}

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	content = strings.TrimPrefix(content, bom)
	if change.BOM {
		content = bom + content
	}
	if err := safefile.Write(path, []byte(content)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// checkUnchanged compares disk with what the change was prepared from,
// reading it as every read does: a regular file only, bounded.
func checkUnchanged(ctx context.Context, change FileChange, onDisk bool) error {
	switch {
	case !change.Exists && onDisk:
		return fmt.Errorf("writing %s: it was created since the change was prepared: %w", change.Path, ErrStale)
	case change.Exists && !onDisk:
		return fmt.Errorf("writing %s: it was deleted since the change was prepared: %w", change.Path, ErrStale)
	case !change.Exists:
		return nil
	}
	data, err := readResolved(ctx, change.Path, change.Path, MaxFileSize)
	if err != nil {
		return fmt.Errorf("writing %s: %w", change.Path, err)
	}
	if strings.TrimPrefix(string(data), bom) != change.Before {
		return fmt.Errorf("writing %s: it was modified since the change was prepared: %w", change.Path, ErrStale)
	}
	return nil
}
