package sessionstore

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"time"

	"go.uber.org/zap"

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
// another is not read. 2: listings are kept with their titles and
// display names cut (TitleRunes, DisplayNameRunes); version 1's were
// whole.
const summariesVersion = 2

// summaries are the summaries of a chats directory's session files, as
// the last reader left them and as this one updates them; the file
// gets them when they changed.
type summaries struct {
	path    string
	files   map[string]cachedSummary
	changed bool
	// at is when the files began to be read (after this, what a file's
	// stat says of it): a file modified too shortly before it may change
	// again without its stat showing it (racy).
	at time.Time
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
	// Listed: what a list shows of the file, when it was read whole.
	Listed *cachedListing `json:"listed,omitempty"`
	// Digest is the SHA-256 of what was read of a file modified within
	// its racy window before (summaries.racy): its stat cannot tell a
	// change made since in the same tick of the file system's clock, so
	// its content is read again and checked against this before the
	// summary is used (cheaper by far than decoding it).
	Digest string `json:"sha256,omitempty"`
}

// cachedListing is a listing's form in the file.
type cachedListing struct {
	LS          bool   `json:"ls,omitempty"`
	Meta        Meta   `json:"meta"`
	DisplayName string `json:"displayName,omitempty"`
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
	c := &summaries{path: filepath.Join(chats, summariesName), files: map[string]cachedSummary{}, at: time.Now()}
	data, err := safefile.Read(c.path, summariesLimit)
	if err != nil {
		return c
	}
	var f summariesFile
	if json.Unmarshal(data, &f) != nil || f.V != summariesVersion || f.Files == nil {
		return c
	}
	c.files = f.Files
	return c
}

// get is the summary kept of the file name in chats when fi says it is
// unchanged since (and, for one kept with a digest, its content says
// so too); with listed, only one that holds a listing.
func (c *summaries) get(chats, name string, fi fs.FileInfo, listed bool) (summary, bool) {
	e, ok := c.files[name]
	if !ok || e.Size != fi.Size() || e.ModTime != fi.ModTime().UnixNano() || e.Inode != inode(fi) || listed && e.Listed == nil {
		return summary{}, false
	}
	if e.Digest != "" {
		if d, err := digestOf(filepath.Join(chats, name)); err != nil || d != e.Digest {
			return summary{}, false
		}
		if !c.racy(fi) {
			e.Digest = ""
			c.files[name] = e
			c.changed = true
		}
	}
	return e.summary(), true
}

// read is the summary of the session file name in chats, listed as fi:
// the one kept when the file is unchanged since, else the file's
// (readSummary), then kept. whole: a list's, which needs what it shows
// of the file (summary.listed), and reads a large file whole for it.
func (c *summaries) read(ctx context.Context, chats, name string, fi fs.FileInfo, whole bool) (summary, error) {
	if sum, ok := c.get(chats, name, fi, whole); ok {
		return sum, nil
	}
	sum, opened, digest, err := readSummary(ctx, filepath.Join(chats, name), whole)
	if err != nil {
		return summary{}, err
	}
	c.put(name, opened, sum, digest)
	return sum, nil
}

// A file modified this shortly before it was read may change again
// within the same tick of the file system's clock without its time
// showing it, as git's index knows of "racily clean" entries. The tick
// is read from the time itself: one in whole seconds is of a clock that
// counts them (FAT's two, ext3's and HFS+'s one); one finer is of a
// clock that ticks every few milliseconds (Linux's 1–10 ms, Windows'
// 15.6 ms, exFAT's 10 ms). A script running gemini-ls again and again
// makes a session file every few tens of milliseconds, each of which a
// two-second window made every next start read again.
const (
	coarseRacyWindow = 2 * time.Second
	fineRacyWindow   = 100 * time.Millisecond
)

// racy reports whether fi was modified within its clock's racy window
// before the files began to be read (or after).
func (c *summaries) racy(fi fs.FileInfo) bool {
	m := fi.ModTime()
	window := fineRacyWindow
	if m.Nanosecond() == 0 {
		window = coarseRacyWindow
	}
	return c.at.Sub(m) < window
}

// put keeps sum as the summary of the file name, which was fi when read;
// one modified within its racy window before is kept with the digest of what
// was read of it, or not kept when it has none (read by its ends) or is
// larger than clean-up reads whole: checking its digest would read more
// than clean-up's look at its ends.
func (c *summaries) put(name string, fi fs.FileInfo, sum summary, digest string) {
	if !c.racy(fi) {
		digest = ""
	} else if digest == "" || fi.Size() > wholeReadLimit {
		c.forget(name)
		return
	}
	e := cachedSummary{
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Inode: inode(fi),
		SessionID: sum.SessionID, StartTime: sum.StartTime, LastUpdated: sum.LastUpdated, Kind: sum.Kind,
		Resumable: sum.resumable, Digest: digest,
	}
	if l := sum.listed; l != nil {
		e.Listed = &cachedListing{LS: l.ls, Meta: l.meta, DisplayName: l.meta.DisplayName}
	}
	if old, ok := c.files[name]; ok && old == e {
		return // read again for a listing it is not kept with: nothing new
	}
	c.files[name] = e
	c.changed = true
}

// forget drops the summary of the file name, removed.
func (c *summaries) forget(name string) {
	if _, ok := c.files[name]; ok {
		delete(c.files, name)
		c.changed = true
	}
}

// keepOnly drops the summaries of the files not among present (the
// directory's session files).
func (c *summaries) keepOnly(present map[string]bool) {
	for name := range c.files {
		if !present[name] {
			c.forget(name)
		}
	}
}

// save writes the summaries when they changed. The file is a cache:
// written without an fsync, and losing it only costs the next reader a
// read of every file; so does failing to write it, which is logged.
func (c *summaries) save(log *zap.Logger) {
	if !c.changed {
		return
	}
	data, err := json.Marshal(summariesFile{V: summariesVersion, Files: c.files})
	if err == nil {
		err = safefile.ReplaceCache(c.path, data)
	}
	if err != nil {
		log.Debug("could not keep what was read of the session files", zap.String("file", c.path), zap.Error(err))
	}
}

func (e cachedSummary) summary() summary {
	sum := summary{
		header:    header{SessionID: e.SessionID, StartTime: e.StartTime, LastUpdated: e.LastUpdated, Kind: e.Kind},
		resumable: e.Resumable,
	}
	if l := e.Listed; l != nil {
		sum.listed = &listing{ls: l.LS, meta: l.Meta}
		sum.listed.meta.DisplayName = l.DisplayName
	}
	return sum
}
