package sessionstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"
)

// Begin is a prompt that starts, as Store.Begin records it.
type Begin struct {
	// Meta is the session's metadata as the prompt starts (its prompt
	// counted, its title set).
	Meta Meta
	// Prompt is what the user typed.
	Prompt string
	// History is what the history gained that is not on disk: the
	// contents closing an interrupted prompt (Snapshot.Saved), then the
	// prompt's input, last.
	History []*genai.Content
	// Context is the session context, when it is not on disk yet
	// (Turn.Context).
	Context string
	// Place, when not nil, is where the session's file is, kept by the
	// session from one prompt to the next: Begin opens the file it names
	// (checked to be that file still) and keeps the file it opened there.
	Place *Place
}

// Step is one content the history of a running prompt gained.
type Step struct {
	Content *genai.Content
	// Model answered it (a model content), Usage is its response's tokens.
	Model string
	Usage Usage
	// Partial: the answers of the calls that have ended, the others still
	// running; the next step (partial or not) takes its place.
	Partial bool
}

// Recorder records one running prompt of a session as it happens: Begin
// writes the prompt before the first model request, Record each content
// as it completes, Commit the prompt's end. Each write reaches the file
// (the kernel) before the call returns, so a process killed at any point
// keeps every record written; a record's fsync follows on a goroutine of
// its own, coalesced with the others under way, so a power loss loses at
// most the records of the last fsync's time. A write that fails is
// returned and ends the recording: the rest of the prompt goes in
// Commit's record, through a fresh open.
//
// Record may be called from several goroutines (the calls of one answer
// end concurrently); Replace and Commit from the prompt's.
type Recorder struct {
	s      *Store
	id     string
	root   string // the project root of a shared file; "" for an old-directory one
	path   string
	dir    string
	meta   Meta
	prompt Exchange // the running prompt: typed text, message id, answer so far
	// promptOf is the id of the message of the begin line whose text is
	// the prompt's, left out of the line's record (storeOnce); "" when
	// the line holds both.
	promptOf string

	mu      sync.Mutex
	file    *syncedFile // nil once closed: the next record reopens path
	partial string      // the id of the partial answer being gathered (shared)
	// partialOld: the last record written was partial (old directory).
	partialOld bool
	err        error // the failure that ended the recording
}

// Begin records that a prompt of session b.Meta.ID starts: its file
// created (or an old-directory session moved to the shared place, as
// Append moves it), then the prompt's line written, before Begin returns.
func (s *Store) Begin(ctx context.Context, b Begin) (*Recorder, error) {
	id := b.Meta.ID
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("saving session: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &Recorder{s: s, id: id, meta: b.Meta, prompt: Exchange{Prompt: b.Prompt}}
	root := s.sharedRoot(b.Meta.Root)
	sf, err := s.openKnown(b.Place, b.Meta, root)
	if err != nil {
		return nil, err
	}
	if sf == nil {
		if sf, err = s.openFor(ctx, b.Meta, root, b.Place); err != nil {
			return nil, err
		}
	}
	var line net.Buffers
	if sf.chats == "" {
		var enc []byte
		enc, err = encode(record{Kind: kindBegin, Meta: &b.Meta, History: b.History, Running: &r.prompt, Context: b.Context})
		line = net.Buffers{enc}
	} else {
		r.root = root
		var msgs []message
		line, msgs, r.promptOf, err = s.promptLine(b.Meta, root, lsRecord{V: sharedVersion, Step: stepBegin, Running: &r.prompt, Context: b.Context}, b.History, Usage{}, nil)
		if n := len(msgs); n > 0 {
			r.prompt.MessageID = msgs[n-1].ID
		}
	}
	if err != nil {
		sf.f.Close()
		return nil, fmt.Errorf("saving session %s: %w", id, err)
	}
	r.path, r.dir = sf.path, filepath.Dir(sf.path)
	if err := sf.write(id, append(net.Buffers{sf.head}, line...)); err != nil {
		sf.f.Close()
		b.Place.forget()
		return nil, err
	}
	if sf.chats != "" {
		b.Place.keep(root, sf.chats, sf)
	}
	r.file = s.durable.watch(sf.f, dirIf(sf.created, r.dir))
	r.file.wrote()
	return r, nil
}

// openKnown opens the shared file place names for root, when it still
// names the file kept there; nil when the file is to be looked for.
func (s *Store) openKnown(place *Place, m Meta, root string) (*appendFile, error) {
	path := place.known(root)
	if path == "" {
		return nil, nil
	}
	f, fi, ok, err := place.openKnown()
	if err != nil || !ok {
		place.forget()
		return nil, err
	}
	sf, err := s.prepareShared(f, fi, false, path, m, root)
	if err != nil {
		return nil, err
	}
	sf.chats = place.chats
	return sf, nil
}

// openFor opens session m.ID's file for root as Append finds it: in the
// shared place (an old-directory session moved there first), else in
// the old directory. A fresh place's session has no file to look for.
func (s *Store) openFor(ctx context.Context, m Meta, root string, place *Place) (*appendFile, error) {
	chats, err := s.chats(root, true)
	if err != nil {
		return nil, fmt.Errorf("saving session %s: %w", m.ID, err)
	}
	if chats == "" {
		return s.openLegacy(ctx, m)
	}
	sf, err := s.openSharedFor(ctx, chats, m, root, place)
	if err != nil {
		return nil, err
	}
	sf.chats = chats
	return sf, nil
}

// moveLegacy moves session m.ID, which has no shared file, from the old
// directory to the shared place when it is there: whole, the old file
// left as it was. moved reports that it was.
func (s *Store) moveLegacy(ctx context.Context, m Meta) (moved bool, err error) {
	old, err := s.loadLegacy(ctx, m.ID)
	switch {
	case errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("saving session %s: %w", m.ID, err)
	}
	old.Meta, old.History = m, old.History[:old.Saved]
	return true, s.Replace(ctx, old)
}

// Record writes one content the prompt's history gained. After a failure
// (returned once) it writes nothing more.
func (r *Recorder) Record(st Step) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil
	}
	if st.Content.Role == genai.RoleModel {
		r.answered(st.Content)
	}
	var line net.Buffers
	var err error
	if r.root == "" {
		u := &st.Usage
		if *u == (Usage{}) {
			u = nil
		}
		var old []byte
		old, err = encode(record{Kind: kindContent, History: []*genai.Content{st.Content}, Usage: u, Partial: st.Partial})
		line = net.Buffers{old}
		r.partialOld = st.Partial
	} else {
		id := r.partial
		if id == "" {
			id = NewID()
		}
		r.partial = ""
		if st.Partial {
			r.partial = id
		}
		m := messageOf(st.Content, id, st.Model, time.Now())
		if st.Usage != (Usage{}) && m.Type == "gemini" {
			m.Tokens = tokensOf(st.Usage)
		}
		m.LS = &lsMark{V: sharedVersion}
		line, err = messageLine(m)
	}
	if err != nil {
		return r.fail(fmt.Errorf("encoding the session's record: %w", err))
	}
	return r.write(line)
}

