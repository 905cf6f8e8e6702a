package sessionstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

const (
	// MaxFileSize bounds a session file: Append refuses to grow a file past
	// it and Load refuses a larger one, with ErrTooLarge.
	MaxFileSize = 256 << 20
	// MaxIDLength bounds a session id.
	MaxIDLength = 128
	// MaxListed is how many session files List considers, the most recently
	// modified first.
	MaxListed = 1000

	// maxMetaLine bounds an encoded meta line, so List finds one in a
	// bounded read from the end of a file.
	maxMetaLine = 64 << 10
	// version is the file format's; every meta line carries it.
	version = 1
	// ext ends every session file's name.
	ext = ".jsonl"
)

var (
	// ErrNotFound is returned (wrapped with the id) for a session with no
	// file, or a file with nothing committed in it.
	ErrNotFound = errors.New("no saved session")
	// ErrInvalidID is returned for an id with characters other than
	// letters, digits, '-' and '_', or longer than MaxIDLength.
	ErrInvalidID = errors.New("invalid session id")
	// ErrCorrupt is returned (as a *CorruptError) for a file damaged before
	// its last committed record.
	ErrCorrupt = errors.New("session file is corrupt")
	// ErrTooLarge is returned for a file over MaxFileSize, or an append or
	// replace that would make one.
	ErrTooLarge = errors.New("session file too large")
	// ErrNewerFormat is returned (as a *NewerFormatError) for a file
	// holding a record of a session format newer than this gemini-ls
	// reads: a newer gemini-ls wrote it.
	ErrNewerFormat = errors.New("session written by a newer gemini-ls")
	// ErrNotRegular is returned for a directory, symlink, FIFO or other
	// special file where a session file should be.
	ErrNotRegular = errors.New("not a regular file")
)

// CorruptError names the file and the 1-based line that is damaged.
type CorruptError struct {
	Path   string
	Line   int
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("session file %s is corrupt at line %d: %s", e.Path, e.Line, e.Reason)
}

func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// NewerFormatError names the file and the 1-based line holding a record
// of session format Version, which a newer gemini-ls wrote, and the
// formats this one reads (From to To).
type NewerFormatError struct {
	Path          string
	Line, Version int
	From, To      int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("session file %s was written by a newer gemini-ls: line %d is in session format %d, and this gemini-ls reads session formats %d to %d; update gemini-ls to resume this session",
		e.Path, e.Line, e.Version, e.From, e.To)
}

func (e *NewerFormatError) Is(target error) bool { return target == ErrNewerFormat }

// Meta describes a session; List returns it without reading the history.
type Meta struct {
	ID      string    `json:"id"`
	Root    string    `json:"root,omitempty"` // the workspace root the session worked in
	Title   string    `json:"title,omitempty"`
	Model   string    `json:"model,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Prompts int       `json:"prompts"`
	// Mode is the session's approval mode when it was saved ("plan",
	// "auto_edit"…), and ApprovedPlan the plan file the user last
	// approved in it; both "" in files saved before they were kept.
	Mode         string `json:"mode,omitempty"`
	ApprovedPlan string `json:"approvedPlan,omitempty"`
	// ContextUsed and ContextSize are how full the model's context window
	// was at the session's last answer, the prompt's tokens and the
	// window's (dialog.ContextFill): shown again when it is resumed, as
	// the tokens it used are. Zero in files saved before they were kept.
	ContextUsed int32 `json:"contextUsed,omitempty"`
	ContextSize int32 `json:"contextSize,omitempty"`
	// Shared: the session is in Gemini CLI 0.61's place and format, where
	// both programs list and resume it; false for one of the old
	// gemini-ls-only directory. DisplayName is what 0.61's list shows of
	// it (its summary, else its first prompt); File is its file. None of
	// the three is saved: they are what List and Load found.
	Shared      bool   `json:"-"`
	DisplayName string `json:"-"`
	File        string `json:"-"`
}

// Usage counts tokens: one prompt's in a Turn, the session's sum in a
// Snapshot.
type Usage struct {
	PromptTokens     int64 `json:"prompt,omitempty"`
	CandidatesTokens int64 `json:"candidates,omitempty"`
	ThoughtsTokens   int64 `json:"thoughts,omitempty"`
	TotalTokens      int64 `json:"total,omitempty"`
	// CachedTokens are the part of PromptTokens the model's context cache
	// served.
	CachedTokens int64 `json:"cached,omitempty"`
}

func (u *Usage) add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CandidatesTokens += v.CandidatesTokens
	u.ThoughtsTokens += v.ThoughtsTokens
	u.TotalTokens += v.TotalTokens
	u.CachedTokens += v.CachedTokens
}

// Turn is what one prompt adds to a session: Meta is the session's
// metadata after the prompt, History the contents the prompt appended to
// the history, Allow the keys the user allowed for good during it, Usage
// the tokens it used.
type Turn struct {
	Meta     Meta
	History  []*genai.Content
	Allow    []string
	Usage    Usage
	Exchange *Exchange // nil when the prompt left none to show
	// Context is the session context the conversation's requests begin
	// with (<session_context>), as first sent, when it is not on disk
	// yet; "" otherwise.
	Context string
}

// Exchange is one prompt as the user saw it: what they asked, the model's
// text, and how the prompt ended. It is kept apart from the history, which
// holds what the model saw (editor context, attached files, tool results)
// and may be compressed; a client shows the transcript when it resumes a
// session.
type Exchange struct {
	Prompt     string `json:"prompt"`
	Answer     string `json:"answer,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// Files journals the agent's file changes during the prompt, one
	// per file in the order first changed, so a rewind can revert them.
	Files []FileEdit `json:"files,omitempty"`
	// MessageID is the id of the prompt's message in a shared file, so
	// that Gemini CLI's rewind to it drops the exchange too.
	MessageID string `json:"messageId,omitempty"`
}

