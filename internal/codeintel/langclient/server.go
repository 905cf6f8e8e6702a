package langclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

const (
	// exitReasonWait bounds how long a server whose output ended is given
	// to exit, so that its calls fail with its exit status and last words
	// rather than with "its output ended".
	exitReasonWait = 2 * time.Second
	// stderrTail is how many of a server's last stderr lines are kept to
	// say why it exited.
	stderrTail = 3
	// maxProgress and maxDiagnosedFiles bound what a server's
	// notifications can make gemini-ls hold: progress in flight, files'
	// diagnostics.
	maxProgress       = 256
	maxDiagnosedFiles = 20000
)

// server is one running language server process, for one root.
type server struct {
	spec serverSpec
	how  launch // how it was started: what it was told
	root string
	log  *zap.Logger
	cmd  *spawn.Cmd
	conn *conn

	exited  chan struct{} // closed once the process has exited and been waited for
	exitErr error         // cmd.Wait's, once exited

	// prepareRename: the server offers textDocument/prepareRename.
	prepareRename bool
	// confined: the sandbox runs it, in a process namespace of its own.
	confined bool

	// mu guards docs, and is held from a document's sync to the sending
	// of the request that needs it, so that request sees that text.
	mu   sync.Mutex
	docs map[string]*openDoc // by path

	pmu      sync.Mutex
	progress []progressItem // in flight, oldest first
	idle     chan struct{}  // closed while progress is empty

	// heard is when the server last sent a request or notification (unix
	// nanoseconds); settled, that it has been quiet for startQuiet since
	// it started (waitIdle).
	heard   atomic.Int64
	settled atomic.Bool
	// configured: the server's last word was a request for its
	// configuration, which it answers by reading the project (pyright
	// lists its files), silently: it is not settled until it speaks again.
	configured atomic.Bool

	dmu          sync.Mutex
	diags        map[string]published // by path
	diagSeq      uint64
	diagsChanged chan struct{} // closed and replaced at each publication

	tmu  sync.Mutex
	tail []string // the last lines of stderr
}

type openDoc struct {
	languageID string
	version    int
	text       string
}

// progressItem is work the server reported in progress: last is when it
// began it or last reported on it.
type progressItem struct {
	token, title string
	last         time.Time
}

// published are the diagnostics a server last published for a file.
type published struct {
	version *int // the document version they are of, when the server says
	seq     uint64
	items   []lspDiagnostic
}

// startServer starts spec's command (found at path) in root and
// initializes it, ending it when ctx ends; initCtx bounds the handshake.
func startServer(ctx, initCtx context.Context, door *spawn.Door, spec serverSpec, how launch, path, root string, maxMessage int, log *zap.Logger) (*server, error) {
	s := &server{
		spec:         spec,
		how:          how,
		root:         root,
		log:          log.With(zap.String("server", spec.name), zap.String("root", root)),
		exited:       make(chan struct{}),
		docs:         make(map[string]*openDoc),
		idle:         make(chan struct{}),
		diags:        make(map[string]published),
		diagsChanged: make(chan struct{}),
	}
	close(s.idle)

	// Pipes of our own (os.Pipe), not cmd's: cmd.Wait would close the
	// reading end of cmd.StdoutPipe while the last answer is being read.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("starting %s: %w", spec.name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("starting %s: %w", spec.name, err)
	}
	s.cmd = door.Command(ctx, how.why, path, spec.cmd[1:]...)
	s.cmd.Dir = root
	if s.confined = door.Confines(how.why); s.confined {
		s.cmd.Env = confinedEnv()
	}
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, errW
	if err := s.cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("starting %s (%s): %w", spec.name, path, err)
	}
	closeAll(inR, outW, errW) // the server's ends
	s.log.Info("language server started", zap.Int("pid", s.cmd.Process.Pid))

	stderrDone := make(chan struct{})
	go func() {
		s.logStderr(errR)
		close(stderrDone)
	}()
	s.conn = newConn(outR, inW, maxMessage, s.handle, s.readFailed)
	go func() {
		s.exitErr = s.cmd.Wait()
		// Its last words, which exitError tells, may still be in the
		// pipe; a child it left may hold the pipe, hence the bound.
		timer := time.NewTimer(exitReasonWait)
		select {
		case <-stderrDone:
		case <-timer.C:
		}
		timer.Stop()
		close(s.exited)
		s.conn.close(s.exitError())
		closeAll(inW)
	}()
	go func() {
		// A server that broke the protocol is ended: it is not to be
		// trusted with the next request.
		<-s.conn.done
		_ = s.cmd.Kill()
		closeAll(outR)
	}()

	if err := s.initialize(initCtx); err != nil {
		_ = s.cmd.Kill()
		<-s.exited
		return nil, fmt.Errorf("starting %s: %w", spec.name, err)
	}
	return s, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// readFailed says why the connection ended: at the end of the server's
