package langclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// fakeProject is a root holding the fake's marker and a file for it;
// the fake runs in mode, logging what it receives to the returned log.
func fakeProject(t *testing.T, mode string) (root, file, log string) {
	t.Helper()
	root = writeTree(t, map[string]string{"fake.root": "", "a.fake": "one\ntwo\n"})
	log = filepath.Join(t.TempDir(), "fake.log")
	t.Setenv(fakeModeEnv, mode)
	t.Setenv(fakeLogEnv, log)
	return root, filepath.Join(root, "a.fake"), log
}

func fakeManager(t *testing.T, root string) *Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return newManager(t, root, fakeServers(exe))
}

// received are the methods the fake logged, one a line.
func received(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func request(op codeintel.Op, path, text string) codeintel.Request {
	return codeintel.Request{Op: op, Path: path, Text: text}
}

func TestNoServerOnPath(t *testing.T) {
	root := writeTree(t, map[string]string{"go.mod": "module m\n", "main.go": "package main\n"})
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		name              string
		servers           map[string]ServerConfig
		file              string
		language, install string
	}{
		{"built-in", nil, "main.go", "Go", "gopls (go install golang.org/x/tools/gopls@latest)"},
		{"configured command", map[string]ServerConfig{"gopls": {Cmd: []string{"my-gopls", "serve"}}}, "main.go", "Go", `my-gopls (the command codeIntelligence.servers gives "gopls"; it is not on PATH)`},
		{"unknown language", nil, "notes.xyz", "notes.xyz", ""},
		{"disabled", map[string]ServerConfig{"gopls": {Enabled: new(false)}}, "main.go", "Go", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newManager(t, root, tc.servers)
			path := filepath.Join(root, tc.file)
			_, err := m.Ask(context.Background(), request(codeintel.Definition, path, "package main\n"))
			var ns *codeintel.NoServerError
			if !errors.As(err, &ns) {
				t.Fatalf("Ask = %v, want a NoServerError", err)
			}
			if ns.Language != tc.language || ns.Install != tc.install {
				t.Errorf("NoServerError = %+v, want Language %q, Install %q", *ns, tc.language, tc.install)
			}
			if len(m.servers) != 0 {
				t.Errorf("%d servers started, want none", len(m.servers))
			}
		})
	}
}

// The code-intelligence tools are of use only where a server on PATH
// serves a file the workspace holds: not with an empty PATH, not with a
// server for a language the workspace has none of (nor only in a hidden
// directory, nor past the bounded look), and with one whose file is a
// level down.
func TestAvailable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	crowded := map[string]string{"zz.fake": ""} // read after the others
	for i := range maxLanguageLook {
		crowded[fmt.Sprintf("n%05d.txt", i)] = ""
	}
	for _, c := range []struct {
		name    string
		files   map[string]string
		servers map[string]ServerConfig
		want    bool
	}{
		{"an empty PATH", map[string]string{"pkg/a.fake": ""}, nil, false},
		{"a server for none of its files", map[string]string{"README.md": "", "pkg/a.go": ""}, fakeServers(exe), false},
		{"its file only in a hidden directory", map[string]string{".cache/a.fake": ""}, fakeServers(exe), false},
		{"its file past the bounded look", crowded, fakeServers(exe), false},
		{"its file a level down", map[string]string{"README.md": "", "pkg/a.fake": ""}, fakeServers(exe), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := writeTree(t, c.files)
			t.Setenv("PATH", t.TempDir())
			if got := newManager(t, root, c.servers).Available(); got != c.want {
				t.Errorf("Available = %v, want %v", got, c.want)
			}
		})
	}
}

// TestIndexingWait: a server that began indexing and never ends is
// reported as still indexing, at the bound, not asked.
func TestIndexingWait(t *testing.T) {
	root, file, log := fakeProject(t, fakeIndexing)
	m := fakeManager(t, root)
	m.indexWait = time.Millisecond
	_, err := m.Ask(context.Background(), request(codeintel.Hover, file, "one\n"))
	want := "fake is still indexing (Loading packages); try again in a moment"
	if err == nil || err.Error() != want {
		t.Fatalf("Ask = %v, want %q", err, want)
	}
	if got := received(t, log); slices.Contains(got, "textDocument/hover") {
		t.Errorf("the server was asked while indexing: %v", got)
	}
}

