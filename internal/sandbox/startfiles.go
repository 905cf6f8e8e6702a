package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/heldfile"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// MadeSuffix is what a start-up file a command made is renamed with.
const MadeSuffix = ".made-in-sandbox"

// startFiles watches the files gemini-ls reads as it starts, outside any
// sandbox, that a command could make: Config.StartupFiles (the .env files
// its loader looks for) that lie in a writable path and were not there
// when the sandbox was set up. A .env in the first root saying
// GEMINI_SANDBOX=false, SANDBOX_FLAGS=--privileged or
// GOOGLE_GEMINI_BASE_URL=… would undo the next session's sandbox or send
// its conversation elsewhere. Those that exist are masked read-only
// (masked), so only a new one needs watching; .gemini in a root is kept
// read-only, so nothing in it does.
//
// One that appears is renamed NAME+MadeSuffix before the next command
// starts (Confine, Session.Run), when a command ends (TakeBack) and when
// the sandbox closes: nothing is lost, and the user and the model are
// told. The watched paths are recorded in Config.WatchDir (in
// gemini-ls's state directory, which no command can write) until the
// sandbox closes: a gemini-ls starting beside it, or after it died,
// moves them aside too (MoveAsideWatched) before it reads a .env. The
// record is locked while the sandbox lives: the lock, not a process id
// that may be another's since, tells a live sandbox's record from one
// left behind.
type startFiles struct {
	watched []string
	warn    func(string)
	open    func(string) bool // Config.OpenInEditor
	// dir holds the record, at record ("" when none was written), held
	// open with its lock taken.
	dir, record string
	held        *os.File

	mu    sync.Mutex
	moved []string // what TakeBack has not said yet
}

// watchStartFiles are s's startFiles, chosen as the sandbox is set up.
func (s *Sandbox) watchStartFiles() *startFiles {
	w := &startFiles{warn: s.cfg.Warn, open: s.cfg.OpenInEditor, dir: s.cfg.WatchDir}
	writable := s.writable()
	var governed []string
	for _, root := range s.roots() {
		governed = append(governed, configfiles.GeminiDir(root))
	}
	for _, p := range s.cfg.StartupFiles {
		inWritable := slices.ContainsFunc(writable, func(dir string) bool { return workspace.Within(dir, p) })
		isGoverned := slices.ContainsFunc(governed, func(dir string) bool { return workspace.Within(dir, p) })
		if _, err := os.Lstat(p); os.IsNotExist(err) && inWritable && !isGoverned {
			w.watched = append(w.watched, p)
		}
	}
	if len(w.watched) > 0 && w.dir != "" {
		w.record, w.held, _ = writeWatchRecord(w.dir, w.watched) // unwritten: this process still watches
	}
	return w
}

// watchRecord is what a sandbox records of its startFiles.
type watchRecord struct {
	Paths []string `json:"paths"`
}

// writeWatchRecord records paths as this process's, in a file of its own
// in dir, and returns it open with its lock held: close it once removed.
func writeWatchRecord(dir string, paths []string) (string, *os.File, error) {
	b, err := json.Marshal(watchRecord{Paths: paths})
	if err != nil {
		return "", nil, err
	}
	return heldfile.Record(dir, b)
}

// maxWatchRecord bounds a record read: a few paths.
const maxWatchRecord = 64 << 10

// MoveAsideWatched moves aside, for a gemini-ls about to read a .env, the
// start-up files that sandboxes recorded as watched (startFiles) and that
// exist now, whether their gemini-ls runs beside this one or died
// without closing them, warning the user of each; the records of those
// gone (their lock free) are removed. dir is the sandboxes'
// Config.WatchDir.
func MoveAsideWatched(dir string, warn func(string)) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // none recorded
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue // one being written, or not a record
		}
		p := filepath.Join(dir, e.Name())
		// Gone: its lock was free, so no sandbox keeps it.
		b, gone, err := heldfile.ReadRecord(p, maxWatchRecord)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		var rec watchRecord
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err == nil {
			// Only .env files: a record damaged otherwise moves nothing
			// else.
			rec.Paths = slices.DeleteFunc(rec.Paths, func(p string) bool { return filepath.Base(p) != ".env" })
			w := &startFiles{watched: rec.Paths, warn: warn}
			w.check()
		}
		if gone {
			os.Remove(p) // done with, or not a record of ours
		}
	}
}

