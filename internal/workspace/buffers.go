package workspace

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Buffers is a front end's source of the editor's text for files the
// workspace holds no open document for: an ACP client's
// fs/read_text_file answers with the editor's buffer, unsaved changes
// included, or the file's text when no buffer is open. Single-file reads
// (ReadFile, PrepareChange) ask it; listings, walks and ReadEntry, which a
// search runs over a whole tree, read disk.
type Buffers interface {
	// ReadBuffer returns the editor's text of the file at path: absolute,
	// resolved, and a regular file inside the roots holding text, whose
	// size on disk is within the read's limit. ok is false when the editor
	// has no say, and disk is read. An error fails the read: the file is
	// there, and a read that quietly fell back to disk could show the
	// model text other than the user's.
	ReadBuffer(ctx context.Context, path string) (text string, ok bool, err error)
}

// SetBuffers makes single-file reads ask b for the editor's text of a file
// after every check a read of disk makes. Set it before the workspace is
// shared: it is not guarded against reads running meanwhile.
func (w *Workspace) SetBuffers(b Buffers) { w.buffers = b }

// readText reads the file at path (resolved to real) when no document is
// open for it: from disk, with every check of read.go, then, when a
// Buffers is set and disk holds text, the editor's buffer in its place.
// The content never starts with a BOM; hadBOM reports disk's, which is
// the file's encoding and not the editor's text.
//
// Disk is read first, whatever the editor holds, so the editor is never
// asked about a path a read of disk refuses (outside the roots, a FIFO, a
// device, a file over the limit) and binary files are never read through
// a text protocol: a file whose content is not valid UTF-8, or holds a NUL
// byte, is disk's.
func (w *Workspace) readText(ctx context.Context, path, real string, limit int64) (content []byte, hadBOM bool, err error) {
	data, err := w.readResolved(ctx, path, real, limit)
	if err != nil {
		return nil, false, err
	}
	content, hadBOM = bytes.CutPrefix(data, []byte(bom))
	if w.buffers == nil || !IsText(content) {
		return content, hadBOM, nil
	}
	text, ok, err := w.buffers.ReadBuffer(ctx, real)
	switch {
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil:
		return nil, false, fmt.Errorf("reading %s through the editor: %w", path, err)
	case !ok:
		return content, hadBOM, nil
	}
	text = strings.TrimPrefix(text, bom)
	if size := int64(len(text)); size > limit {
		return nil, false, &TooLargeError{Path: path, Size: size, Limit: limit}
	}
	return []byte(text), hadBOM, nil
}

// IsText reports whether content is what an editor's text buffer holds
// byte for byte, and JSON carries unchanged: valid UTF-8 without NUL
// bytes. Reads through Buffers ask only about such files; a front end
// writes only such text through the editor.
func IsText[T string | []byte](content T) bool {
	// Either form is checked in place: a copy of a 20 MiB file would be
	// the read's largest allocation.
	switch c := any(content).(type) {
	case []byte:
		return bytes.IndexByte(c, 0) < 0 && utf8.Valid(c)
	case string:
		return strings.IndexByte(c, 0) < 0 && utf8.ValidString(c)
	}
	return false
}