// TestStuckProgress: work in progress the server said nothing more of
// for progressStale no longer holds questions: the server is asked, well
// before the index wait's bound, and the answer says the work is
// unfinished.
func TestStuckProgress(t *testing.T) {
	root, file, log := fakeProject(t, fakeIndexing)
	m := fakeManager(t, root)
	m.indexWait, m.progressStale = time.Hour, 50*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := m.Ask(ctx, request(codeintel.Hover, file, "one\n"))
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if !strings.HasPrefix(a.Caveat, "fake has reported work in progress (Loading packages) with no word of it for ") ||
		!strings.HasSuffix(a.Caveat, ": its answer may miss what that work has not reached.") {
		t.Errorf("caveat %q", a.Caveat)
	}
	if got := received(t, log); !slices.Contains(got, "textDocument/hover") {
		t.Errorf("the server was not asked: %v", got)
	}
}

// A question waiting on work in progress reads what it waits for while
// the connection's reader goes on taking the server's reports and ends:
// under the race detector, it reads a copy, not the reader's item.
func TestWaitingOnProgressRacesNoReport(t *testing.T) {
	s := &server{spec: serverSpec{name: "fake"}, idle: make(chan struct{}), conn: &conn{done: make(chan struct{})}}
	close(s.idle)
	s.settled.Store(true)
	progress := func(kind string, token int) {
		s.takeProgress(json.RawMessage(fmt.Sprintf(`{"token": %d, "value": {"kind": %q, "title": "Indexing"}}`, token, kind)))
	}
	progress("begin", 1)
	progress("begin", 2)
	stop := make(chan struct{})
	reader := make(chan struct{})
	go func() {
		defer close(reader)
		for {
			select {
			case <-stop:
				return
			default:
				progress("report", 1)
				progress("report", 2)
			}
		}
	}()
	for range 200 {
		if _, err := s.waitIdle(t.Context(), time.Microsecond, time.Minute); err == nil || !strings.Contains(err.Error(), "fake is still indexing (Indexing)") {
			t.Fatalf("waitIdle: %v", err)
		}
	}
	close(stop)
	<-reader
}

// A report on work in progress keeps it holding questions; its end lets
// them go.
func TestProgressReportsKeepWorkLive(t *testing.T) {
	s := &server{idle: make(chan struct{})}
	close(s.idle)
	progress := func(kind string) {
		s.takeProgress(json.RawMessage(`{"token": 1, "value": {"kind": "` + kind + `", "title": "Indexing"}}`))
	}
	progress("begin")
	s.progress[0].last = time.Now().Add(-2 * time.Minute)
	if live, silent := s.progressSince(time.Now(), time.Minute); live != nil || silent == nil || silent.title != "Indexing" {
		t.Errorf("silent for two minutes: live %v, silent %v", live, silent)
	}
	progress("report")
	if live, silent := s.progressSince(time.Now(), time.Minute); live == nil || silent != nil {
		t.Errorf("just reported on: live %v, silent %v", live, silent)
	}
	progress("end")
	if live, silent := s.progressSince(time.Now(), time.Minute); live != nil || silent != nil {
		t.Errorf("ended: live %v, silent %v", live, silent)
	}
	select {
	case <-s.idle:
	default:
		t.Error("not idle once the work ended")
	}
}

