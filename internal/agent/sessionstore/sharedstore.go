package sessionstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/geminidir"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// chats is the chats directory of root's project in Gemini CLI's place;
// claim: create the project's directory if it has none (to write).
// "" when the store shares nothing or (without claim) the project has
// no directory yet.
func (s *Store) chats(root string, claim bool) (string, error) {
	if s.gemini == "" || root == "" {
		return "", nil
	}
	dirs, err := geminidir.New(s.gemini, root)
	if err != nil {
		return "", err
	}
	var dir string
	if claim {
		dir, err = dirs.FindOrClaim()
	} else {
		dir, err = dirs.Find()
	}
	if err != nil || dir == "" {
		return "", err
	}
	return filepath.Join(dir, "chats"), nil
}

// sharedRoot is the project a session of the store is filed under.
func (s *Store) sharedRoot(root string) string { return cmp.Or(root, s.root) }

// findShared is the file of session id in chats, "" when none: a
// session-*-<id's first 8>.jsonl whose header names id.
func (s *Store) findShared(chats, id string) (string, error) {
	if chats == "" {
		return "", nil
	}
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	entries, err := safefile.ReadDir(chats, MaxListed*4)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", chats, err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, sharedPrefix) || !strings.HasSuffix(name, "-"+short+sharedExt) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(chats, name)
		if h, err := readHeader(path); err == nil && h.SessionID == id {
			return path, nil
		}
	}
	return "", nil
}

// locate finds session id's shared file and its project's root: in the
// store's project first, then in every project of Gemini CLI's tmp
// directory (as a session of another root, listed by List(""), is
// resumed by id). "" when it has none.
func (s *Store) locate(id string) (path, root string, err error) {
	chats, err := s.chats(s.root, false)
	if err != nil {
		return "", "", err
	}
	if path, err = s.findShared(chats, id); err != nil || path != "" {
		return path, s.root, err
	}
	for _, r := range s.projects() {
		if r == s.root {
			continue
		}
		chats, err := s.chats(r, false)
		if err != nil || chats == "" {
			continue
		}
		if path, err := s.findShared(chats, id); err == nil && path != "" {
			return path, r, nil
		}
	}
	return "", "", nil
}

// projects are the roots of the projects Gemini CLI's tmp directory
// holds, by their .project_root markers (at most geminidir.MaxScanned).
func (s *Store) projects() []string {
	if s.gemini == "" {
		return nil
	}
	tmp := filepath.Join(s.gemini, "tmp")
	entries, err := safefile.ReadDir(tmp, geminidir.MaxScanned)
	if err != nil {
		return nil
	}
	var roots []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		data, err := safefile.Read(filepath.Join(tmp, e.Name(), ".project_root"), 64<<10)
		if err != nil {
			continue
		}
		if r := filepath.Clean(strings.TrimSpace(string(data))); filepath.IsAbs(r) {
			roots = append(roots, r)
		}
	}
	return roots
}