// messageLine is m's line, in the pieces written in turn. Its content,
// already JSON, is put in as it is, not copied: json.Marshal would scan
// it again to compact it, which costs more than encoding it did, and a
// tool's output is most of a line.
func messageLine(m message) (net.Buffers, error) {
	content := m.Content
	m.Content = nil
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(content) == 0 {
		return net.Buffers{append(b, '\n')}, nil
	}
	return net.Buffers{b[:len(b)-1], []byte(`,"content":`), content, []byte("}\n")}, nil
}

// answered keeps the text of a model content for Running (Replace).
func (r *Recorder) answered(c *genai.Content) {
	text := plainText(nonNilParts(c.Parts))
	if text == "" {
		return
	}
	if r.prompt.Answer != "" {
		r.prompt.Answer += "\n\n"
	}
	r.prompt.Answer += text
}

// write appends line to the file, reopened if a Replace closed it; r.mu
// is held.
func (r *Recorder) write(line net.Buffers) error {
	if r.file == nil {
		f, fi, created, err := openAppend(r.path)
		if err != nil {
			return r.fail(err)
		}
		r.file = r.s.durable.watch(f, dirIf(created, r.dir))
		r.file.size = fi.Size()
	}
	size := sizeOf(line)
	if r.file.size+size > MaxFileSize {
		return r.fail(fmt.Errorf("%w: %s would grow past %d MiB; start a new session", ErrTooLarge, r.path, MaxFileSize>>20))
	}
	if err := writeLines(r.file.f, line); err != nil {
		return r.fail(fmt.Errorf("writing %s: %w", r.path, err))
	}
	r.file.size += size
	r.file.wrote()
	return nil
}

func (r *Recorder) fail(err error) error {
	r.err = fmt.Errorf("saving session %s: %w", r.id, err)
	r.s.log.Warn("recording a prompt", zap.String("sessionId", r.id), zap.Error(err))
	return r.err
}

// Replace rewrites the whole session during the prompt (its history was
// compressed), as Store.Replace does, the running prompt noted in it;
// the records that follow go to the new file.
func (r *Recorder) Replace(ctx context.Context, snap Snapshot) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeFile()
	running := r.prompt
	running.MessageID = "" // the messages get new ids
	snap.Running = &running
	r.prompt.MessageID, r.promptOf, r.partial, r.partialOld = "", "", "", false
	if err := r.s.Replace(ctx, snap); err != nil {
		return err
	}
	if r.err != nil {
		// What failed to be written is in snap: record again.
		r.err = nil
	}
	return nil
}

