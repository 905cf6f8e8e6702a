package sessionstore

import (
	"io/fs"
	"os"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// sessionEntry is one of a chats directory's session files, as listed
// and stat-ed (err when it could not be).
type sessionEntry struct {
	name string
	info fs.FileInfo
	err  error
}

// sessionEntries lists chats' session files (of at most MaxListed*4
// entries read), sorted by name, each stat-ed beneath the directory
// opened once: a stat by the file's whole path walks each directory of
// the path again, for every file (a third of clean-up's CPU among a
// thousand sessions). An entry named as a session file that is not a
// regular file is left out, told to notRegular when it is not nil.
func sessionEntries(chats string, notRegular func(name string)) ([]sessionEntry, error) {
	entries, err := safefile.ReadDir(chats, MaxListed*4)
	if err != nil {
		return nil, err
	}
	dir, err := os.OpenRoot(chats)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	out := make([]sessionEntry, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, sharedPrefix) || !strings.HasSuffix(name, sharedExt) {
			continue
		}
		if !e.Type().IsRegular() {
			if notRegular != nil {
				notRegular(name)
			}
			continue
		}
		info, err := dir.Lstat(name)
		out = append(out, sessionEntry{name: name, info: info, err: err})
	}
	return out, nil
}
