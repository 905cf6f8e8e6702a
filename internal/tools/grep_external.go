package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/gitmark"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// externalGrep searches with a program (ripgrep, git grep) given the files
// the walk selected, in batches, a few at a time. The program only finds
// candidate files: it opens them by name, which a directory swapped for a
// symlink could lead outside the roots, so a file it reports matching is
// read again through the workspace (beneath its root) and searched
// in-process, as the in-process engine does, and nothing the program
// read reaches the result. Open documents (their
// buffer, not the disk, is searched) and symlinks (whose target is
// checked again) are searched in-process. When the program cannot take the
// pattern or fails as a whole, the rest is searched in-process.
type externalGrep struct {
	tool externalTool
	door *spawn.Door
	// dir is the directory the program runs in (git grep takes paths
	// below it only).
	dir string
	// inProcessBelow: a batch smaller than this many bytes is searched
	// in-process, where starting the program would cost more
	// (smallSearch for the engine picked at run time).
	inProcessBelow int64
}

// externalTool is one program's command line and output format.
type externalTool interface {
	name() string
	// args are the arguments before the files, or ok false when the
	// pattern cannot be given to the program.
	args(q *grepQuery) (args []string, ok bool)
	// parse reads the program's output, calling line for every matching
	// line it reports (path as given on the command line).
	parse(out io.Reader, line func(path string, number int, text []byte)) error
	// failed reports whether the run failed as a whole (not just for
	// some files), from its exit code and output.
	failed(code int, stderr []byte) bool
}

const (
	// externalBatch is how many files one program run gets.
	externalBatch = 1000
	// externalRuns is how many runs go at once.
	externalRuns = 2
	// smallSearch is the size under which a batch is searched in-process:
	// starting the program costs more than reading that little (an
	// agent's search of a small project, the rest of a large one, or a
	// thousand of a tree's small files).
	smallSearch = 1 << 20
)

// asksInfo: the program reads the files itself (rg's --max-filesize does
// not apply to files named on its command line), so their sizes are
// checked first (withinCap).
func (externalGrep) asksInfo() bool { return true }

func (e externalGrep) search(ctx context.Context, q *grepQuery, files <-chan grepFile, found func(grepOutcome)) error {
	args, ok := e.tool.args(q)
	if !ok {
		return inProcessGrep{}.search(ctx, q, files, found)
	}
	var (
		wg       sync.WaitGroup
		slots    = make(chan struct{}, externalRuns)
		mu       sync.Mutex
		fallback bool // the program failed as a whole: search in-process
	)
	useFallback := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return fallback
	}
	flush := func(batch []grepFile) {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			batch, size := withinCap(q, batch, found)
			if len(batch) == 0 {
				return
			}
			if useFallback() || size < e.inProcessBelow {
				searchInProcess(ctx, q, batch, found)
				return
			}
			if err := e.run(ctx, q, args, batch, found); err != nil {
				mu.Lock()
				fallback = true
				mu.Unlock()
				searchInProcess(ctx, q, batch, found)
			}
		})
	}
	var batch []grepFile
	var buf []byte
	for f := range files {
		if f.open || f.entry.Symlink || strings.ContainsAny(f.rel, "\n\r\x00") {
			found(searchOne(ctx, q, f, &buf))
			continue
		}
		if batch = append(batch, f); len(batch) == externalBatch {
			flush(batch)
			batch = nil
		}
	}
	if len(batch) > 0 {
		flush(batch)
	}
	wg.Wait()
	return ctx.Err()
}

// withinCap reports the files of batch over the size cap (stat-ed here,
// since the walk does not and the program would skip them silently) and
// those gone since the walk, and returns the rest and their total size.
func withinCap(q *grepQuery, batch []grepFile, found func(grepOutcome)) (kept []grepFile, size int64) {
	kept = batch[:0]
	for _, f := range batch {
		info, err := q.ws.Info(f.entry)
		switch {
		case errors.Is(err, workspace.ErrNotExist):
			found(grepOutcome{file: f})
		case err == nil && info.Size > q.maxFileSize:
			found(grepOutcome{file: f, tooLarge: true})
		default: // an error the program will meet and report too
			kept = append(kept, f)
			size += info.Size
		}
	}
	return kept, size
}

func searchInProcess(ctx context.Context, q *grepQuery, batch []grepFile, found func(grepOutcome)) {
	var buf []byte
	for _, f := range batch {
		found(searchOne(ctx, q, f, &buf))
	}
}

