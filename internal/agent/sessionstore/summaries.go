package sessionstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
//
// The file is a line per session file, its fields separated by tabs,
// after a first line naming the format (summariesHeader). It is read at
// every start; as version 2's JSON (oldSummariesName), a thousand
// summaries cost a start 8 ms and 3.4 MB, most of it decoding what only
// a list needs (docs/benchmarks.md, "A thousand saved sessions").
const summariesName = ".gemini-ls-summaries"

// oldSummariesName is version 2's file, JSON: its summaries are read
// when this version's file is not there yet, and it is removed when this
// one is first written.
const oldSummariesName = ".gemini-ls-summaries.json"

// summariesHeader is the file's first line; a file beginning otherwise
// (another version) is not read. 3: lines of tab-separated fields.
const summariesHeader = "gemini-ls session summaries 3\n"

// summariesLimit bounds the summaries file read: about 500 bytes a
// file, for the MaxListed*4 files clean-up reads at most, with room.
const summariesLimit = 4 << 20

// summaries are the summaries of a chats directory's session files, as
// the last reader left them and as this one updates them; the file
// gets them when they changed.
type summaries struct {
	path    string
	files   map[string]cachedSummary
	changed bool
	// first: the directory held no summaries file of this version (its
	// version 2 file is then removed when this one is written).
	first bool
	// at is when the files began to be read (after this, what a file's
	// stat says of it): a file modified too shortly before it may change
	// again without its stat showing it (racy).
	at time.Time
}

// cachedSummary is a file's summary and what tells that the file is as
// it was when read: its size, modification time and file number.
type cachedSummary struct {
	Size        int64
	ModTime     int64 // nanoseconds since the epoch
	Inode       uint64
	SessionID   string
	StartTime   string
	LastUpdated string
	Kind        string
	Resumable   bool
	// Digest is the SHA-256 of what was read of a file modified within
	// its racy window before (summaries.racy): its stat cannot tell a
	// change made since in the same tick of the file system's clock, so
	// its content is read again and checked against this before the
	// summary is used (cheaper by far than decoding it).
	Digest string
	// Listed: what a list shows of the file, when it was read whole, as
	// the JSON of a cachedListing; decoded only for a list.
	Listed string
}

// cachedListing is a listing's form in the file.
type cachedListing struct {
	LS          bool   `json:"ls,omitempty"`
	Meta        Meta   `json:"meta"`
	DisplayName string `json:"displayName,omitempty"`
}

// loadSummaries reads chats' summaries file; one that is absent,
// unreadable, too large, of another version or not wholly well formed
// counts as empty: every file is then read, as without it.
func loadSummaries(chats string) *summaries {
	c := &summaries{path: filepath.Join(chats, summariesName), files: map[string]cachedSummary{}, at: time.Now()}
	data, err := safefile.Read(c.path, summariesLimit)
	if errors.Is(err, fs.ErrNotExist) {
		c.first = true
		if files, ok := loadOldSummaries(chats); ok {
			c.files, c.changed = files, true
		}
		return c
	}
	if err != nil {
		return c
	}
	if files, ok := parseSummaries(string(data)); ok {
		c.files = files
	}
	return c
}

// loadOldSummaries reads version 2's JSON file, so that the first start
// of this version does not read every session file again (a thousand
// took a start 250 ms, more when they are large). A summary it cannot
// keep as a line is left out, and its file read.
func loadOldSummaries(chats string) (map[string]cachedSummary, bool) {
	data, err := safefile.Read(filepath.Join(chats, oldSummariesName), summariesLimit)
	if err != nil {
		return nil, false
	}
	var old struct {
		V     int `json:"v"`
		Files map[string]struct {
			Size        int64           `json:"size"`
			ModTime     int64           `json:"mtime"`
			Inode       uint64          `json:"ino"`
			SessionID   string          `json:"sessionId"`
			StartTime   string          `json:"startTime"`
			LastUpdated string          `json:"lastUpdated"`
			Kind        string          `json:"kind"`
			Resumable   bool            `json:"resumable"`
			Listed      json.RawMessage `json:"listed"`
			Digest      string          `json:"sha256"`
		} `json:"files"`
	}
	if json.Unmarshal(data, &old) != nil || old.V != 2 {
		return nil, false
	}
	files := make(map[string]cachedSummary, len(old.Files))
	for name, o := range old.Files {
		e := cachedSummary{
			Size: o.Size, ModTime: o.ModTime, Inode: o.Inode,
			SessionID: o.SessionID, StartTime: o.StartTime, LastUpdated: o.LastUpdated, Kind: o.Kind,
			Resumable: o.Resumable, Digest: o.Digest,
		}
		var listed bytes.Buffer
		if len(o.Listed) > 0 && json.Compact(&listed, o.Listed) == nil && listed.String() != "null" {
			e.Listed = listed.String() // compact JSON: no tab or line's end
		}
		if keepable(name, e) {
			files[name] = e
		}
	}
	return files, true
}

// summaryFields is how many fields a line of the file holds.
const summaryFields = 11