// Commit records the prompt's end: t holds what Record did not write (its
// contents from the first that failed on) and the prompt's metadata,
// approvals, usage and exchange. The file is closed; its fsync follows,
// and a failed one is told by the store's next save.
func (r *Recorder) Commit(ctx context.Context, t Turn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		r.closeFile()
		return r.s.appendTurn(ctx, t, stepEnd)
	}
	if t.Exchange != nil && r.prompt.MessageID != "" {
		ex := *t.Exchange
		ex.MessageID = r.prompt.MessageID
		t.Exchange = &ex
	}
	var buf net.Buffers
	var err error
	if r.root == "" {
		var enc []byte
		enc, err = legacyTurn(t, true)
		buf = net.Buffers{enc}
	} else {
		var stored *Exchange
		if r.promptOf != "" {
			stored = &r.prompt
		}
		buf, _, _, err = r.s.promptLine(t.Meta, r.root, lsRecord{V: sharedVersion, Step: stepEnd, Allow: t.Allow, Usage: &t.Usage, Exchange: t.Exchange, Context: t.Context}, t.History, t.Usage, stored)
	}
	if err != nil {
		r.closeFile()
		return fmt.Errorf("saving session %s: %w", r.id, err)
	}
	err = r.write(buf)
	r.closeFile()
	if err != nil {
		return err
	}
	return r.s.durable.failure()
}

// Close ends the recording without a commit (the prompt's end is saved
// otherwise); what was written stays.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeFile()
}

func (r *Recorder) closeFile() {
	if r.file != nil {
		r.file.close()
		r.file = nil
	}
}

// appendFile is a session's file opened for appending, its torn end cut
// off; head is what a new file starts with.
type appendFile struct {
	f       *os.File
	path    string
	size    int64
	created bool
	head    []byte
	// opened is f as opened; chats the shared directory holding it, ""
	// for an old-directory file.
	opened fs.FileInfo
	chats  string
}

func (sf *appendFile) write(id string, buf net.Buffers) error {
	size := sizeOf(buf)
	if sf.size+size > MaxFileSize {
		return fmt.Errorf("saving session %s: %w: %s would grow past %d MiB; start a new session", id, ErrTooLarge, sf.path, MaxFileSize>>20)
	}
	// One write of whole lines (writeLines, their pieces gathered): a
	// crash leaves at most a torn last line, which both programs skip.
	if err := writeLines(sf.f, buf); err != nil {
		return fmt.Errorf("saving session %s: writing %s: %w", id, sf.path, err)
	}
	sf.size += size
	return nil
}

// openSharedFor opens session m.ID's shared file in chats as Begin
// does: looked for once (none to look for in a fresh place), else
// created, unless the old directory holds the session, moved first.
func (s *Store) openSharedFor(ctx context.Context, chats string, m Meta, root string, place *Place) (*appendFile, error) {
	if place != nil && place.fresh {
		place.fresh = false
		return s.openFresh(chats, m, root)
	}
	path, err := s.findShared(chats, m.ID)
	if err != nil {
		return nil, fmt.Errorf("saving session %s: %w", m.ID, err)
	}
	if path != "" {
		return s.openSharedAt(path, m, root)
	}
	moved, err := s.moveLegacy(ctx, m)
	switch {
	case err != nil:
		return nil, err
	case moved:
		return s.openShared(chats, m, root)
	}
	return s.openFresh(chats, m, root)
}

// openShared opens session m.ID's shared file in chats for appending
// (created, 0600, when it has none), a torn last line cut off.
func (s *Store) openShared(chats string, m Meta, root string) (*appendFile, error) {
	id := m.ID
	path, err := s.findShared(chats, id)
	if err != nil {
		return nil, fmt.Errorf("saving session %s: %w", id, err)
	}
	if path == "" {
		return s.openFresh(chats, m, root)
	}
	return s.openSharedAt(path, m, root)
}

// openFresh creates session m.ID's shared file in chats (opened as it is
// if it exists after all).
func (s *Store) openFresh(chats string, m Meta, root string) (*appendFile, error) {
	if err := os.MkdirAll(chats, 0o700); err != nil {
		return nil, fmt.Errorf("saving session %s: %w", m.ID, err)
	}
	return s.openSharedAt(freshPath(chats, m), m, root)
}

// openSharedAt opens the shared file path of session m.ID for appending.
func (s *Store) openSharedAt(path string, m Meta, root string) (*appendFile, error) {
	f, fi, created, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return s.prepareShared(f, fi, created, path, m, root)
}

