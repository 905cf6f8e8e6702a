package sandboxtrail

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/heldfile"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// Trail is the trail kept in one directory. The zero Trail (no
// directory known) records nothing and finds nothing.
type Trail struct{ dir string }

// At is the trail kept in dir.
func At(dir string) Trail { return Trail{dir: dir} }

// Dir is where the trail is kept, "" for the zero Trail: a sandbox
// whose commands could write there keeps it read-only.
func (t Trail) Dir() string { return t.dir }

// A Window is a span of time in which one sandbox's commands could write
// below its writable paths.
type Window struct {
	Writable []string `json:"writable"`
	// Roots are those of Writable whose .gemini the sandbox kept
	// read-only: the workspace roots.
	Roots []string `json:"roots,omitempty"`
	// From and To are Unix times in nanoseconds; To is 0 while the
	// window is open.
	From int64 `json:"from"`
	To   int64 `json:"to,omitempty"`
}

// Opened is a window kept open by this process.
type Opened struct {
	t      Trail
	w      Window
	record string
	held   *os.File
	once   sync.Once
	err    error
}

const (
	liveDir    = "live"
	closedFile = "closed.jsonl"
	// maxRecord bounds a live record read: a few paths.
	maxRecord = 256 << 10
	// maxClosed bounds the closed windows read; compactAt is the size
	// past which a close merges them.
	maxClosed = 16 << 20
	compactAt = 256 << 10
)

// Open records that from now on, until Close, the commands of a sandbox
// may write below writable, roots among them. It is on disk when Open
// returns; the zero Trail opens nothing (nil, which Close accepts).
func (t Trail) Open(writable, roots []string) (*Opened, error) {
	if t.dir == "" {
		return nil, nil
	}
	w := Window{Writable: canonicalAll(writable), Roots: canonicalAll(roots), From: time.Now().UnixNano()}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	record, f, err := heldfile.Record(filepath.Join(t.dir, liveDir), b)
	if err != nil {
		return nil, unrecorded(err)
	}
	return &Opened{t: t, w: w, record: record, held: f}, nil
}

func canonicalAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = canonical(p)
	}
	return out
}

// unrecorded is why a window could not be opened, and what to do.
func unrecorded(err error) error {
	return fmt.Errorf("recording a sandbox's writable paths: %w (sandboxed commands run only once that is on record, in gemini-ls's state directory: make it writable, or set XDG_STATE_HOME to a writable directory)", err)
}

// Close ends the window now: its sandbox runs no command any more. The
// window is added to the closed ones before its live record goes; when
// that fails, the record is kept, held until this process ends, after
// which a reader closes it (later, which only widens it).
func (o *Opened) Close() error {
	if o == nil {
		return nil
	}
	o.once.Do(func() {
		w := o.w
		w.To = time.Now().UnixNano()
		if o.err = o.t.appendClosed(context.Background(), []Window{w}); o.err != nil {
			return
		}
		os.Remove(o.record)
		o.held.Close()
	})
	return o.err
}

// Windows are the trail's windows as of now: the live ones (To 0),
// those whose process is gone (closed as of now, and recorded so), and
// the closed ones. now is when the dead are taken to have ended.
func (t Trail) Windows(ctx context.Context, now time.Time) ([]Window, error) {
	if t.dir == "" {
		return nil, nil
	}
	// The live first: a window is appended to the closed ones before its
	// record is removed, so read in this order none is missed.
	live, dead, err := t.live(now)
	if err != nil {
		return nil, err
	}
	closed, err := t.closed()
	if err != nil {
		return nil, err
	}
	if len(dead) > 0 {
		var ws []Window
		for _, d := range dead {
			ws = append(ws, d.w)
		}
		// Unrecorded, they stay live records, read again next time.
		if t.appendClosed(ctx, ws) == nil {
			for _, d := range dead {
				os.Remove(d.record)
			}
		}
	}
	out := live
	for _, d := range dead {
		out = append(out, d.w)
	}
	return append(out, closed...), nil
}

type deadRecord struct {
	record string
	w      Window
}