// parseSummaries is the summaries data holds, when it is a summaries
// file of this version, whole (its last line ended). Every field is a
// substring of data: reading one costs no copy.
func parseSummaries(data string) (map[string]cachedSummary, bool) {
	rest, ok := strings.CutPrefix(data, summariesHeader)
	if !ok {
		return nil, false
	}
	files := make(map[string]cachedSummary, strings.Count(rest, "\n"))
	for rest != "" {
		line, after, ended := strings.Cut(rest, "\n")
		if !ended {
			return nil, false
		}
		rest = after
		var f [summaryFields]string
		for i := range f {
			var more bool
			f[i], line, more = strings.Cut(line, "\t")
			if more != (i < summaryFields-1) {
				return nil, false
			}
		}
		var e cachedSummary
		var err1, err2, err3 error
		e.Size, err1 = strconv.ParseInt(f[1], 10, 64)
		e.ModTime, err2 = strconv.ParseInt(f[2], 10, 64)
		e.Inode, err3 = strconv.ParseUint(f[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || f[0] == "" || (f[8] != "0" && f[8] != "1") {
			return nil, false
		}
		e.SessionID, e.StartTime, e.LastUpdated, e.Kind = f[4], f[5], f[6], f[7]
		e.Resumable, e.Digest, e.Listed = f[8] == "1", f[9], f[10]
		files[f[0]] = e
	}
	return files, true
}

// appendSummary is the line of the file name's summary e.
func appendSummary(b []byte, name string, e cachedSummary) []byte {
	b = append(append(b, name...), '\t')
	b = append(strconv.AppendInt(b, e.Size, 10), '\t')
	b = append(strconv.AppendInt(b, e.ModTime, 10), '\t')
	b = append(strconv.AppendUint(b, e.Inode, 10), '\t')
	for _, s := range []string{e.SessionID, e.StartTime, e.LastUpdated, e.Kind} {
		b = append(append(b, s...), '\t')
	}
	resumable := byte('0')
	if e.Resumable {
		resumable = '1'
	}
	b = append(b, resumable, '\t')
	b = append(append(b, e.Digest...), '\t')
	return append(append(b, e.Listed...), '\n')
}

// keepable reports whether the summary e of the file name can be a line
// of the file: a name or field holding a tab or a line's end (a session
// file's own text, whatever it holds) cannot, and is read again at each
// start instead. A listing is JSON, which writes neither.
func keepable(name string, e cachedSummary) bool {
	for _, s := range []string{name, e.SessionID, e.StartTime, e.LastUpdated, e.Kind, e.Digest} {
		if strings.ContainsAny(s, "\t\n") {
			return false
		}
	}
	return name != ""
}

// get is the summary kept of the file name in chats when fi says it is
// unchanged since (and, for one kept with a digest, its content says
// so too); with listed, only one that holds a listing.
func (c *summaries) get(chats, name string, fi fs.FileInfo, listed bool) (summary, bool) {
	e, ok := c.files[name]
	if !ok || e.Size != fi.Size() || e.ModTime != fi.ModTime().UnixNano() || e.Inode != inode(fi) || listed && e.Listed == "" {
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
	return e.summary(listed)
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
		listed, err := json.Marshal(cachedListing{LS: l.ls, Meta: l.meta, DisplayName: l.meta.DisplayName})
		if err != nil {
			c.forget(name)
			return
		}
		e.Listed = string(listed)
	}
	if !keepable(name, e) {
		c.forget(name)
		return
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
	err := safefile.ReplaceCache(c.path, c.encode())
	if err != nil {
		log.Debug("could not keep what was read of the session files", zap.String("file", c.path), zap.Error(err))
		return
	}
	if c.first {
		_ = os.Remove(filepath.Join(filepath.Dir(c.path), oldSummariesName))
		c.first = false
	}
}

// encode is the file of the summaries, its lines in the order of the
// files' names.
func (c *summaries) encode() []byte {
	names := make([]string, 0, len(c.files))
	size := len(summariesHeader)
	for name, e := range c.files {
		names = append(names, name)
		size += len(name) + len(e.SessionID) + len(e.StartTime) + len(e.LastUpdated) + len(e.Kind) + len(e.Digest) + len(e.Listed) + 3*20 + summaryFields + 1
	}
	slices.Sort(names)
	data := append(make([]byte, 0, size), summariesHeader...)
	for _, name := range names {
		data = appendSummary(data, name, c.files[name])
	}
	return data
}

// summary is the summary e keeps; with listed, its listing too, which
// is there to decode: a listing that is not (the file damaged where its
// lines still parse) is no summary, and the file is read again.
func (e cachedSummary) summary(listed bool) (summary, bool) {
	sum := summary{
		header:    header{SessionID: e.SessionID, StartTime: e.StartTime, LastUpdated: e.LastUpdated, Kind: e.Kind},
		resumable: e.Resumable,
	}
	if listed {
		var l cachedListing
		if json.Unmarshal([]byte(e.Listed), &l) != nil {
			return summary{}, false
		}
		sum.listed = &listing{ls: l.LS, meta: l.Meta}
		sum.listed.meta.DisplayName = l.DisplayName
	}
	return sum, true
}
