package sessionstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Record kinds; see the package doc for the file format.
const (
	kindMeta    = "meta"
	kindPrompt  = "prompt"
	kindReplace = "replace"
	// A prompt recorded as it happens (Recorder): begin, then a content
	// record for each content, then the prompt record (Ends) and a meta
	// line.
	kindBegin   = "begin"
	kindContent = "content"
)

// record is one line of a session file.
type record struct {
	Kind    string           `json:"kind"`
	Version int              `json:"v,omitempty"`    // meta
	Meta    *Meta            `json:"meta,omitempty"` // meta
	History []*genai.Content `json:"history,omitempty"`
	Allow   []string         `json:"allow,omitempty"`
	Usage   *Usage           `json:"usage,omitempty"`
	// Exchanges is the transcript the user saw: one per prompt (prompt
	// records), or all of them (replace records).
	Exchanges []Exchange `json:"exchanges,omitempty"`
	// Running is the prompt that begins (begin), or during which the
	// session was rewritten (replace). Ends: the prompt record ends the
	// prompt begun. Partial: a content record of the answers of calls
	// still running, which the next content takes the place of.
	Running *Exchange `json:"running,omitempty"`
	Ends    bool      `json:"ends,omitempty"`
	Partial bool      `json:"partial,omitempty"`
	// Context is the session context (Snapshot.Context), written once:
	// by the record of the prompt it was made for, or a replace.
	Context string `json:"context,omitempty"`
}

// encode is rec as one line. JSON escapes newlines inside strings, so the
// line holds exactly one '\n', its last byte.
func encode(rec record) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s record: %w", rec.Kind, err)
	}
	return append(b, '\n'), nil
}

// encodeMeta is the meta line for m, refused when too long for List to
// find it in a bounded read.
func encodeMeta(m Meta) ([]byte, error) {
	b, err := encode(record{Kind: kindMeta, Version: version, Meta: &m})
	if err != nil {
		return nil, err
	}
	if len(b) > maxMetaLine {
		return nil, fmt.Errorf("the session's metadata (title, root) is %d bytes encoded, over %d", len(b), maxMetaLine)
	}
	return b, nil
}

// parseMeta decodes a meta line of session id.
func parseMeta(line []byte, id string) (Meta, error) {
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return Meta{}, err
	}
	if rec.Kind != kindMeta || rec.Meta == nil {
		return Meta{}, fmt.Errorf("a %q record where a meta record should be", rec.Kind)
	}
	if err := checkMeta(rec, id); err != nil {
		return Meta{}, err
	}
	return *rec.Meta, nil
}

// checkMeta checks a meta record's version and id.
func checkMeta(rec record, id string) error {
	if rec.Version != version {
		return fmt.Errorf("format version %d, not %d (written by another gemini-ls version)", rec.Version, version)
	}
	if rec.Meta.ID != id {
		return fmt.Errorf("it holds session %q", rec.Meta.ID)
	}
	return nil
}

// notRegularError names what the path is instead; it matches ErrNotRegular.
type notRegularError struct {
	path string
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("session file %s is %s, not a regular file", e.path, safefile.DescribeMode(e.mode))
}

func (e *notRegularError) Is(target error) bool { return target == ErrNotRegular }

// openRead opens session id's file for reading: only a regular file, not
// through a symlink, without blocking; fstat confirms it is what was
// checked.
func openRead(path, id string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("loading session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("loading session %s: %w", id, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &notRegularError{path: path, mode: fi.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("loading session %s: %w", id, err)
	}
	opened, err := confirmOpened(f, path, fi)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, opened, nil
}

// openAppend opens (creating, 0600) path for appending and reading its
// tail, refusing anything but a regular file as openRead does. created
// reports that the file did not exist.
func openAppend(path string) (f *os.File, fi fs.FileInfo, created bool, err error) {
	checked, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return nil, nil, false, fmt.Errorf("saving session: %w", err)
	case !checked.Mode().IsRegular():
		return nil, nil, false, &notRegularError{path: path, mode: checked.Mode()}
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return nil, nil, false, fmt.Errorf("saving session: %w", err)
	}
	if created {
		checked = nil
	}
	if fi, err = confirmOpened(f, path, checked); err != nil {
		f.Close()
		return nil, nil, false, err
	}
	return f, fi, created, nil
}

// confirmOpened fstats f: a regular file, and the one Lstat saw (checked,
// when not nil), not something swapped in between.
func confirmOpened(f *os.File, path string, checked fs.FileInfo) (fs.FileInfo, error) {
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !opened.Mode().IsRegular() {
		return nil, &notRegularError{path: path, mode: opened.Mode()}
	}
	if checked != nil && !os.SameFile(checked, opened) {
		return nil, fmt.Errorf("reading %s: it was replaced while being opened", path)
	}
	return opened, nil
}

