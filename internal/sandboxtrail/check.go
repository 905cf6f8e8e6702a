package sandboxtrail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A Finding is a file of a folder's own configuration that was changed
// while a sandbox's commands could write where it lies, and that the
// user has not accepted since.
type Finding struct {
	File    string
	Changed time.Time
	// Writable is the sandbox's writable path the file lies in.
	Writable string
	Window   Window
	// Removed: the file was read, and was gone by Changed (Gone).
	Removed bool
}

// String says what was found, for the user.
func (f Finding) String() string {
	until := "while it still runs"
	if f.Window.To != 0 {
		until = "until " + clock(time.Unix(0, f.Window.To))
	}
	what := "was changed at"
	if f.Removed {
		what = "was read, and removed by"
	}
	return fmt.Sprintf("%s %s %s, while commands in a sandbox could write in %s (from %s %s)",
		f.File, what, clock(f.Changed), f.Writable, clock(time.Unix(0, f.Window.From)), until)
}

func clock(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

const (
	// maxEntries bounds the walk of a folder's .gemini.
	maxEntries = 4096
	// slack widens each window for a change time read from a coarse
	// clock (the kernel's lags by up to a tick) or another machine's (a
	// container's shared files).
	slack = int64(2 * time.Second)
	// tick is how far a change time can lag the precise clock the
	// user's yes is timed by (the kernel's coarse clock lags by up to a
	// tick, 10 ms at HZ=100; Windows' by up to 15.6 ms): what changed
	// within it before the yes may have changed just after it, and is not
	// taken as accepted.
	tick = int64(20 * time.Millisecond)
)

// Changed returns the files of folder's own configuration (everything in
// each of configfiles.Folder: folder/.gemini, .agents, .env and
// .geminiignore, directories included, since a file removed loosens it
// too; and the files of also that exist: the .env files its loader looks
// for above it) whose change time falls within a window in which a sandbox's
// commands could write where they lie, later than the user's last
// Accept of folder; files first, then directories, each in path order.
// What lies in a window's roots' .gemini is not suspect: that sandbox
// kept it read-only (governed). Links are not followed: a link's own change time
// counts.
func (t Trail) Changed(ctx context.Context, folder string, also []string) ([]Finding, error) {
	snap, err := t.Read(ctx)
	if err != nil {
		return nil, err
	}
	return snap.Changed(folder, also)
}

// A Snapshot is the trail's windows read once, for the checks of several
// folders (a workspace's roots).
type Snapshot struct {
	t  Trail
	ws []Window
}

// Read reads the trail's windows as of now (Windows).
func (t Trail) Read(ctx context.Context) (Snapshot, error) {
	ws, err := t.Windows(ctx, time.Now())
	return Snapshot{t: t, ws: ws}, err
}

// Changed is Trail.Changed against the windows s holds.
func (s Snapshot) Changed(folder string, also []string) ([]Finding, error) {
	t, ws := s.t, s.ws
	if len(ws) == 0 {
		return nil, nil
	}
	folder = canonical(folder)
	accepted, err := t.accepted(folder)
	if err != nil {
		return nil, err
	}
	files, err := configuration(folder, also, func(dir string) bool {
		return slices.ContainsFunc(ws, func(w Window) bool { return couldWriteIn(w, dir) })
	})
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range files {
		changed := changeTime(f.path, f.info)
		if covered(changed, accepted) {
			continue
		}
		if w, writable, ok := windowOf(ws, f.path, changed.UnixNano()); ok {
			out = append(out, Finding{File: f.path, Changed: changed, Writable: writable, Window: w})
		}
	}
	return out, nil
}

// Gone says, of path, a file that was read and is no longer there, in
// which window a sandbox's commands could have removed it by now: one
// open now, or closed within the slack, whose writable paths hold it
// (outside its roots' .gemini).
func (s Snapshot) Gone(path string, now time.Time) (Finding, bool) {
	path = filepath.Join(canonical(filepath.Dir(path)), filepath.Base(path))
	w, writable, ok := windowOf(s.ws, path, now.UnixNano())
	return Finding{File: path, Changed: now, Writable: writable, Window: w, Removed: true}, ok
}

// covered reports whether the user's yes at accepted (zero: none) covers
// a change at changed: one made before it, by more than a tick.
func covered(changed, accepted time.Time) bool {
	return !accepted.IsZero() && changed.UnixNano() < accepted.UnixNano()-tick
}

// windowOf finds a window in which a sandbox's commands could have
// changed path at the change time c.
func windowOf(ws []Window, path string, c int64) (Window, string, bool) {
	for _, w := range ws {
		to := w.To
		if to == 0 {
			to = c // open: any change from its start
		}
		if c < plus(w.From, -slack) || c > plus(to, slack) {
			continue
		}
		if governed(w, path) {
			continue
		}
		for _, writable := range w.Writable {
			if workspace.Within(writable, path) {
				return w, writable, true
			}
		}
	}
	return Window{}, "", false
}

// plus is a+b held to int64's range: a window's times, read from a
// file, may lie at its ends (a closed window without its end never ends),
// and one widened past them must not wrap around.
func plus(a, b int64) int64 {
	switch s := a + b; {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	default:
		return s
	}
}

type configFile struct {
	path string
	info fs.FileInfo
}

// governed reports whether path lies in what w's sandbox kept
// read-only in each of its roots, made empty where missing
// (configfiles.MadeEmpty: .gemini), which its commands could not
// change.
func governed(w Window, path string) bool {
	for _, f := range configfiles.Names() {
		if f.Sandbox != configfiles.MadeEmpty {
			continue
		}
		for _, root := range w.Roots {
			if workspace.Within(filepath.Join(root, filepath.FromSlash(f.Name)), path) {
				return true
			}
		}
	}
	return false
}

// couldWriteIn reports whether w's commands could write in dir or
// below it: one of its writable paths holds dir or lies in it, and dir
// is not governed.
func couldWriteIn(w Window, dir string) bool {
	if governed(w, dir) {
		return false
	}
	return slices.ContainsFunc(w.Writable, func(writable string) bool {
		return workspace.Within(writable, dir) || workspace.Within(dir, writable)
	})
}

// configuration lists folder's own configuration (configfiles.Folder:
// .gemini, .agents, .env, .geminiignore), each where walk says a window
// could have written there, a directory with everything in it, bounded;
// and the files of also that exist.
func configuration(folder string, also []string, walk func(dir string) bool) ([]configFile, error) {
	var declared, seen []string
	var files []configFile
	for _, name := range configfiles.Folder() {
		p := filepath.Join(folder, filepath.FromSlash(name))
		declared = append(declared, p)
		if !walk(p) {
			continue
		}
		found, err := walkBounded(p)
		if err != nil {
			return nil, fmt.Errorf("checking %s's configuration against the sandboxes' trail: %w", folder, err)
		}
		files = append(files, found...)
	}
	for _, p := range also {
		p = filepath.Join(canonical(filepath.Dir(p)), filepath.Base(p))
		if slices.ContainsFunc(declared, func(dir string) bool { return workspace.Within(dir, p) }) || slices.Contains(seen, p) {
			continue // listed already
		}
		seen = append(seen, p)
		if info, err := os.Lstat(p); err == nil {
			files = append(files, configFile{p, info})
		}
	}
	// Files before directories: a file says more of what was planted.
	slices.SortFunc(files, func(a, b configFile) int {
		if a.info.IsDir() != b.info.IsDir() {
			return map[bool]int{true: 1, false: -1}[a.info.IsDir()]
		}
		return strings.Compare(a.path, b.path)
	})
	return files, nil
}

// walkBounded lists dir and everything in it, links not followed, at
// most maxEntries; nothing when dir is not there.
func walkBounded(dir string) ([]configFile, error) {
	var out []configFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if len(out) == maxEntries {
			return fmt.Errorf("%s holds more than %d entries", dir, maxEntries)
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed meanwhile
		}
		if err != nil {
			return err
		}
		out = append(out, configFile{p, info})
		return nil
	})
	return out, err
}

