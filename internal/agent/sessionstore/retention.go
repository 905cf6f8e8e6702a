package sessionstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Retention is how long and how many of a project's shared sessions are
// kept (0.61's general.sessionRetention, validated by its caller).
type Retention struct {
	// MaxAge: a session last updated longer ago is removed; 0 for none.
	MaxAge time.Duration
	// MaxCount: only the most recently updated are kept; 0 for no bound.
	MaxCount int
}

// Expired is what Expire did, as 0.61's cleanup counts it.
type Expired struct {
	Scanned, Deleted, Skipped, Failed int
}

// sessionFile is one of a project's shared session files, as Expire
// judges it.
type sessionFile struct {
	path string
	id   string // "" when the file names no session
	// valid: 0.61 lists it (it has something to resume and is not a
	// subagent's); a file that is not valid is removed whatever its age.
	valid   bool
	updated time.Time
}

// Expire removes root's shared sessions (the store's project when root
// is "") as 0.61's cleanupExpiredSessions does at start-up: the files
// with nothing to resume, those last updated more than MaxAge ago, and
// those beyond the MaxCount most recent, each with its logs, tool outputs
// and subagents' sessions; never one that inUse says is open, which
// counts among the kept when inUse says so (as 0.61's current session
// does when it was resumed: a new one's file holds no message yet when
// 0.61 cleans up at start-up). Unlike
// 0.61, a file gemini-ls cannot read (too large, corrupt, of the old
// .json form) is kept: it may be a session all the same.
func (s *Store) Expire(ctx context.Context, root string, r Retention, now time.Time, inUse func(id string) (open, counted bool)) (Expired, error) {
	var res Expired
	chats, err := s.chats(s.sharedRoot(root), false)
	if err != nil || chats == "" {
		return res, err
	}
	sums := loadSummaries(chats)
	files, err := s.sessionFiles(ctx, chats, sums)
	if err != nil {
		return res, err
	}
	defer sums.save(s.log)
	res.Scanned = len(files)
	gone := expiring(files, r, now, inUse)
	kept := keptSessions(files, gone)
	for _, f := range gone {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		switch err := removeSession(chats, f, kept[f.id]); {
		case err == nil:
			res.Deleted++
			sums.forget(filepath.Base(f.path))
		case errors.Is(err, fs.ErrNotExist):
			sums.forget(filepath.Base(f.path))
		default:
			s.log.Warn("Failed to delete session", zap.String("file", f.path), zap.Error(err))
			res.Failed++
		}
	}
	res.Skipped = res.Scanned - res.Deleted - res.Failed
	return res, nil
}

// sessionFiles reads the session files of chats (at most MaxListed*4):
// their summaries kept in sums when unchanged since, else the files,
// their summaries kept in sums for the next time.
func (s *Store) sessionFiles(ctx context.Context, chats string, sums *summaries) ([]sessionFile, error) {
	entries, err := sessionEntries(chats, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", chats, err)
	}
	files := make([]sessionFile, 0, len(entries))
	present := make(map[string]bool, len(entries))
	defer sums.keepOnly(present)
	for _, e := range entries {
		present[e.name] = true
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(chats, e.name)
		var sum summary
		err := e.err
		if err == nil {
			sum, err = sums.read(ctx, chats, e.name, e.info, false)
		}
		if err != nil {
			s.log.Debug("session cleanup keeps a file it cannot read", zap.String("file", path), zap.Error(err))
			continue
		}
		f := sessionFile{path: path, id: sum.SessionID}
		if ValidateID(f.id) != nil {
			f.id = ""
		}
		f.valid = f.id != "" && sum.resumable && sum.Kind != "subagent"
		f.updated = updatedAt(sum.header, e.info)
		files = append(files, f)
	}
	return files, nil
}

// wholeReadLimit is the largest session file clean-up reads whole, as
// 0.61 reads each, to tell whether it holds anything to resume. A larger
// one is judged by its ends (summarizeEnds): reading a session of a huge
// prompt whole cost the next server several times its size.
const wholeReadLimit = 1 << 20

// summary is what clean-up needs of a session file: its metadata merged
// as 0.61 merges it, and whether it holds anything to resume; and, when
// it was read whole, what a list shows of it.
type summary struct {
	header
	resumable bool
	listed    *listing
}

// listing is what a list shows of a session file (listShared).
type listing struct {
	ls   bool // it holds a gemini-ls record
	meta Meta // its Root "" (the list's root is set), DisplayName set
}

// summaryOf is the summary of a file read whole as sh.
func summaryOf(sh *shared) summary {
	return summary{header: sh.header, resumable: sh.resumable(), listed: &listing{ls: sh.lsMeta != nil, meta: sh.meta("")}}
}

// readSummary reads the summary of the shared file at path: a small
// file whole, and a larger one whole too when whole (a list's), else
// only its first and last lines; fi is the file as opened, before it
// was read, and digest the SHA-256 of what was read of a file read
// whole ("" for one read by its ends).
func readSummary(ctx context.Context, path string, whole bool) (sum summary, fi fs.FileInfo, digest string, err error) {
	f, fi, err := openRead(path, filepath.Base(path))
	if err != nil {
		return summary{}, nil, "", err
	}
	defer f.Close()
	if fi.Size() > MaxFileSize {
		return summary{}, nil, "", tooLarge(path, fi.Size())
	}
	if !whole && fi.Size() > wholeReadLimit {
		sum, err = summarizeEnds(f, fi.Size(), path)
		return sum, fi, "", err
	}
	h := sha256.New()
	sh, err := readShared(ctx, io.TeeReader(f, h), path)
	if err != nil {
		return summary{}, nil, "", err
	}
	return summaryOf(sh), fi, hex.EncodeToString(h.Sum(nil)), nil
}