// check moves aside each watched file that now exists.
func (w *startFiles) check() {
	if w == nil {
		return
	}
	w.mu.Lock()
	var said, users []string
	for _, p := range w.watched {
		switch _, err := os.Lstat(p); {
		case err != nil:
		case w.open != nil && w.open(p):
			// Made in the editor, or looked at there: the user's, who
			// might not see a message before it is gone.
			users = append(users, p)
		default:
			said = append(said, moveAside(p))
		}
	}
	w.unwatch(users)
	w.moved = append(w.moved, said...)
	w.mu.Unlock()
	warnEach(w.warn, said)
}

// warnEach tells warn (when set) each of what was set aside, after the
// watcher's lock is let go.
func warnEach(warn func(string), said []string) {
	for _, msg := range said {
		if warn != nil {
			warn(msg)
		}
	}
}

// close looks a last time, for the last commands' files, and removes
// the record: none of this sandbox's commands runs any more.
func (w *startFiles) close() {
	if w == nil {
		return
	}
	w.check()
	w.mu.Lock()
	defer w.mu.Unlock()
	dropRecord(w.record, w.held)
	w.record, w.held = "", nil
}

// dropRecord removes a record, then lets go of its lock.
func dropRecord(record string, held *os.File) {
	if record != "" {
		os.Remove(record)
		held.Close()
	}
}

// moveAside renames p to the first free NAME+MadeSuffix[-N] and says so.
func moveAside(p string) string {
	to, err := renameAside(p)
	switch {
	case errors.Is(err, errNoFreeAside):
		return fmt.Sprintf("%s was made while commands ran in the sandbox, and gemini-ls reads it when it starts, outside the sandbox; it was not moved aside (too many %s files): delete it unless you made it", p, MadeSuffix)
	case err != nil:
		return fmt.Sprintf("%s was made while commands ran in the sandbox, and gemini-ls reads it when it starts, outside the sandbox; moving it aside failed (%v): delete it unless you made it", p, errors.Unwrap(err))
	}
	return fmt.Sprintf("%s was made while commands ran in the sandbox; gemini-ls reads it when it starts, outside the sandbox, where it could turn the sandbox off, so it was renamed %s; only the user can put it back (one a command makes there is moved aside again)", p, to)
}

// Approve stops watching paths, start-up files and project
// configuration the user let the agent's edit tools write (a .env or a
// .vscode/tasks.json proposed and accepted): they are the user's. Once
// there, a command cannot change them (masked, governing).
func (s *Sandbox) Approve(paths ...string) {
	if s == nil {
		return
	}
	s.gitWatch.approve(paths)
	if s.startFiles == nil {
		return
	}
	s.startFiles.mu.Lock()
	defer s.startFiles.mu.Unlock()
	s.startFiles.unwatch(paths)
}

// unwatch stops watching paths, here and in the record; w.mu is held.
func (w *startFiles) unwatch(paths []string) {
	n := len(w.watched)
	w.watched = slices.DeleteFunc(w.watched, func(p string) bool { return slices.Contains(paths, p) })
	if len(w.watched) == n || w.record == "" {
		return
	}
	record, held := w.record, w.held
	w.record, w.held = "", nil
	if len(w.watched) > 0 {
		w.record, w.held, _ = writeWatchRecord(w.dir, w.watched) // before the old goes: one is always there
	}
	dropRecord(record, held)
}

// TakeBack moves aside the start-up files commands made (startFiles),
// the git directories they made that run a program and the project
// configuration they made in a root (gitWatch), and says, once, what
// was moved since it last said: "" when nothing was.
// A command's result carries it, so the model knows its file is gone.
func (s *Sandbox) TakeBack() string {
	if s == nil {
		return ""
	}
	var moved []string
	if s.startFiles != nil {
		s.startFiles.check()
		s.startFiles.mu.Lock()
		moved = s.startFiles.moved
		s.startFiles.moved = nil
		s.startFiles.mu.Unlock()
	}
	return strings.Join(append(moved, s.gitWatch.take()...), "\n")
}