// TestHostileServers: a server that breaks the protocol or dies fails the
// question with the reason, and is not used again.
func TestHostileServers(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{fakeGarbage, `asking fake (textDocument/definition): the server sent a malformed header line "this is not a header"`},
		{fakeGiant, "asking fake (textDocument/definition): the server sent a message of 1073741824 bytes, over the 67108864-byte limit"},
		{fakeDie, "asking fake (textDocument/definition): fake exited (exit status 3): fake: dying on textDocument/definition"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			root, file, _ := fakeProject(t, tc.mode)
			m := fakeManager(t, root)
			_, err := m.Ask(context.Background(), request(codeintel.Definition, file, "one\n"))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Ask = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSilentServer: a server that never answers is bounded by the
// question's context.
func TestSilentServer(t *testing.T) {
	root, file, _ := fakeProject(t, fakeSilent)
	m := fakeManager(t, root)
	m.closeWait = time.Millisecond // nor will it answer shutdown
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Ask(ctx, request(codeintel.Definition, file, "one\n"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ask = %v, want the context's end", err)
	}
}

// TestRestartOnce: a server that died is started again at the next
// question, once; then questions are told it stopped again.
func TestRestartOnce(t *testing.T) {
	root, file, log := fakeProject(t, fakeDie)
	m := fakeManager(t, root)
	ask := func() error {
		_, err := m.Ask(context.Background(), request(codeintel.Definition, file, "one\n"))
		return err
	}
	for i := range 2 {
		if err := ask(); err == nil || !strings.Contains(err.Error(), "fake exited (exit status 3)") {
			t.Fatalf("question %d: %v, want the server's exit", i+1, err)
		}
	}
	err := ask()
	want := "fake stopped again after a restart (fake exited (exit status 3): fake: dying on textDocument/definition); it is not started a third time this session"
	if err == nil || err.Error() != want {
		t.Errorf("third question: %v, want %q", err, want)
	}
	if starts := strings.Count(strings.Join(received(t, log), "\n"), "initialize\n"); starts != 2 {
		t.Errorf("the server was initialized %d times, want 2", starts)
	}
}

// TestSyncsText: the server is sent the question's text before it is
// asked, opened once, changed only when the text changed.
func TestSyncsText(t *testing.T) {
	root, file, log := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	hover := func(text string) string {
		t.Helper()
		a, err := m.Ask(context.Background(), request(codeintel.Hover, file, text))
		if err != nil {
			t.Fatal(err)
		}
		return string(a.Result)
	}
	for _, text := range []string{"one\n", "one\n", "two\n"} {
		if got, want := hover(text), `{"contents":"`+strings.TrimSuffix(text, "\n")+`\n"}`; got != want {
			t.Errorf("the server held %s, want %s", got, want)
		}
	}
	var syncs []string
	for _, line := range received(t, log) {
		if strings.HasPrefix(line, "textDocument/did") {
			syncs = append(syncs, line)
		}
	}
	if want := []string{"textDocument/didOpen 1", "textDocument/didChange 2"}; !slices.Equal(syncs, want) {
		t.Errorf("synced %v, want %v", syncs, want)
	}
}

func TestRenameRefused(t *testing.T) {
	root, file, _ := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	req := request(codeintel.Rename, file, "one\n")
	req.NewName = "x"
	_, err := m.Ask(context.Background(), req)
	if want := "the language server refused to rename here: no identifier here"; err == nil || err.Error() != want {
		t.Errorf("Ask = %v, want %q", err, want)
	}
}

// TestDiagnostics: diagnostics come only from a running server, of the
// file's current text in the workspace.
func TestDiagnostics(t *testing.T) {
	root, file, _ := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	ctx := context.Background()
	got, err := m.Diagnostics(ctx, []string{file})
	if err != nil || len(got) != 0 || len(m.servers) != 0 {
		t.Fatalf("Diagnostics before any server runs = %v, %v (%d servers), want none and no server started", got, err, len(m.servers))
	}
	if _, err := m.Ask(ctx, request(codeintel.Hover, file, "one\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = m.Diagnostics(ctx, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	want := []dialog.FileDiagnostics{{Path: file, Diagnostics: []dialog.EditorDiagnostic{{
		Line: 1, Column: 3, Severity: "warning", Message: "first line: changed", Source: "fake", Code: "F1",
	}}}}
	if !slices.EqualFunc(got, want, func(a, b dialog.FileDiagnostics) bool {
		return a.Path == b.Path && slices.Equal(a.Diagnostics, b.Diagnostics)
	}) {
		t.Errorf("Diagnostics = %+v, want %+v", got, want)
	}
	all, err := m.Diagnostics(ctx, nil)
	if err != nil || len(all) != 1 || all[0].Path != file {
		t.Errorf("Diagnostics of every file = %+v, %v, want %s's", all, err, file)
	}
}

// TestChanged: files the agent changed are announced to the running
// servers, and an open one's new text sent.
func TestChanged(t *testing.T) {
	root, file, log := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	ctx := context.Background()
	if _, err := m.Ask(ctx, request(codeintel.Hover, file, "one\n")); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(root, "gone.fake")
	if err := os.WriteFile(file, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Changed(ctx, []string{file, gone}); err != nil {
		t.Fatal(err)
	}
	// A question after, so the notifications were read before the log is.
	if _, err := m.Ask(ctx, request(codeintel.Hover, filepath.Join(root, "b.fake"), "")); err != nil {
		t.Fatal(err)
	}
	got := received(t, log)
	for _, want := range []string{"textDocument/didChange 2", "workspace/didChangeWatchedFiles 2:" + file + " 3:" + gone} {
		if !slices.Contains(got, want) {
			t.Errorf("the server received %v, want %q among them", got, want)
		}
	}
}

// TestWorkspaceSymbols: with no server running in the root, those whose
// own markers are there are started and asked.
func TestWorkspaceSymbols(t *testing.T) {
	root, _, log := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	a, err := m.Ask(context.Background(), codeintel.Request{Op: codeintel.WorkspaceSymbols, Path: root, Query: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != "fake" || string(a.Result) != "[]" {
		t.Errorf("Answer = %s from %q, want [] from fake", a.Result, a.Source)
	}
	if got := received(t, log); !slices.Contains(got, "workspace/symbol") {
		t.Errorf("the server received %v, want workspace/symbol", got)
	}

	// A file names its workspace root.
	a, err = m.Ask(context.Background(), codeintel.Request{Op: codeintel.WorkspaceSymbols, Path: filepath.Join(root, "a.fake"), Query: "x"})
	if err != nil || a.Source != "fake" {
		t.Errorf("workspace symbols of a file's root: %v from %q, want fake's", err, a.Source)
	}

	bare := writeTree(t, map[string]string{"a.fake": ""})
	_, err = fakeManager(t, bare).Ask(context.Background(), codeintel.Request{Op: codeintel.WorkspaceSymbols, Path: bare, Query: "x"})
	if !codeintel.IsNoServer(err) {
		t.Errorf("in a root without markers: %v, want a NoServerError", err)
	}
}

func TestAfterClose(t *testing.T) {
	root, file, _ := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ask(context.Background(), request(codeintel.Hover, file, "")); err == nil {
		t.Error("Ask after Close succeeded")
	}
}

var (
	_ codeintel.Provider       = (*Manager)(nil)
	_ dialog.DiagnosticsReader = (*Manager)(nil)
)

// TestAnswersServerRequests: a server's requests of its client are
// answered: settings unset, progress and registrations accepted, what
// gemini-ls does not do refused as an unknown method.
func TestAnswersServerRequests(t *testing.T) {
	root, file, log := fakeProject(t, fakeOK)
	m := fakeManager(t, root)
	if _, err := m.Ask(context.Background(), request(codeintel.Hover, file, "one\n")); err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, line := range received(t, log) {
		if strings.HasPrefix(line, "answer ") {
			answers = append(answers, line)
		}
	}
	want := []string{
		`answer "config" [null,null]`,
		`answer "progress" null`,
		`answer "register" null`,
		`answer "edit" error -32601`,
	}
	if !slices.Equal(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
}

// TestStderrLogged: a server's stderr goes to the log.
func TestStderrLogged(t *testing.T) {
	root, file, _ := fakeProject(t, fakeDie)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.DebugLevel)
	m := New(ws, fakeServers(exe), spawn.NewDoor(spawn.Rules{}), zap.New(core))
	allowAll(t, m)
	defer m.Close(context.Background())
	if _, err := m.Ask(context.Background(), request(codeintel.Hover, file, "one\n")); err == nil {
		t.Fatal("Ask succeeded of a server that died")
	}
	found := false
	for _, e := range logs.FilterMessage("language server stderr").All() {
		found = found || e.ContextMap()["line"] == "fake: dying on textDocument/hover" && e.ContextMap()["server"] == "fake"
	}
	if !found {
		t.Errorf("the log holds %v, want the server's stderr line", logs.All())
	}
}
