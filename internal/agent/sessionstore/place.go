package sessionstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Place is where a session's shared file is, as its last prompt's Begin
// found and opened it: the session keeps it for its life (Begin.Place),
// so that each prompt's Begin opens that file again instead of looking
// for it (Gemini CLI's project directory, the chats directory read whole,
// a header read per candidate, the old directory). Begin checks the
// file it names before trusting it: one removed underneath (Delete,
// another process, a clean-up) or replaced (a rewrite renames a new file
// over it) is looked for again, as when nothing was kept.
//
// The session's prompts run one at a time, and only they use it.
type Place struct {
	// fresh: no file can hold the session (its id was made by this
	// process and nothing of it was saved): the first Begin creates its
	// file without looking for one.
	fresh bool
	// root is the project the file was found for; chats its directory.
	root, chats, path string
	// opened is the file as the last Begin opened it: its name must
	// still name that file.
	opened fs.FileInfo
}

// NewPlace is a session's Place before its first save; fresh says that
// no file can hold it yet (a new session, its id made here).
func NewPlace(fresh bool) *Place { return &Place{fresh: fresh} }

// known is p's file when it was found for root; "" when it has to be
// looked for.
func (p *Place) known(root string) string {
	if p == nil || p.path == "" || p.root != root {
		return ""
	}
	return p.path
}

// keep notes the shared file Begin opened for root.
func (p *Place) keep(root, chats string, sf *appendFile) {
	if p == nil {
		return
	}
	*p = Place{root: root, chats: chats, path: sf.path, opened: sf.opened}
}

// forget drops what p knew: the next Begin looks for the file.
func (p *Place) forget() {
	if p != nil {
		*p = Place{}
	}
}

// openKnown opens p's file for appending when its name still names the
// file p kept (ok false when it does not: removed, replaced), refusing
// anything but a regular file as openAppend does.
func (p *Place) openKnown() (f *os.File, fi fs.FileInfo, ok bool, err error) {
	checked, err := os.Lstat(p.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, fmt.Errorf("saving session: %w", err)
	case !os.SameFile(checked, p.opened):
		return nil, nil, false, nil
	}
	f, fi, _, err = openAppend(p.path)
	if err != nil {
		return nil, nil, false, err
	}
	if !os.SameFile(fi, p.opened) {
		f.Close() // replaced since the Lstat
		return nil, nil, false, nil
	}
	return f, fi, true, nil
}

// freshPath is where a fresh session's file goes in chats.
func freshPath(chats string, m Meta) string {
	return filepath.Join(chats, sharedName(m.ID, m.Created))
}