// prepareShared is f, session m.ID's shared file opened at path, ready
// for appending: a torn last line cut off, the header to write first
// when it is empty. f is closed on failure.
func (s *Store) prepareShared(f *os.File, fi fs.FileInfo, created bool, path string, m Meta, root string) (*appendFile, error) {
	id := m.ID
	sf := &appendFile{f: f, path: path, size: fi.Size(), created: created, opened: fi}
	err := s.cutTorn(sf, id, func() (int64, error) { return completeEnd(f, sf.size) })
	if err == nil && sf.size == 0 {
		sf.head, err = headerLine(m, root)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("saving session %s: %w", id, err)
	}
	return sf, nil
}

// openLegacy opens session m.ID's file in the old directory for
// appending (created, 0600, when it has none), a torn end cut off.
func (s *Store) openLegacy(ctx context.Context, m Meta) (*appendFile, error) {
	id := m.ID
	path, err := s.path(id)
	if err != nil {
		return nil, fmt.Errorf("saving session: %w", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("saving session %s: %w", id, err)
	}
	f, fi, created, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	sf := &appendFile{f: f, path: path, size: fi.Size(), created: created}
	err = s.cutTorn(sf, id, func() (int64, error) { return committedEnd(ctx, f, sf.size, path, id) })
	if err == nil && sf.size == 0 {
		sf.head, err = encodeMeta(m) // the header
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

// cutTorn cuts what end says an interrupted write left at the end of sf.
func (s *Store) cutTorn(sf *appendFile, id string, end func() (int64, error)) error {
	if sf.size > MaxFileSize {
		return tooLarge(sf.path, sf.size)
	}
	if sf.size == 0 {
		return nil
	}
	e, err := end()
	if err != nil {
		return fmt.Errorf("reading %s: %w", sf.path, err)
	}
	if e < sf.size {
		s.log.Warn("dropping the torn end of a session file", zap.String("path", sf.path), zap.Int64("bytes", sf.size-e))
		if err := sf.f.Truncate(e); err != nil {
			return fmt.Errorf("truncating the torn end of %s: %w", sf.path, err)
		}
		sf.size = e
	}
	return nil
}

// syncGap is how long a running prompt's records wait for their fsync:
// the writes of that time share one. An append to a file waits for the
// journal commit an fsync of it makes (ext4: its size changes), so an
// fsync after each record would hold up the next (0.3 to 6.5 ms each on
// these machines, against tens of microseconds for the write); a power
// loss loses at most the records of the last syncGap. The end of a prompt
// is synced at once.
const syncGap = time.Second

// syncedFile is a file being appended to whose writes are fsynced off
// the writer's path: one fsync at a time, each covering every write made
// before it started, at most one a syncGap until the file is closed.
type syncedFile struct {
	d    *durability
	f    *os.File
	dir  string // synced once too: the file is new there
	size int64

	mu                     sync.Mutex
	dirty, running, closed bool
	// closing is closed by close: the fsync waiting for its gap goes now.
	closing chan struct{}
	// closedFile tells the store the file is closed (durability.willClose).
	closedFile func()
}

// watch takes f (the caller's no more once closed).
func (d *durability) watch(f *os.File, dir string) *syncedFile {
	return &syncedFile{d: d, f: f, dir: dir, closing: make(chan struct{})}
}

// wrote notes a write: an fsync follows.
func (y *syncedFile) wrote() {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.dirty = true
	y.start()
}

// close closes the file once its writes are synced.
func (y *syncedFile) close() {
	y.mu.Lock()
	defer y.mu.Unlock()
	if !y.closed {
		y.closed = true
		close(y.closing)
		y.closedFile = y.d.willClose(y.f.Name())
	}
	y.start()
}

// start runs the syncing goroutine unless it runs; y.mu is held.
func (y *syncedFile) start() {
	if !y.running {
		y.running = true
		y.d.pending.Go(y.loop)
	}
}

func (y *syncedFile) loop() {
	gap := time.NewTimer(syncGap)
	defer gap.Stop()
	for {
		select {
		case <-gap.C:
		case <-y.closing:
		}
		y.mu.Lock()
		if !y.dirty {
			y.running = false
			closed := y.closed
			y.mu.Unlock()
			if closed {
				if err := y.f.Close(); err != nil {
					y.d.fail(y.f.Name(), err)
				}
				y.closedFile()
			}
			return
		}
		y.dirty = false
		y.mu.Unlock()
		if err := y.d.syncFile(y.f); err != nil {
			y.d.fail(y.f.Name(), err)
		}
		if y.dir != "" {
			syncDir(y.dir)
			y.dir = ""
		}
		gap.Reset(syncGap)
	}
}