// readHeader is a shared file's first line.
func readHeader(path string) (header, error) {
	f, fi, err := openRead(path, filepath.Base(path))
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	line, err := firstLine(f, fi.Size())
	if err != nil || line == nil {
		return header{}, fmt.Errorf("reading %s: no header line", path)
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return header{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return h, nil
}

// loadShared reads a shared file whole.
func loadShared(ctx context.Context, path string) (*shared, error) {
	f, fi, err := openRead(path, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > MaxFileSize {
		return nil, tooLarge(path, fi.Size())
	}
	return readShared(ctx, f, path)
}

// Load reads session id back: from the project's shared files, else from
// the old directory. An interrupted last write is ignored.
func (s *Store) Load(ctx context.Context, id string) (Snapshot, error) {
	if err := ValidateID(id); err != nil {
		return Snapshot{}, fmt.Errorf("loading session: %w", err)
	}
	path, root, err := s.locate(id)
	if err != nil {
		return Snapshot{}, fmt.Errorf("loading session %s: %w", id, err)
	}
	if path == "" {
		return s.loadLegacy(ctx, id)
	}
	sh, err := loadShared(ctx, path)
	if err != nil {
		return Snapshot{}, fmt.Errorf("loading session %s: %w", id, err)
	}
	snap := sh.snapshot(root)
	snap.Meta.File = path
	return snap, nil
}

// Append saves one prompt of session t.Meta.ID whole (a prompt a
// Recorder did not record, or a change between prompts): in a shared
// store, one line on the session's file (created, 0600, on its first
// prompt), then fsync; a torn line an interrupted write left at its end
// is cut off first. A session the old directory holds moves to the
// shared place whole on its first prompt there.
func (s *Store) Append(ctx context.Context, t Turn) error {
	return s.appendTurn(ctx, t, "")
}

// appendTurn is Append; step marks the line's lsRecord (stepEnd: the
// end of the prompt a Recorder began).
func (s *Store) appendTurn(ctx context.Context, t Turn, step string) error {
	id := t.Meta.ID
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	root := s.sharedRoot(t.Meta.Root)
	chats, err := s.chats(root, true)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if chats == "" {
		return s.appendLegacy(ctx, t, step == stepEnd)
	}
	path, err := s.findShared(chats, id)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if path == "" {
		old, err := s.loadLegacy(ctx, id)
		switch {
		case err == nil:
			// Moved whole: the old file keeps what it held, the shared
			// one wins from now on (List and Load look there first).
			old.Meta = t.Meta
			// t.History holds what closes an interrupted prompt, if any.
			old.History = append(old.History[:old.Saved], t.History...)
			for _, k := range t.Allow {
				if !slices.Contains(old.Allow, k) {
					old.Allow = append(old.Allow, k)
				}
			}
			old.Usage.add(t.Usage)
			if t.Context != "" {
				old.Context = t.Context
			}
			if t.Exchange != nil {
				old.Exchanges = append(old.Exchanges, *t.Exchange)
			}
			return s.Replace(ctx, old)
		case !errors.Is(err, ErrNotFound):
			return fmt.Errorf("saving session %s: %w", id, err)
		}
	}
	line, _, _, err := s.promptLine(t.Meta, root, lsRecord{V: sharedVersion, Step: step, Allow: t.Allow, Usage: &t.Usage, Exchange: t.Exchange, Context: t.Context}, t.History, t.Usage, nil)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sf, err := s.openShared(chats, t.Meta, root)
	if err != nil {
		return err
	}
	if err := sf.write(id, append(net.Buffers{sf.head}, line...)); err != nil {
		sf.f.Close()
		return err
	}
	s.durable.later(sf.f, dirIf(sf.created, chats))
	return s.durable.failure()
}

// completeEnd is the offset just past f's last '\n' (size bytes), read
// backwards in chunks: what a torn write left after it is cut off.
func completeEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, tailChunk)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				return end - n + i + 1, nil
			}
		}
		end -= n
	}
	return 0, nil
}

// headerLine is a shared file's first line, as 0.61 starts one.
func headerLine(m Meta, root string) ([]byte, error) {
	b, err := json.Marshal(header{SessionID: m.ID, ProjectHash: ProjectHash(root), StartTime: isoTime(m.Created), LastUpdated: isoTime(m.Updated), Kind: "main"})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// promptLine is the line of a prompt (or of a whole session, ls.Replace),
// the messages it holds, and the message whose text is its prompt's, left
// out of ls (storeOnce); stored is a prompt whose text an earlier line's
// message holds (a Recorder's, begun), nil for none.
func (s *Store) promptLine(m Meta, root string, ls lsRecord, history []*genai.Content, usage Usage, stored *Exchange) (net.Buffers, []message, string, error) {
	m.Shared, m.DisplayName, m.File = false, "", ""
	ls.Meta = &m
	msgs := messagesOf(history, m.Model, m.Updated, usage)
	if ls.Exchange != nil {
		// Tied to its prompt's message, so that 0.61's rewind to it drops it.
		ex := *ls.Exchange
		for _, msg := range msgs {
			if msg.Type == "user" && !bytes.Contains(msg.Content, []byte(`"functionResponse"`)) {
				ex.MessageID = msg.ID
				break
			}
		}
		ls.Exchange = &ex
	}
	storeOnce(&ls, history, msgs, stored)
	b, err := encodeLine(promptLine{
		SessionID: m.ID, ProjectHash: ProjectHash(root), LastUpdated: isoTime(m.Updated),
		Messages: msgs, LS: ls,
	})
	if err != nil {
		return nil, nil, "", fmt.Errorf("encoding the session's line: %w", err)
	}
	return b, msgs, ls.PromptOf, nil
}

// Replace rewrites session snap.Meta.ID's file to hold exactly snap (the
// history was compressed, rewound or replaced): atomically, by a temp
// file renamed over the old one, keeping the file's name.
func (s *Store) Replace(ctx context.Context, snap Snapshot) error {
	id := snap.Meta.ID
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("saving session: %w", err)
	}
	root := s.sharedRoot(snap.Meta.Root)
	chats, err := s.chats(root, true)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if chats == "" {
		return s.replaceLegacy(ctx, snap)
	}
	path, err := s.findShared(chats, id)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	if path == "" {
		path = filepath.Join(chats, sharedName(id, snap.Meta.Created))
	}
	head, err := headerLine(snap.Meta, root)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	usage := snap.Usage
	line, _, _, err := s.promptLine(snap.Meta, root, lsRecord{V: sharedVersion, Replace: true, Running: snap.Running, Allow: snap.Allow, Usage: &usage, Exchanges: snap.Exchanges, Context: snap.Context}, snap.History, Usage{}, nil)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	buf := bytes.Join(append(net.Buffers{head}, line...), nil)
	if len(buf) > MaxFileSize {
		return fmt.Errorf("saving session %s: %w: the session is %d MiB, over %d MiB", id, ErrTooLarge, len(buf)>>20, MaxFileSize>>20)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(chats, 0o700); err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	// The rewrite is made under the lock of the files gemini-ls shares
	// with Gemini CLI (internal/sharedlock), so two processes never
	// rename over each other's rewrite of one session.
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return fmt.Errorf("saving session %s: %w", id, err)
	}
	defer lock.Release()
	s.durable.awaitClosed(path)
	if err := safefile.ReplaceIf(path, buf, 0o600, lock.Held); err != nil {
		return fmt.Errorf("saving session %s: replacing %s: %w", id, path, err)
	}
	syncDir(chats)
	return nil
}