// output, by its exit once it has exited.
func (s *server) readFailed(err error) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) {
		return err
	}
	timer := time.NewTimer(exitReasonWait)
	defer timer.Stop()
	select {
	case <-s.exited:
		return s.exitError()
	case <-timer.C:
		return fmt.Errorf("%s closed its output", s.spec.name)
	}
}

// exitError says that the server exited, how, and its last words.
func (s *server) exitError() error {
	msg := s.spec.name + " exited"
	if s.exitErr != nil {
		msg += " (" + s.exitErr.Error() + ")"
	}
	s.tmu.Lock()
	if len(s.tail) > 0 {
		msg += ": " + strings.Join(s.tail, " / ")
	}
	s.tmu.Unlock()
	return errors.New(msg)
}

// dead reports whether the server can no longer answer.
func (s *server) dead() bool {
	select {
	case <-s.conn.done:
		return true
	default:
		return false
	}
}

// logStderr logs the server's stderr, which is for its developers and
// never reaches the user's terminal, and keeps its last lines.
func (s *server) logStderr(r *os.File) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		s.log.Debug("language server stderr", zap.String("line", line))
		s.tmu.Lock()
		s.tail = append(s.tail, ellipsize(line, 200))
		if len(s.tail) > stderrTail {
			s.tail = s.tail[1:]
		}
		s.tmu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r) // past an over-long line
}

func fileURI(path string) string { return uri.File(path).String() }

// uriPath is the file a file: URI names, "" for another scheme.
func uriPath(u string) string {
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return ""
	}
	path := filepath.Clean(parsed.FsPath())
	// FsPath gives a drive letter in lower case (c:\), as VS Code does;
	// Go's paths, the workspace's and so the documents', have it upper.
	if filepath.VolumeName(path) != "" && len(path) >= 2 && path[1] == ':' {
		path = strings.ToUpper(path[:1]) + path[1:]
	}
	return path
}

// ClientCapabilities are the capabilities gemini-ls declares to the
// language servers it starts (initialize): no more than it does with
// their answers. The benchmark's raw client declares the same, so that
// gopls does the same work for both.
func ClientCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"window":  map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{
			"configuration":         true,
			"workspaceFolders":      true,
			"symbol":                map[string]any{},
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"workspaceEdit":         map[string]any{"documentChanges": true},
		},
		"textDocument": map[string]any{
			"synchronization":    map[string]any{},
			"definition":         map[string]any{"linkSupport": true},
			"typeDefinition":     map[string]any{"linkSupport": true},
			"implementation":     map[string]any{"linkSupport": true},
			"references":         map[string]any{},
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			"callHierarchy":      map[string]any{},
			"rename":             map[string]any{"prepareSupport": true},
			"publishDiagnostics": map[string]any{"versionSupport": true},
		},
	}
}

