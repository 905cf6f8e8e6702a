package sessionstore

import (
	"encoding/json"
	"io/fs"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// summariesName is the file in a chats directory where clean-up keeps
// what it read of each session file (its summary), so that the next
// start reads only the files changed since: a project's sessions,
// read whole at every start as 0.61 reads them, cost a headless run
// more than its turn once they were a few dozen. 0.61 reads only
// "session-*" files there, and so never this one.
const summariesName = ".gemini-ls-summaries.json"

// summariesLimit bounds the summaries file read: about 200 bytes a
// file, for the MaxListed*4 files clean-up reads at most, with room.
const summariesLimit = 4 << 20

// summariesVersion is the version of the file's format; a file of
// another is not read.
const summariesVersion = 1

// summaries are the summaries of a chats directory's session files: as
// the last clean-up left them (old), and as this one found them (now),
// which the file gets when they differ.
type summaries struct {
	path    string
	old     map[string]cachedSummary
	now     map[string]cachedSummary
	changed bool
}

// cachedSummary is a file's summary and what tells that the file is as
// it was when read: its size, modification time and file number.
type cachedSummary struct {
	Size        int64  `json:"size"`
	ModTime     int64  `json:"mtime"` // nanoseconds since the epoch
	Inode       uint64 `json:"ino,omitempty"`
	SessionID   string `json:"sessionId"`
	StartTime   string `json:"startTime,omitempty"`
	LastUpdated string `json:"lastUpdated,omitempty"`
	Kind        string `json:"kind,omitempty"`
	Resumable   bool   `json:"resumable"`
}

// summariesFile is the file's form.
type summariesFile struct {
	V     int                      `json:"v"`
	Files map[string]cachedSummary `json:"files"`
}

// loadSummaries reads chats' summaries file; one that is absent,
// unreadable, too large or of another version counts as empty: every
// file is then read, as without it.
func loadSummaries(chats string) *summaries {
	c := &summaries{path: filepath.Join(chats, summariesName), now: map[string]cachedSummary{}}
	data, err := safefile.Read(c.path, summariesLimit)
	if err != nil {
		return c
	}
	var f summariesFile
	if json.Unmarshal(data, &f) != nil || f.V != summariesVersion {
		return c
	}
	c.old = f.Files
	return c
}

// get is the summary kept of the file name when fi says it is unchanged
// since.
func (c *summaries) get(name string, fi fs.FileInfo) (summary, bool) {
	e, ok := c.old[name]
	if !ok || e.Size != fi.Size() || e.ModTime != fi.ModTime().UnixNano() || e.Inode != inode(fi) {
		return summary{}, false
	}
	c.now[name] = e
	return e.summary(), true
}

// put keeps sum as the summary of the file name, which was fi when read.
func (c *summaries) put(name string, fi fs.FileInfo, sum summary) {
	c.now[name] = cachedSummary{
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Inode: inode(fi),
		SessionID: sum.SessionID, StartTime: sum.StartTime, LastUpdated: sum.LastUpdated, Kind: sum.Kind,
		Resumable: sum.resumable,
	}
	c.changed = true
}

// forget drops the summary of the file name, removed.
func (c *summaries) forget(name string) {
	delete(c.now, name)
	c.changed = true
}

// save writes the summaries found when they differ from those read
// (a file changed, new or gone). The file is a cache: written without
// an fsync, and losing it only costs the next start a read of every
// file; so is failing to write it.
func (c *summaries) save() error {
	if !c.changed && len(c.now) == len(c.old) {
		return nil
	}
	data, err := json.Marshal(summariesFile{V: summariesVersion, Files: c.now})
	if err != nil {
		return err
	}
	return safefile.ReplaceCache(c.path, data)
}

func (e cachedSummary) summary() summary {
	return summary{
		header:    header{SessionID: e.SessionID, StartTime: e.StartTime, LastUpdated: e.LastUpdated, Kind: e.Kind},
		resumable: e.Resumable,
	}
}