// Delete removes session id: its shared file and its old one, whichever
// exist; ErrNotFound when neither does.
func (s *Store) Delete(id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("deleting session: %w", err)
	}
	path, _, err := s.locate(id)
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	if path != "" {
		s.durable.awaitClosed(path)
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("deleting session %s: %w", id, err)
		}
	}
	err = s.deleteLegacy(id)
	if path != "" && errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// File is the file session id is saved in (hooks' transcript_path): its
// shared file if it has one, else the old directory's.
func (s *Store) File(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	if path, _, err := s.locate(id); err == nil && path != "" {
		return path, nil
	}
	return s.legacyFile(id)
}

// List returns the saved sessions' metadata, most recently updated
// first: the shared sessions of root's project (the store's project when
// root is ""), as 0.61 lists them, and the old directory's of root (of
// every root when ""), a session in both places once (the shared one).
func (s *Store) List(ctx context.Context, root string) ([]Meta, error) {
	roots := []string{s.sharedRoot(root)}
	if root == "" {
		roots = append(roots, s.projects()...)
	}
	var shared []Meta
	done := map[string]bool{}
	for _, r := range roots {
		if r == "" || done[r] {
			continue
		}
		done[r] = true
		list, err := s.listShared(ctx, r, true)
		if err != nil {
			return nil, err
		}
		shared = append(shared, list...)
	}
	legacy, err := s.listLegacy(ctx, root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range shared {
		seen[m.ID] = true
	}
	out := shared
	for _, m := range legacy {
		if !seen[m.ID] {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Meta) int {
		return cmp.Or(b.Updated.Compare(a.Updated), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// ListShared lists the shared sessions of root's project (the store's
// when ""), in 0.61's order and with its numbering: by start time, the
// first numbered 1 (--resume N, --delete-session N). Like 0.61 it reads
// each session file whole (up to MaxFileSize, the MaxListed newest
// files; one unchanged since it was last read, from its summary),
// skips one with nothing to resume or a subagent's, and lists a session
// in two files once, by its newer one.
func (s *Store) ListShared(ctx context.Context, root string) ([]Meta, error) {
	return s.listShared(ctx, root, false)
}

// listShared is ListShared; with all, the sessions 0.61 does not list
// but gemini-ls resumes (one rewound to nothing) too, Shared false.
func (s *Store) listShared(ctx context.Context, root string, all bool) ([]Meta, error) {
	root = s.sharedRoot(root)
	chats, err := s.chats(root, false)
	if err != nil || chats == "" {
		return nil, err
	}
	entries, err := sessionEntries(chats, func(name string) {
		s.log.Warn("skipping a session file that is not a regular file", zap.String("path", filepath.Join(chats, name)))
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", chats, err)
	}
	candidates := make([]sessionEntry, 0, len(entries))
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.err == nil {
			present[e.name] = true
			candidates = append(candidates, e)
		}
	}
	slices.SortFunc(candidates, func(a, b sessionEntry) int { return b.info.ModTime().Compare(a.info.ModTime()) })
	candidates = candidates[:min(len(candidates), s.maxListed)]
	// What was read of each file unchanged since is not read again.
	sums := loadSummaries(chats)
	sums.keepOnly(present)
	defer sums.save(s.log)
	byID := map[string]Meta{}
	for _, c := range candidates {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(chats, c.name)
		sum, err := sums.read(ctx, chats, c.name, c.info, true)
		if err != nil {
			s.log.Warn("skipping a session file", zap.Error(err))
			continue
		}
		listed := sum.resumable && sum.Kind != "subagent"
		if !listed && !(all && sum.listed.ls) || ValidateID(sum.SessionID) != nil {
			continue
		}
		m := sum.listed.meta
		m.Root = root
		m.Shared = listed
		m.File = path
		if old, ok := byID[m.ID]; !ok || m.Updated.After(old.Updated) {
			byID[m.ID] = m
		}
	}
	out := make([]Meta, 0, len(byID))
	for _, m := range byID {
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Meta) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.File, b.File))
	})
	return out, nil
}