// initialize is LSP's handshake, declaring what gemini-ls does with the
// answers: no more than it does.
func (s *server) initialize(ctx context.Context) error {
	rootURI := fileURI(s.root)
	// A server watches the process named here and exits once it is gone
	// (typescript-language-server checks with kill(pid, 0)). In the
	// sandbox's process namespace gemini-ls's pid names nobody, so the
	// confined server would end at its first look: it is told none, and
	// the sandbox ends it with gemini-ls instead (--die-with-parent).
	var pid any = os.Getpid()
	if s.confined {
		pid = nil
	}
	params := map[string]any{
		"processId":        pid,
		"clientInfo":       map[string]any{"name": "gemini-ls"},
		"rootUri":          rootURI,
		"rootPath":         s.root,
		"workspaceFolders": []any{map[string]any{"uri": rootURI, "name": filepath.Base(s.root)}},
		"capabilities":     ClientCapabilities(),
	}
	if s.how.initOptions != nil {
		params["initializationOptions"] = s.how.initOptions
	}
	raw, err := s.conn.call(ctx, "initialize", params)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var result struct {
		Capabilities struct {
			RenameProvider json.RawMessage `json:"renameProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return fmt.Errorf("reading initialize's answer: %w", err)
	}
	var rename struct {
		PrepareProvider bool `json:"prepareProvider"`
	}
	if json.Unmarshal(result.Capabilities.RenameProvider, &rename) == nil {
		s.prepareRename = rename.PrepareProvider
	}
	if err := s.conn.notify(ctx, "initialized", map[string]any{}); err != nil {
		return fmt.Errorf("initialized: %w", err)
	}
	// The quiet that waitSettled waits for counts from here.
	s.heard.Store(time.Now().UnixNano())
	return nil
}

// handle answers the server's requests and takes its notifications.
func (s *server) handle(method string, params json.RawMessage, isRequest bool) (any, *rpcError) {
	s.heard.Store(time.Now().UnixNano())
	s.configured.Store(method == "workspace/configuration")
	switch method {
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest":
		return nil, nil
	case "workspace/configuration":
		// Every section unset, the server's defaults, but what the
		// tools need (configuration).
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		_ = json.Unmarshal(params, &p)
		out := make([]any, len(p.Items))
		for i, item := range p.Items {
			out[i] = s.configuration(item.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []any{map[string]any{"uri": fileURI(s.root), "name": filepath.Base(s.root)}}, nil
	case "$/progress":
		s.takeProgress(params)
	case "textDocument/publishDiagnostics":
		s.takeDiagnostics(params)
	case "window/logMessage", "window/showMessage":
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(params, &p)
		s.log.Debug("language server message", zap.String("method", method), zap.String("message", p.Message))
	}
	if isRequest {
		return nil, &rpcError{Code: codeMethodNotFound, Message: "gemini-ls does not handle " + method}
	}
	return nil, nil
}

func (s *server) takeProgress(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind  string `json:"kind"`
			Title string `json:"title"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	token := string(p.Token)
	s.pmu.Lock()
	defer s.pmu.Unlock()
	switch p.Value.Kind {
	case "begin":
		if len(s.progress) >= maxProgress {
			return
		}
		if len(s.progress) == 0 {
			s.idle = make(chan struct{})
		}
		s.progress = append(s.progress, progressItem{token: token, title: p.Value.Title, last: time.Now()})
	case "report":
		for i := range s.progress {
			if s.progress[i].token == token {
				s.progress[i].last = time.Now()
			}
		}
	case "end":
		for i, item := range s.progress {
			if item.token == token {
				s.progress = append(s.progress[:i], s.progress[i+1:]...)
				if len(s.progress) == 0 {
					close(s.idle)
				}
				break
			}
		}
	}
}

// waitIdle waits until the server reports no work in progress (indexing,
// loading packages), for at most bound: an answer asked for before then
// may be missing what is not loaded yet. Work the server has said nothing
// of for stale does not hold the question: a server may begin work and
// never end it (pyright without a Python interpreter), and every
// question would wait for it, then fail. Then caveat says so, for the
// model, as the answer may miss what that work has not reached.
func (s *server) waitIdle(ctx context.Context, bound, stale time.Duration) (caveat string, err error) {
	if err := s.waitSettled(ctx, bound); err != nil {
		return "", err
	}
	deadline := time.Now().Add(bound)
	for {
		s.pmu.Lock()
		idle := s.idle
		live, silent := s.progressSince(time.Now(), stale)
		s.pmu.Unlock()
		if live == nil {
			if silent == nil {
				return "", nil
			}
			what := "work in progress"
			if silent.title != "" {
				what += " (" + silent.title + ")"
			}
			return fmt.Sprintf("%s has reported %s with no word of it for %s: its answer may miss what that work has not reached.",
				s.spec.name, what, time.Since(silent.last).Round(time.Second)), nil
		}
		wait := min(time.Until(deadline), time.Until(live.last.Add(stale)))
		if wait <= 0 {
			return "", fmt.Errorf("%s is still indexing (%s); try again in a moment", s.spec.name, titleOf(*live))
		}
		timer := time.NewTimer(wait)
		select {
		case <-idle:
		case <-s.conn.done:
			timer.Stop()
			return "", s.conn.failure()
		case <-ctx.Done():
			timer.Stop()
			return "", ctx.Err()
		case <-timer.C:
		}
		timer.Stop()
	}
}

// progressSince are, of the work in progress at now, the one reported on
// last within stale (live), and else the oldest (silent); both nil when
// none is in progress. s.pmu is held.
func (s *server) progressSince(now time.Time, stale time.Duration) (live, silent *progressItem) {
	for _, p := range s.progress {
		// Copies: the caller reads them once pmu is let go, while the
		// connection's reader updates and removes the items.
		switch {
		case now.Sub(p.last) < stale:
			if live == nil || p.last.After(live.last) {
				live = &p
			}
		case silent == nil:
			silent = &p
		}
	}
	if live != nil {
		return live, nil
	}
	return nil, silent
}

// titleOf is p's title as the model is told it.
func titleOf(p progressItem) string {
	if p.title == "" {
		return "work in progress"
	}
	return p.title
}

// startQuiet is how long a server just started must send nothing before
// it is asked anything: servers read their configuration and list the
// project's files after initialized, some without reporting progress
// (pyright), and a question asked before then is answered from the
// files the client opened alone. A server whose last word was asking for
// its configuration is still at that work however long it is quiet
// (pyright under load: seconds), until it speaks again ("Found 3 source
// files") or the bound.
const startQuiet = 500 * time.Millisecond

// waitSettled waits, once after the server started and for at most
// bound, until it has sent nothing for startQuiet.
func (s *server) waitSettled(ctx context.Context, bound time.Duration) error {
	if s.settled.Load() {
		return nil
	}
	deadline := time.Now().Add(bound)
	for {
		quiet := time.Since(time.Unix(0, s.heard.Load()))
		if quiet >= startQuiet && !s.configured.Load() || !time.Now().Before(deadline) {
			s.settled.Store(true)
			return nil
		}
		timer := time.NewTimer(startQuiet - quiet)
		select {
		case <-timer.C:
		case <-s.conn.done:
			timer.Stop()
			return s.conn.failure()
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
}

// docSync is a file's text to send the server before a request about it.
type docSync struct {
	path, languageID, text string
}

// syncLocked sends the server d's text, opening the document or changing
// it when its text changed since last sent; s.mu is held. It reports
// the document's version and whether anything was sent.
func (s *server) syncLocked(ctx context.Context, d docSync) (version int, sent bool, err error) {
	doc, ok := s.docs[d.path]
	if ok && doc.text == d.text {
		return doc.version, false, nil
	}
	if !ok {
		doc = &openDoc{languageID: d.languageID, version: 1, text: d.text}
		err = s.conn.notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": fileURI(d.path), "languageId": d.languageID, "version": doc.version, "text": d.text},
		})
	} else {
		doc = &openDoc{languageID: doc.languageID, version: doc.version + 1, text: d.text}
		err = s.conn.notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": fileURI(d.path), "version": doc.version},
			"contentChanges": []any{map[string]any{"text": d.text}},
		})
	}
	if err != nil {
		return 0, false, s.failed("sending "+filepath.Base(d.path), err)
	}
	s.docs[d.path] = doc
	return doc.version, true, nil
}