// FileEdit is what the agent did to one file during one prompt: the
// file's exact bytes (BOM and line endings kept) before the prompt's
// first change to it and after its last. A change too large to journal
// keeps only its path and why (Unjournaled), so a rewind can say it
// cannot revert it.
type FileEdit struct {
	Path string `json:"path"`
	// Existed is false for a file the prompt created.
	Existed     bool   `json:"existed,omitempty"`
	Before      []byte `json:"before,omitempty"`
	After       []byte `json:"after,omitempty"`
	Unjournaled string `json:"unjournaled,omitempty"`
}

// Snapshot is a whole session: Load returns one, Replace writes one.
// Allow holds each key once, in the order first allowed; Usage is summed.
type Snapshot struct {
	Meta      Meta
	History   []*genai.Content
	Allow     []string
	Usage     Usage
	Exchanges []Exchange
	// Interrupted (Load): the session's last prompt never ended, its
	// process gone first (killed, its terminal closed). Its exchange is
	// the transcript's last, stopped "cancelled", with the answer it had;
	// History holds what was recorded of it, closed as the model accepts
	// it (Snapshot.close): each call with no result answered as
	// interrupted, and a last input answered with InterruptedNote.
	Interrupted bool
	// Saved (Load) is how many contents of History are on disk: those
	// after it close an interrupted prompt, and go to disk with the
	// session's next save.
	Saved int
	// Running (Replace) is the prompt under way when a session is
	// rewritten during it: what the user typed and the answer so far.
	Running *Exchange
	// Context is the session context the conversation's requests begin
	// with (<session_context>), as first sent, so that a resumed session
	// sends it again byte for byte; "" for none, and (Load) for a
	// session with no history left, which begins anew.
	Context string
}

// Store keeps sessions as files in one directory. It holds no mutable
// state; see the package doc for what is safe concurrently.
type Store struct {
	dir       string // the old gemini-ls-only directory
	log       *zap.Logger
	maxListed int
	// gemini is ~/.gemini and root the project the agent works in: with
	// both set, sessions are saved in Gemini CLI's place (shared.go).
	gemini, root string
	// durable syncs appended lines after Append returned (durable.go).
	durable durability
}

// Options say where a shared store keeps sessions.
type Options struct {
	// Dir is gemini-ls's old session directory (DefaultDir): read, and
	// written only for a session with no project root.
	Dir string
	// GeminiDir is Gemini CLI's ~/.gemini; Root the project whose
	// sessions are kept under its tmp/<project>/chats.
	GeminiDir, Root string
	Log             *zap.Logger
}

// Open returns a store keeping sessions where Gemini CLI 0.61 keeps
// them (opts.GeminiDir, opts.Root), reading those of the old directory
// too; without GeminiDir it is New(opts.Dir).
func Open(opts Options) (*Store, error) {
	s, err := New(opts.Dir, opts.Log)
	if err != nil {
		return nil, err
	}
	if opts.GeminiDir != "" && filepath.IsAbs(opts.GeminiDir) {
		s.gemini = filepath.Clean(opts.GeminiDir)
		if opts.Root != "" {
			s.root = filepath.Clean(opts.Root)
		}
	}
	return s, nil
}

// New returns a store keeping sessions in dir, an absolute path created
// (0700) on the first save. log (which may be nil) hears about files List
// skips.
func New(dir string, log *zap.Logger) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("the session directory %q is not an absolute path", dir)
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Store{dir: filepath.Clean(dir), log: log, maxListed: MaxListed}, nil
}

// Dir is the directory the store keeps sessions in.
func (s *Store) Dir() string { return s.dir }

// DefaultDir is where sessions are kept unless configured otherwise:
// StateDir's sessions; "" when it is unknown.
func DefaultDir(getenv func(string) string) string {
	if state := StateDir(getenv); state != "" {
		return filepath.Join(state, "sessions")
	}
	return ""
}

// StateDir is where gemini-ls keeps what it writes for itself
// (settings.StateDir).
func StateDir(getenv func(string) string) string { return settings.StateDir(getenv) }