// replayed is a file replayed: the session, whether the file holds one
// (a prompt committed or begun), and end, the offset just past its last
// line kept: what follows it (a torn line, a bad one and the rest) the
// next append cuts off.
type replayed struct {
	snap  Snapshot
	found bool
	end   int64
}

// replay reads a session file from the start. Records take effect when a
// meta line after the header commits them; those after the last meta
// line are a prompt whose process ended before it did (or an append cut
// short), read up to a bad line as an interrupted prompt. A bad line
// followed by a meta line is corruption (*CorruptError).
func replay(ctx context.Context, f io.Reader, path, id string) (replayed, error) {
	rp := &replayer{path: path, id: id}
	if err := eachLine(ctx, f, path, rp.take); err != nil {
		return replayed{}, err
	}
	return rp.finish(), nil
}

// replayer is a session file being replayed, line by line.
type replayer struct {
	path, id string
	r        replayed
	st       legacyState
	// pending are the records since the last meta line, which commits
	// them; pendingEnd is the offset past the last of them.
	pending    []record
	pendingEnd int64
	bad        *CorruptError // the first bad line since the last commit
}

// take replays one complete line, ending at off.
func (rp *replayer) take(line []byte, off int64, lineNo int) error {
	var rec record
	reason := ""
	if jerr := json.Unmarshal(line, &rec); jerr != nil {
		reason = "not a JSON record: " + jerr.Error()
	}
	if rp.bad != nil {
		if reason == "" && rec.Kind == kindMeta {
			return rp.bad
		}
		return nil
	}
	if reason == "" {
		var err error
		if reason, err = rp.check(rec, lineNo); err != nil {
			return err
		}
	}
	if reason != "" {
		rp.bad = &CorruptError{Path: rp.path, Line: lineNo, Reason: reason}
		return nil
	}
	if rec.Kind != kindMeta {
		rp.pending = append(rp.pending, rec)
		rp.pendingEnd = off
		return nil
	}
	rp.commit(rec, off, lineNo)
	return nil
}

// check is why a record that decoded is a bad line ("" when it is not);
// a header of another session is corruption at once.
func (rp *replayer) check(rec record, lineNo int) (string, error) {
	switch {
	case lineNo == 1 && rec.Kind != kindMeta:
		return "the file does not start with a session header", nil
	case rec.Kind == kindMeta:
		if rec.Meta == nil {
			return "a meta record without metadata", nil
		}
		if err := checkMeta(rec, rp.id); err != nil {
			return "", &CorruptError{Path: rp.path, Line: lineNo, Reason: err.Error()}
		}
		return "", nil
	case rec.Kind == kindPrompt, rec.Kind == kindReplace, rec.Kind == kindBegin, rec.Kind == kindContent:
		return "", nil
	}
	return fmt.Sprintf("an unknown record kind %q", rec.Kind), nil
}

// commit applies the pending records under the meta line rec, ending at
// off.
func (rp *replayer) commit(rec record, off int64, lineNo int) {
	rp.r.end = off
	if lineNo == 1 {
		rp.st.snap.Meta = *rec.Meta // the header commits nothing: a file holding only it has no prompt saved
		return
	}
	for _, p := range rp.pending {
		rp.st.apply(p)
	}
	rp.pending = nil
	rp.st.snap.Meta = *rec.Meta
	rp.r.found = true
}

// finish takes the records no meta line committed as an interrupted
// prompt.
func (rp *replayer) finish() replayed {
	if len(rp.pending) > 0 {
		for _, p := range rp.pending {
			rp.st.apply(p)
		}
		rp.r.end, rp.r.found = rp.pendingEnd, true
	}
	if rp.st.running != nil {
		rp.st.end()
		rp.st.snap.Interrupted = true
	}
	rp.r.snap = rp.st.snap
	return rp.r
}

// eachLine hands take each complete line of r, at most MaxFileSize
// bytes in all, with the offset just past it and its number. A last line
// without its newline is a torn write: it is not handed on. An error of
// take's ends the reading.
func eachLine(ctx context.Context, r io.Reader, path string, take func(line []byte, off int64, lineNo int) error) error {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxFileSize+1), 64<<10)
	var off int64
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		off += int64(len(line))
		if off > MaxFileSize {
			return tooLarge(path, off)
		}
		if err != nil { // the last line, without its '\n': torn
			return nil
		}
		if err := take(line, off, lineNo); err != nil {
			return err
		}
	}
}

// legacyState is a session replayed so far.
type legacyState struct {
	snap    Snapshot
	running *runningPrompt
	// partial: the last content is a partial answer, which the next one
	// takes the place of.
	partial bool
}