// closeLocked closes the document at path, if open; s.mu is held.
func (s *server) closeLocked(ctx context.Context, path string) error {
	if _, ok := s.docs[path]; !ok {
		return nil
	}
	delete(s.docs, path)
	return s.conn.notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fileURI(path)}})
}

// ask sends method, after syncing doc when not nil, and waits for the
// answer.
func (s *server) ask(ctx context.Context, method string, params any, doc *docSync) (json.RawMessage, error) {
	s.mu.Lock()
	if doc != nil {
		if _, _, err := s.syncLocked(ctx, *doc); err != nil {
			s.mu.Unlock()
			return nil, err
		}
	}
	p, err := s.conn.start(ctx, method, params)
	s.mu.Unlock()
	if err != nil {
		return nil, s.failed(method, err)
	}
	result, err := p.wait(ctx)
	if err != nil {
		return nil, s.failed(method, err)
	}
	return result, nil
}

// failed is err, from doing what, in words for the model.
func (s *server) failed(what string, err error) error {
	var rerr *rpcError
	switch {
	case errors.As(err, &rerr) && rerr.Code == codeMethodNotFound:
		return fmt.Errorf("%s does not support %s", s.spec.name, what)
	case errors.As(err, &rerr):
		return fmt.Errorf("%s answered %s with an error: %w", s.spec.name, what, err)
	}
	return fmt.Errorf("asking %s (%s): %w", s.spec.name, what, err)
}