// run searches one batch with the program and reports every file in it;
// an error means nothing was reported and the batch is to be searched
// another way.
func (e externalGrep) run(ctx context.Context, q *grepQuery, args []string, batch []grepFile, found func(grepOutcome)) error {
	byPath := make(map[string]int, len(batch))
	cmdArgs := append([]string(nil), args...)
	for i, f := range batch {
		p := e.argPath(f)
		byPath[p] = i
		cmdArgs = append(cmdArgs, p)
	}
	// The end of ctx kills the program and all it started: a process
	// left holding its output would keep the read below waiting.
	cmd := e.door.Command(ctx, spawn.Helper{Name: e.tool.name()}, e.tool.name(), cmdArgs...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1", "RIPGREP_CONFIG_PATH=")
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("running %s: %w", e.tool.name(), err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", e.tool.name(), err)
	}
	// Whether the program found a line of each file that Go's regexp
	// matches too.
	matched := make([]bool, len(batch))
	perr := e.tool.parse(out, func(path string, _ int, text []byte) {
		i, ok := byPath[path]
		if !ok {
			i, ok = byPath["./"+path] // git prints ./-x as -x
		}
		if !ok || matched[i] {
			return
		}
		text = bytes.TrimSuffix(bytes.TrimSuffix(text, []byte("\n")), []byte("\r"))
		matched[i] = q.matcher.matchLine(text)
	})
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	// A search starts nothing meant to outlive it. The group is gone or
	// ours to kill: an error here has no remedy.
	_ = cmd.Kill()
	if ctx.Err() != nil {
		return nil // the search's time is up: report nothing more
	}
	code := 0
	var exit *spawn.ExitError
	if errors.As(werr, &exit) {
		code = exit.ExitCode()
	} else if werr != nil {
		return fmt.Errorf("running %s: %w", e.tool.name(), werr)
	}
	if perr != nil || e.tool.failed(code, stderr.Bytes()) {
		return fmt.Errorf("%s failed (exit %d, %v): %s", e.tool.name(), code, perr, stderr.Bytes())
	}
	unreadable := e.unreadable(stderr.Bytes(), byPath)
	var buf []byte
	for i, f := range batch {
		if matched[i] {
			// The program opened the file by its name, which a directory
			// swapped for a symlink since the walk could lead outside
			// the roots: it only tells which files match, and what they
			// hold is read again beneath the root and searched here.
			found(searchOne(ctx, q, f, &buf))
			continue
		}
		found(grepOutcome{file: f, unreadable: unreadable[i]})
	}
	return nil
}

func (e externalGrep) argPath(f grepFile) string {
	p := f.entry.Path
	if rel, err := filepath.Rel(e.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		p = rel
	}
	if strings.HasPrefix(p, "-") {
		p = "./" + p
	}
	return p
}

// unreadable finds the files the program's error messages name.
func (e externalGrep) unreadable(stderr []byte, byPath map[string]int) map[int]bool {
	out := map[int]bool{}
	for line := range strings.SplitSeq(string(stderr), "\n") {
		line = strings.TrimPrefix(line, e.tool.name()+": ")
		line = strings.TrimPrefix(line, "error: ")
		line = strings.TrimPrefix(line, "fatal: ")
		for p, i := range byPath {
			if strings.HasPrefix(line, p+":") || strings.HasPrefix(line, "'"+p+"'") || strings.Contains(line, " '"+p+"'") {
				out[i] = true
			}
		}
	}
	return out
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// externalPattern is the pattern for a Perl-syntax engine (Rust's regex,
// PCRE): Go prints the parsed pattern with its classes spelt out, so \d,
// \s, \w keep Go's ASCII meaning, and with line breaks taken out of its
// classes, since a match lies within one line (git grep runs PCRE over
// whole buffers). Anchors and word boundaries, which those engines read
// differently (whole buffers, CRLF, Unicode), are not given out. Go's dot
// also matches a byte of invalid UTF-8 (as U+FFFD): dot is how the
// engine says that, or "" when it cannot.
func externalPattern(tree *syntax.Regexp, dot string) (string, bool) {
	if hasOp(tree, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine) {
		return "", false
	}
	if hasRune(tree, anyCharMark) {
		return "", false
	}
	printed := withinLine(tree).String()
	mark := fmt.Sprintf(`\x{%x}`, anyCharMark)
	if dot == "" && strings.Contains(printed, mark) {
		return "", false
	}
	return strings.ReplaceAll(printed, mark, dot), true
}

// anyCharMark stands for a dot while the pattern is printed.
const anyCharMark = '\U0010FFFD'

func hasRune(re *syntax.Regexp, r rune) bool {
	if re.Op == syntax.OpLiteral && slices.Contains(re.Rune, r) {
		return true
	}
	return slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return hasRune(sub, r) })
}

// withinLine is a copy of re whose classes and dots match no line break.
func withinLine(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	switch c.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{anyCharMark}}
	case syntax.OpCharClass:
		var ranges []rune
		for i := 0; i+1 < len(c.Rune); i += 2 {
			lo, hi := c.Rune[i], c.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					ranges = append(ranges, lo, '\n'-1)
				}
				if hi > '\n' {
					ranges = append(ranges, '\n'+1, hi)
				}
				continue
			}
			ranges = append(ranges, lo, hi)
		}
		if len(ranges) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
		c.Rune = ranges
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			c.Sub[i] = withinLine(sub)
		}
	}
	return &c
}

func hasOp(re *syntax.Regexp, ops ...syntax.Op) bool {
	for _, op := range ops {
		if re.Op == op {
			return true
		}
	}
	for _, sub := range re.Sub {
		if hasOp(sub, ops...) {
			return true
		}
	}
	return false
}