// ValidateID returns an error matching ErrInvalidID unless id is a
// possible session id: 1 to MaxIDLength letters, digits, '-' or '_'.
func ValidateID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: the id is empty", ErrInvalidID)
	}
	if len(id) > MaxIDLength {
		return fmt.Errorf("%w: the id is %d bytes, over %d", ErrInvalidID, len(id), MaxIDLength)
	}
	for _, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return fmt.Errorf("%w %q: only letters, digits, '-' and '_' are allowed", ErrInvalidID, id)
		}
	}
	return nil
}

// path is the file of session id, which is validated first.
func (s *Store) path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id+ext), nil
}

// File is the file session id is saved in (hooks' transcript_path).
func (s *Store) legacyFile(id string) (string, error) { return s.path(id) }

// loadLegacy replays session id's file: its latest metadata, whole
// history, allow keys and summed usage. A torn last line is ignored; a
// prompt that never ended is read as interrupted.
func (s *Store) loadLegacy(ctx context.Context, id string) (Snapshot, error) {
	path, err := s.path(id)
	if err != nil {
		return Snapshot{}, fmt.Errorf("loading session: %w", err)
	}
	f, fi, err := openRead(path, id)
	if err != nil {
		return Snapshot{}, err
	}
	defer f.Close()
	if fi.Size() > MaxFileSize {
		return Snapshot{}, tooLarge(path, fi.Size())
	}
	r, err := replay(ctx, f, path, id)
	if err != nil {
		return Snapshot{}, err
	}
	if !r.found {
		return Snapshot{}, fmt.Errorf("loading session %s: %w: %s holds no complete prompt (its first save was interrupted)", id, ErrNotFound, path)
	}
	r.snap.close()
	return r.snap, nil
}

// appendLegacy saves one prompt of session t.Meta.ID, creating its file
// on the first: the prompt and the metadata are one write, then fsync.
// ends: the prompt is the one a Recorder began. A torn end an
// interrupted write left is cut off first.
func (s *Store) appendLegacy(ctx context.Context, t Turn, ends bool) error {
	id := t.Meta.ID
	if _, err := s.path(id); err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	buf, err := legacyTurn(t, ends)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sf, err := s.openLegacy(ctx, t.Meta)
	if err != nil {
		return err
	}
	// One write of whole lines: a crash leaves a prefix of them, which
	// the next append or load recognises by the missing meta line.
	if err := sf.write(id, net.Buffers{sf.head, buf}); err != nil {
		sf.f.Close()
		return err
	}
	s.durable.later(sf.f, dirIf(sf.created, s.dir))
	return s.durable.failure()
}

// legacyTurn is the prompt record of t and the meta line committing it.
func legacyTurn(t Turn, ends bool) ([]byte, error) {
	rec := record{Kind: kindPrompt, History: t.History, Allow: t.Allow, Usage: &t.Usage, Ends: ends, Context: t.Context}
	if t.Exchange != nil {
		rec.Exchanges = []Exchange{*t.Exchange}
	}
	prompt, err := encode(rec)
	if err != nil {
		return nil, err
	}
	meta, err := encodeMeta(t.Meta)
	if err != nil {
		return nil, err
	}
	return append(prompt, meta...), nil
}

// Replace rewrites session snap.Meta.ID's file to hold exactly snap, for
// when the history was rewritten (compressed): atomically, by a temp file
// renamed over the old one.
func (s *Store) replaceLegacy(ctx context.Context, snap Snapshot) error {
	id := snap.Meta.ID
	path, err := s.path(id)
	if err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	meta, err := encodeMeta(snap.Meta)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	body, err := encode(record{Kind: kindReplace, History: snap.History, Allow: snap.Allow, Usage: &snap.Usage, Exchanges: snap.Exchanges, Running: snap.Running, Context: snap.Context})
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	buf := append(append(append([]byte{}, meta...), body...), meta...)
	if len(buf) > MaxFileSize {
		return fmt.Errorf("saving session %s: %w: the session is %d MiB, over %d MiB", id, ErrTooLarge, len(buf)>>20, MaxFileSize>>20)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	s.durable.awaitClosed(path)
	if err := safefile.Replace(path, buf, 0o600); err != nil {
		return fmt.Errorf("saving session %s: replacing %s: %w", id, path, err)
	}
	syncDir(s.dir)
	return nil
}

// Delete removes session id's file.
func (s *Store) deleteLegacy(id string) error {
	path, err := s.path(id)
	if err != nil {
		return fmt.Errorf("deleting session: %w", err)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("deleting session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	if !fi.Mode().IsRegular() {
		return &notRegularError{path: path, mode: fi.Mode()}
	}
	s.durable.awaitClosed(path)
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	return nil
}

func tooLarge(path string, size int64) error {
	return fmt.Errorf("reading %s: %w: it is %d MiB, over %d MiB", path, ErrTooLarge, size>>20, MaxFileSize>>20)
}

// syncDir makes a file created or renamed in dir survive a crash. It is
// best effort: some file systems refuse to sync a directory, and the
// file's own data is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