// live reads the live records: held, their windows open; free, their
// process gone, closed at now.
func (t Trail) live(now time.Time) (open []Window, dead []deadRecord, err error) {
	dir := filepath.Join(t.dir, liveDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the sandboxes' trail: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue // one being written
		}
		p := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			return nil, nil, fmt.Errorf("reading the sandboxes' trail: %s is not a file", p)
		}
		b, gone, err := heldfile.ReadRecord(p, maxRecord)
		if errors.Is(err, fs.ErrNotExist) {
			continue // closed meanwhile: among the closed now
		}
		var w Window
		if err == nil {
			err = json.Unmarshal(b, &w)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading the sandboxes' trail: %s: %w", p, err)
		}
		if gone {
			w.To = max(now.UnixNano(), w.From)
			dead = append(dead, deadRecord{record: p, w: w})
			continue
		}
		// Held, or the file system cannot say: open.
		w.To = 0
		open = append(open, w)
	}
	return open, dead, nil
}

// closed reads the closed windows. A last line without its newline is
// one being appended, whose window is still among the live.
func (t Trail) closed() ([]Window, error) {
	path := filepath.Join(t.dir, closedFile)
	b, err := safefile.Read(path, maxClosed)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sandboxes' trail %s: %w", path, err)
	}
	return parseClosed(path, b)
}

func parseClosed(path string, b []byte) ([]Window, error) {
	var out []Window
	for n := 1; len(b) > 0; n++ {
		line, rest, complete := bytes.Cut(b, []byte("\n"))
		if !complete {
			break
		}
		b = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var w Window
		if err := json.Unmarshal(line, &w); err != nil {
			return nil, fmt.Errorf("reading the sandboxes' trail %s, line %d: %w", path, n, err)
		}
		if w.To == 0 {
			w.To = math.MaxInt64 // a closed window without its end: never ends
		}
		if w.To < w.From {
			// It ended before it began: the clock was set back while it
			// was open (or the file is damaged). It spans both.
			w.From, w.To = w.To, w.From
		}
		out = append(out, w)
	}
	return out, nil
}

// appendClosed adds ws to the closed windows, synced, under the lock
// that keeps appends and compaction apart; past compactAt it merges
// them first.
func (t Trail) appendClosed(ctx context.Context, ws []Window) error {
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("recording a sandbox's closed window: %w", err)
	}
	path := filepath.Join(t.dir, closedFile)
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return fmt.Errorf("recording a sandbox's closed window: %w", err)
	}
	defer lock.Release()
	if info, err := os.Stat(path); err == nil && info.Size() > compactAt {
		if err := t.compact(path, lock); err != nil {
			return fmt.Errorf("recording a sandbox's closed window: %w", err)
		}
	}
	var buf bytes.Buffer
	for _, w := range ws {
		b, err := json.Marshal(w)
		if err != nil {
			return err
		}
		buf.Write(append(b, '\n'))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("recording a sandbox's closed window: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording a sandbox's closed window: %w", err)
	}
	return nil
}

// compact rewrites the closed windows merged: those over the same paths
// that overlap or lie within mergeGap of each other become one spanning
// both. Only wider, never narrower.
func (t Trail) compact(path string, lock *sharedlock.Lock) error {
	b, err := safefile.Read(path, maxClosed)
	if err != nil {
		return err
	}
	ws, err := parseClosed(path, b)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for _, w := range merge(ws, mergeGap) {
		line, err := json.Marshal(w)
		if err != nil {
			return err
		}
		out.Write(append(line, '\n'))
	}
	return safefile.ReplaceIf(path, out.Bytes(), 0o600, lock.Held)
}

// mergeGap is how far apart two windows over the same paths may lie and
// still be merged: a day's sessions become one window.
const mergeGap = int64(6 * time.Hour)

// merge merges the windows over the same writable paths and roots that
// overlap or lie within gap of each other.
func merge(ws []Window, gap int64) []Window {
	key := func(w Window) string {
		return strings.Join(w.Writable, "\x00") + "\x01" + strings.Join(w.Roots, "\x00")
	}
	slices.SortStableFunc(ws, func(a, b Window) int {
		if c := strings.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.From, b.From)
	})
	var out []Window
	for _, w := range ws {
		if n := len(out); n > 0 && key(out[n-1]) == key(w) && w.From <= plus(out[n-1].To, gap) {
			out[n-1].To = max(out[n-1].To, w.To)
			continue
		}
		out = append(out, w)
	}
	return out
}
