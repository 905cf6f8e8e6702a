package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

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
// starts (Wrap, Session.Run), when a command ends (TakeBack) and when
// the sandbox closes: nothing is lost, and the user and the model are
// told.
type startFiles struct {
	watched []string
	warn    func(string)

	mu    sync.Mutex
	moved []string // what TakeBack has not said yet
}

// watchStartFiles are s's startFiles, chosen as the sandbox is set up.
func (s *Sandbox) watchStartFiles() *startFiles {
	w := &startFiles{warn: s.cfg.Warn}
	writable := s.writable()
	var governed []string
	for _, root := range s.roots() {
		governed = append(governed, root+string(os.PathSeparator)+".gemini")
	}
	for _, p := range s.cfg.StartupFiles {
		inWritable := slices.ContainsFunc(writable, func(dir string) bool { return workspace.Within(dir, p) })
		isGoverned := slices.ContainsFunc(governed, func(dir string) bool { return workspace.Within(dir, p) })
		if _, err := os.Lstat(p); os.IsNotExist(err) && inWritable && !isGoverned {
			w.watched = append(w.watched, p)
		}
	}
	return w
}

// check moves aside each watched file that now exists.
func (w *startFiles) check() {
	if w == nil {
		return
	}
	w.mu.Lock()
	var said []string
	for _, p := range w.watched {
		if _, err := os.Lstat(p); err == nil {
			said = append(said, moveAside(p))
		}
	}
	w.moved = append(w.moved, said...)
	w.mu.Unlock()
	for _, msg := range said {
		if w.warn != nil {
			w.warn(msg)
		}
	}
}

// moveAside renames p to the first free NAME+MadeSuffix[-N] and says so.
func moveAside(p string) string {
	for n := 1; n < 100; n++ {
		to := p + MadeSuffix
		if n > 1 {
			to += "-" + strconv.Itoa(n)
		}
		if _, err := os.Lstat(to); !os.IsNotExist(err) {
			continue
		}
		if err := os.Rename(p, to); err != nil {
			return fmt.Sprintf("%s was made while commands ran in the sandbox, and gemini-ls reads it when it starts, outside the sandbox; moving it aside failed (%v): delete it unless you made it", p, err)
		}
		return fmt.Sprintf("%s was made while commands ran in the sandbox; gemini-ls reads it when it starts, outside the sandbox, where it could turn the sandbox off, so it was renamed %s: rename it back to use it", p, to)
	}
	return fmt.Sprintf("%s was made while commands ran in the sandbox, and gemini-ls reads it when it starts, outside the sandbox; it was not moved aside (too many %s files): delete it unless you made it", p, MadeSuffix)
}

// TakeBack moves aside the start-up files commands made (startFiles) and
// says, once, what was moved since it last said: "" when nothing was.
// A command's result carries it, so the model knows its file is gone.
func (s *Sandbox) TakeBack() string {
	if s == nil || s.startFiles == nil {
		return ""
	}
	s.startFiles.check()
	s.startFiles.mu.Lock()
	defer s.startFiles.mu.Unlock()
	text := strings.Join(s.startFiles.moved, "\n")
	s.startFiles.moved = nil
	return text
}