// acceptance is a folder's record in accepted/.
type acceptance struct {
	Folder string `json:"folder"`
	At     int64  `json:"at"`
}

// Accept records the user's yes to folder's configuration as it is now:
// what was changed in it before now is no longer a Finding.
func (t Trail) Accept(folder string) error {
	if t.dir == "" {
		return nil
	}
	folder = canonical(folder)
	dir := filepath.Join(t.dir, "accepted")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("recording that %s is accepted: %w", folder, err)
	}
	b, err := json.Marshal(acceptance{Folder: folder, At: time.Now().UnixNano()})
	if err != nil {
		return err
	}
	if err := safefile.Replace(acceptedPath(dir, folder), b, 0o600); err != nil {
		return fmt.Errorf("recording that %s is accepted: %w", folder, err)
	}
	return nil
}

// accepted is when the user last accepted folder, zero if never.
func (t Trail) accepted(folder string) (time.Time, error) {
	path := acceptedPath(filepath.Join(t.dir, "accepted"), folder)
	b, err := safefile.Read(path, maxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	var a acceptance
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if a.Folder != folder {
		return time.Time{}, nil // another folder's, under the same name
	}
	return time.Unix(0, a.At), nil
}

func acceptedPath(dir, folder string) string {
	sum := sha256.Sum256([]byte(folder))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// canonical is folder absolute, cleaned, with its links resolved when it
// exists: one name for one folder, whoever asks.
func canonical(folder string) string {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return filepath.Clean(folder)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