// apply takes one record other than meta.
func (st *legacyState) apply(rec record) {
	s := &st.snap
	if rec.Kind == kindReplace || rec.Context != "" {
		s.Context = rec.Context
	}
	switch rec.Kind {
	case kindReplace:
		s.History, s.Allow, s.Usage, s.Exchanges = nil, nil, Usage{}, nil
		st.running = nil
		if rec.Running != nil {
			st.running = openRunning(rec.Running)
		}
	case kindBegin:
		st.end()
		st.running = openRunning(rec.Running)
		if rec.Meta != nil {
			s.Meta = *rec.Meta
		}
	case kindContent:
		st.replacePartial(len(rec.History) > 0)
		st.partial = rec.Partial
		if r := st.running; r != nil {
			if rec.Usage != nil {
				r.usage.add(*rec.Usage)
			}
			for _, c := range rec.History {
				if c != nil && c.Role == genai.RoleModel {
					r.answered(plainText(nonNilParts(c.Parts)))
				}
			}
		}
		s.History = append(s.History, rec.History...)
		return
	case kindPrompt:
		if rec.Ends {
			st.running = nil // its exchange is the record's
		} else {
			st.end()
		}
		st.replacePartial(len(rec.History) > 0)
	}
	st.partial = false
	s.History = append(s.History, rec.History...)
	s.Exchanges = append(s.Exchanges, rec.Exchanges...)
	for _, key := range rec.Allow {
		if !slices.Contains(s.Allow, key) {
			s.Allow = append(s.Allow, key)
		}
	}
	if rec.Usage != nil {
		s.Usage.add(*rec.Usage)
	}
}

// replacePartial drops a partial answer a new content takes the place of.
func (st *legacyState) replacePartial(replaced bool) {
	if st.partial && replaced && len(st.snap.History) > 0 {
		st.snap.History = st.snap.History[:len(st.snap.History)-1]
	}
	st.partial = false
}

// end ends the running prompt, if any, as interrupted.
func (st *legacyState) end() {
	if r := st.running; r != nil {
		st.running = nil
		st.snap.Usage.add(r.usage)
		st.snap.Exchanges = append(st.snap.Exchanges, r.exchange())
	}
}

// committedEnd is the offset just past the last line of session id's
// file (size bytes) that is kept: usually the file's end, which a read of
// its last line shows; after an interrupted write, the file is replayed.
func committedEnd(ctx context.Context, f *os.File, size int64, path, id string) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	if size > MaxFileSize {
		return 0, tooLarge(path, size)
	}
	line, err := lastLine(f, size)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	if line != nil && int64(len(line)) < size && json.Valid(line) {
		return size, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	r, err := replay(ctx, f, path, id)
	if err != nil {
		return 0, err
	}
	return r.end, nil
}

// tailChunk is how much one backwards read of a file's end asks for.
const tailChunk = 4 << 10

// lastLine is the complete last line of r (size bytes), '\n' included,
// reading backwards in chunks; nil when r does not end with '\n' or the
// line is longer than maxMetaLine, so no more than about maxMetaLine bytes
// are ever read.
func lastLine(r io.ReaderAt, size int64) ([]byte, error) {
	var tail []byte // r's last len(tail) bytes
	for int64(len(tail)) < size && len(tail) <= maxMetaLine {
		n := min(tailChunk, size-int64(len(tail)))
		chunk := make([]byte, n, n+int64(len(tail)))
		if _, err := r.ReadAt(chunk, size-int64(len(tail))-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		tail = append(chunk, tail...)
		if tail[len(tail)-1] != '\n' {
			return nil, nil
		}
		if i := bytes.LastIndexByte(tail[:len(tail)-1], '\n'); i >= 0 {
			tail = tail[i+1:]
			break
		}
	}
	if len(tail) > maxMetaLine {
		return nil, nil
	}
	return tail, nil
}

// firstLine is r's first line, '\n' included, read in chunks; nil when it
// is longer than maxMetaLine or has no '\n'.
func firstLine(r io.ReaderAt, size int64) ([]byte, error) {
	var head []byte
	for int64(len(head)) < size && len(head) <= maxMetaLine {
		chunk := make([]byte, min(tailChunk, size-int64(len(head))))
		n, err := r.ReadAt(chunk, int64(len(head)))
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		start := len(head)
		head = append(head, chunk[:n]...)
		if i := bytes.IndexByte(head[start:], '\n'); i >= 0 {
			head = head[:start+i+1]
			if len(head) > maxMetaLine {
				return nil, nil
			}
			return head, nil
		}
		if n == 0 {
			break
		}
	}
	return nil, nil
}