// digestOf is the SHA-256 of the file at path, read whole as readSummary
// reads it.
func digestOf(path string) (string, error) {
	f, _, err := openRead(path, filepath.Base(path))
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, MaxFileSize+1)); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// summarizeEnds is the summary of a large shared file (size bytes) from
// its header line and its last line, each read only when under
// maxMetaLine: the last line's metadata, when it is a metadata record
// (gemini-ls's prompt end, 0.61's "$set"), brings lastUpdated up to
// date. A file this large holds messages: it is taken to have some to
// resume.
func summarizeEnds(r io.ReaderAt, size int64, path string) (summary, error) {
	head, err := firstLine(r, size)
	if err != nil {
		return summary{}, fmt.Errorf("reading %s: %w", path, err)
	}
	var h header
	if head == nil || json.Unmarshal(head, &h) != nil || h.SessionID == "" {
		return summary{}, fmt.Errorf("%s holds no session header in its first %d bytes", path, maxMetaLine)
	}
	tail, err := lastLine(r, size)
	if err != nil {
		return summary{}, fmt.Errorf("reading %s: %w", path, err)
	}
	sh := &shared{header: h}
	if later, ok := metadataOf(tail); ok {
		sh.merge(later)
	}
	return summary{header: sh.header, resumable: true}, nil
}

// metadataOf is the metadata a line sets, as 0.61 takes it: a "$set"
// record's, or a metadata record's (one with a sessionId and a
// projectHash); false for any other line.
func metadataOf(line []byte) (header, bool) {
	var rec struct {
		header
		Set *header `json:"$set"`
	}
	if line == nil || json.Unmarshal(line, &rec) != nil {
		return header{}, false
	}
	if rec.Set != nil {
		return *rec.Set, true
	}
	return rec.header, rec.SessionID != "" && rec.ProjectHash != ""
}

// updatedAt is when the session was last updated: its lastUpdated, else
// its startTime, else the file's modification time, as 0.61 takes it.
func updatedAt(h header, info fs.FileInfo) time.Time {
	for _, t := range []string{h.LastUpdated, h.StartTime} {
		if at := parseTime(t); !at.IsZero() {
			return at
		}
	}
	return info.ModTime()
}

// expiring are the files to remove, as 0.61's identifySessionsToDelete
// chooses them: every one that is not valid, then of the valid ones not
// in use, newest first, those older than MaxAge and those past MaxCount
// (counting the ones in use among the kept). A file in use never is.
func expiring(files []sessionFile, r Retention, now time.Time, inUse func(string) (bool, bool)) []sessionFile {
	var out, valid []sessionFile
	open := 0
	for _, f := range files {
		live, counted := false, false
		if f.id != "" {
			live, counted = inUse(f.id)
		}
		switch {
		case live:
			if f.valid && counted {
				open++
			}
		case !f.valid:
			out = append(out, f)
		default:
			valid = append(valid, f)
		}
	}
	slices.SortStableFunc(valid, func(a, b sessionFile) int { return b.updated.Compare(a.updated) })
	keep := len(valid)
	if r.MaxCount > 0 {
		keep = max(0, r.MaxCount-open)
	}
	for i, f := range valid {
		if i >= keep || (r.MaxAge > 0 && f.updated.Before(now.Add(-r.MaxAge))) {
			out = append(out, f)
		}
	}
	return out
}

// keptSessions are the ids of the files that stay: of files, those not
// gone.
func keptSessions(files, gone []sessionFile) map[string]bool {
	removed := make(map[string]bool, len(gone))
	for _, f := range gone {
		removed[f.path] = true
	}
	kept := map[string]bool{}
	for _, f := range files {
		if f.id != "" && !removed[f.path] {
			kept[f.id] = true
		}
	}
	return kept
}

// removeSession removes f and, as 0.61's cleanupSessionAndSubagentsAsync,
// what its session left in the project's directory: its log, its tool
// outputs, its own directory and its subagents' sessions.
//
// A session of which another file stays (0.61's --resume makes a second
// file of the session, with nothing to resume, when the minute has
// turned since it began) keeps what it left: only the file goes. 0.61
// removes them, and every file of the session by the id in its name, the
// one to resume too.
func removeSession(chats string, f sessionFile, staying bool) error {
	if err := os.Remove(f.path); err != nil {
		return err
	}
	if f.id == "" || staying {
		return nil
	}
	project := filepath.Dir(chats)
	paths := []string{
		filepath.Join(project, "logs", "session-"+f.id+".jsonl"),
		filepath.Join(project, "tool-outputs", "session-"+f.id),
		filepath.Join(chats, f.id),
	}
	// A session named like the project's own directories leaves no
	// directory of its name (0.61's RESERVED_SESSION_DIR_NAMES).
	if !slices.Contains([]string{"chats", "logs", "tool-outputs"}, strings.ToLower(f.id)) {
		paths = append(paths, filepath.Join(project, f.id))
	}
	for _, path := range paths {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("removing what session %s left: %w", f.id, err)
		}
	}
	return nil
}