func (s *server) takeDiagnostics(params json.RawMessage) {
	var p struct {
		URI         string          `json:"uri"`
		Version     *int            `json:"version"`
		Diagnostics []lspDiagnostic `json:"diagnostics"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	path := uriPath(p.URI)
	if path == "" {
		return
	}
	s.dmu.Lock()
	defer s.dmu.Unlock()
	if _, known := s.diags[path]; !known && len(s.diags) >= maxDiagnosedFiles {
		return
	}
	s.diagSeq++
	s.diags[path] = published{version: p.Version, seq: s.diagSeq, items: p.Diagnostics}
	close(s.diagsChanged)
	s.diagsChanged = make(chan struct{})
}

// shutdown asks the server to exit, waiting within ctx, then kills its
// process group, whatever is left of it.
func (s *server) shutdown(ctx context.Context) error {
	if !s.dead() {
		if _, err := s.conn.call(ctx, "shutdown", nil); err == nil {
			_ = s.conn.notify(ctx, "exit", nil)
		}
		select {
		case <-s.exited:
		case <-ctx.Done():
		}
	}
	err := s.cmd.Kill()
	<-s.exited // killed: Wait returns
	return err
}

// configuration is what the client tells a server of the section it
// asks about (workspace/configuration) beyond its defaults (nil: none):
// pyright and basedpyright, left to their default, search only the files
// the client opened for references and renames, so that a rename would
// miss every file the agent had not asked about yet; and a Python
// server runs the interpreter its launch chose (confine.go), not one it
// would find itself.
func (s *server) configuration(section string) any {
	switch section {
	case "python", "basedpyright":
		c := map[string]any{"analysis": map[string]any{"diagnosticMode": "workspace"}}
		if section == "python" && s.how.pythonPath != "" {
			c["pythonPath"] = s.how.pythonPath
		}
		return c
	}
	return nil
}

// confinedEnv is a confined server's environment: the sandbox keeps the
// home read-only, so caches (gopls's, the go command's) go to the
// command's own /tmp.
func confinedEnv() []string {
	return append(os.Environ(), "XDG_CACHE_HOME=/tmp/.cache")
}