// ripgrep is rg with --json: no config, no ignore files (the walk applied
// them), no symlinks followed, binary files searched as text (checked
// here instead), CRLF line ends as Go's engine sees them.
type ripgrep struct{}

func (ripgrep) name() string { return "rg" }

func (ripgrep) args(q *grepQuery) ([]string, bool) {
	pattern, ok := externalPattern(q.matcher.tree, `(?:.|(?-u:[\x80-\xFF]))`)
	if !ok {
		return nil, false
	}
	args := []string{"--json", "--no-config", "--no-follow", "--no-ignore", "--hidden", "--text", "--crlf",
		"--max-filesize", strconv.FormatInt(q.maxFileSize, 10)}
	return append(append(args, maxCount("--max-count", q)...), "--regexp", pattern, "--"), true
}

// rgText is a string in rg's JSON: text, or base64 bytes when not UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) value() []byte {
	if t.Text != nil {
		return []byte(*t.Text)
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return b
}

func (ripgrep) parse(out io.Reader, line func(path string, number int, text []byte)) error {
	r := bufio.NewReaderSize(out, 256<<10)
	for {
		msg, err := r.ReadBytes('\n')
		if len(msg) > 0 && bytes.HasPrefix(msg, []byte(`{"type":"match"`)) {
			var m struct {
				Data struct {
					Path       rgText `json:"path"`
					Lines      rgText `json:"lines"`
					LineNumber int    `json:"line_number"`
				} `json:"data"`
			}
			if jerr := json.Unmarshal(msg, &m); jerr != nil {
				return fmt.Errorf("reading rg's output: %w", jerr)
			}
			line(string(m.Data.Path.value()), m.Data.LineNumber, m.Data.Lines.value())
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// failed: rg exits 2 for any error; one naming an OS error is about a
// file (reported as unreadable), any other (the pattern) about the run.
func (ripgrep) failed(code int, stderr []byte) bool {
	return code == 2 && !bytes.Contains(stderr, []byte("(os error"))
}

// gitGrep is git grep --no-index over the files given, with PCRE.
type gitGrep struct{}

func (gitGrep) name() string { return "git" }

func (gitGrep) args(q *grepQuery) ([]string, bool) {
	// PCRE in UTF mode has no way to match one invalid byte.
	pattern, ok := externalPattern(q.matcher.tree, "")
	if !ok {
		return nil, false
	}
	args := []string{"-c", "grep.fallbackToNoIndex=true", "grep", "--no-index", "--no-color", "-n", "-z", "-a", "-P"}
	return append(append(args, maxCount("--max-count", q)...), "-e", pattern, "--"), true
}

// maxCount is the program's option stopping each file at the query's
// matches per file, or none when lines are excluded: the program counts
// the lines it finds, excluded ones too, so it could stop before a file's
// first lines not excluded.
func maxCount(option string, q *grepQuery) []string {
	if q.matcher.exclude != nil {
		return nil
	}
	return []string{option, strconv.Itoa(q.maxMatches)}
}

func (gitGrep) parse(out io.Reader, line func(path string, number int, text []byte)) error {
	r := bufio.NewReaderSize(out, 256<<10)
	for {
		rec, err := r.ReadBytes('\n')
		if path, rest, ok := bytes.Cut(rec, []byte{0}); ok {
			if num, text, ok := bytes.Cut(rest, []byte{0}); ok {
				if n, perr := strconv.Atoi(string(num)); perr == nil {
					line(string(path), n, text)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// failed: git grep exits 1 for no match, 128 (or a signal) when it could
// not run, and reports an unreadable file on stderr.
func (gitGrep) failed(code int, stderr []byte) bool {
	return code != 0 && code != 1
}

// prefilterLiteral is the shortest literal the in-process engine finds
// lines by as fast as ripgrep: a file is scanned for it, and only the
// lines holding it go through Go's regexp, which is slower per line than
// ripgrep's automata (docs/benchmarks.md, "Search").
const prefilterLiteral = 3

// pickGrepEngine is the fastest engine for matcher in dir: the in-process
// one when every match holds a literal long enough to scan for, else
// ripgrep, else git grep inside a git work tree, else the in-process one.
// A program door finds in the workspace is the workspace's, not used.
func pickGrepEngine(door *spawn.Door, dir string, matcher *grepMatcher) grepEngine {
	if matcher.lit != nil && len(matcher.lit.lit) >= prefilterLiteral {
		return inProcessGrep{}
	}
	if helperFound(door, "rg") {
		return externalGrep{tool: ripgrep{}, door: door, dir: dir, inProcessBelow: smallSearch}
	}
	if helperFound(door, "git") && gitmark.Root(dir) != "" {
		return externalGrep{tool: gitGrep{}, door: door, dir: dir, inProcessBelow: smallSearch}
	}
	return inProcessGrep{}
}

// helperFound reports whether the helper name is on PATH, outside the
// workspace.
func helperFound(door *spawn.Door, name string) bool {
	path, err := spawn.LookPath(name)
	return err == nil && !door.InRoots(path)
}
