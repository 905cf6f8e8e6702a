package e2e

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Gemini CLI 0.61's ways to give a prompt: words after the flags (or
// between them), to `run` or to a bare gemini-ls; each is the prompt.
func TestRunPositionalPrompt(t *testing.T) {
	for _, args := range [][]string{
		{"run", "fix", "the", "test"},
		{"run", "-m", "gemini-2.5-pro", "fix the test"},
		{"run", "fix", "-o", "text", "the test"},
		{"fix the test"},
		{"-m", "gemini-2.5-pro", "fix the test"},
	} {
		h := newHeadless(t, nil, geminitest.TextTurn("fixed"))
		r := h.run(args...)
		r.wantExit(t, 0)
		if got := lastUserText(t, h.model.Requests(), 0); got != "fix the test" {
			t.Errorf("%q sent the model %q, want %q", args, got, "fix the test")
		}
		if r.stdout != "fixed\n" {
			t.Errorf("%q: stdout %q", args, r.stdout)
		}
	}
}

// What is piped in comes first, then a blank line and the prompt, as
// Gemini CLI joins them; piped alone, it is the prompt, to `run` or to a
// bare gemini-ls (whose stdin is then no LSP client's).
func TestRunJoinsStdinAndPrompt(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"run", "-p", "why does this fail?"}, "FAIL: TestX\n", "FAIL: TestX\n\n\nwhy does this fail?"},
		{[]string{"-p", "why does this fail?"}, "FAIL: TestX\n", "FAIL: TestX\n\n\nwhy does this fail?"},
		{[]string{"why does this fail?"}, "FAIL: TestX\n", "FAIL: TestX\n\n\nwhy does this fail?"},
		{nil, "explain the log\n", "explain the log\n"},
		{[]string{"run"}, "explain the log\n", "explain the log\n"},
	} {
		h := newHeadless(t, nil, geminitest.TextTurn("because"))
		h.runWith(h.root, h.env, strings.NewReader(tc.stdin), tc.args...).wantExit(t, 0)
		if got := lastUserText(t, h.model.Requests(), 0); got != tc.want {
			t.Errorf("%q with %q piped sent the model %q, want %q", tc.args, tc.stdin, got, tc.want)
		}
	}
	// Nothing piped and no prompt: 0.61's words and its input error.
	h := newHeadless(t, nil)
	r := h.runWith(h.root, h.env, strings.NewReader(""))
	r.wantExit(t, exitInput)
	contains(t, "stderr", r.stderr, "No input provided via stdin")
}

// -m, -o and -y are --model, --output-format and --yolo.
func TestRunShortFlags(t *testing.T) {
	h := newHeadless(t, nil,
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "touch ran"})),
		geminitest.TextTurn("done"))
	r := h.run("-m", "gemini-2.5-flash", "-o", "json", "-y", "-p", "touch it")
	r.wantExit(t, 0)
	if got := h.model.Requests()[0].Model; got != "gemini-2.5-flash" {
		t.Errorf("-m: model %q", got)
	}
	if res := decodeOne(t, r.stdout); res.Response != "done" {
		t.Errorf("-o json: %+v", res)
	}
	if !h.exists("ran") {
		t.Error("-y: the shell command did not run")
	}
}

// -l lists the installed extensions; -e names the only ones enabled
// (none: no extension), whatever their enablement, and warns of a name
// that is not installed.
func TestRunExtensionFlags(t *testing.T) {
	h := newHeadless(t, nil)
	home := installExtensions(t)
	trustFolder(t, home, h.root)
	env := append(h.withoutEnv("HOME"), "HOME="+home)
	r := h.runIn(h.root, env, "run", "-l")
	r.wantExit(t, 0)
	for _, name := range []string{"copied", "linked", "off"} {
		contains(t, "-l", r.stdout, "- "+name+"\n")
	}
	if !strings.HasPrefix(r.stdout, "Installed extensions:\n") || len(h.model.Requests()) != 0 {
		t.Errorf("-l: stdout %q, %d requests", r.stdout, len(h.model.Requests()))
	}
	// -l starts no MCP server (copied's has one): in an untrusted folder,
	// where starting them says that none was, it lists and says no more
	// than in a trusted one (the broken extension).
	untrusted := h.runIn(t.TempDir(), env, "run", "-l")
	untrusted.wantExit(t, 0)
	if untrusted.stdout != r.stdout || untrusted.stderr != r.stderr || strings.Contains(untrusted.stderr, "MCP") {
		t.Errorf("-l in an untrusted folder: stdout %q, stderr %q", untrusted.stdout, untrusted.stderr)
	}
	for _, tc := range []struct {
		only      string
		has, hasn []string
	}{
		{"off", []string{"OFF-CONTEXT"}, []string{"COPIED-CONTEXT", "LINKED-CONTEXT"}},
		{"LINKED,missing", []string{"LINKED-CONTEXT"}, []string{"COPIED-CONTEXT", "OFF-CONTEXT"}},
		{"none", nil, []string{"COPIED-CONTEXT", "LINKED-CONTEXT", "OFF-CONTEXT"}},
	} {
		h.model.Push(geminitest.TextTurn("ok"))
		r := h.runIn(h.root, env, "run", "-e", tc.only, "-p", "hi")
		r.wantExit(t, 0)
		reqs := h.model.Requests()
		last := reqs[len(reqs)-1]
		for _, s := range tc.has {
			contains(t, "-e "+tc.only+": the first user content's memory", firstMemory(last), s)
		}
		for _, s := range tc.hasn {
			if strings.Contains(string(last.Body), s) {
				t.Errorf("-e %s: the request holds %s", tc.only, s)
			}
		}
		if strings.Contains(tc.only, "missing") {
			contains(t, "stderr", r.stderr, "Extension not found: missing")
		}
	}
}

// --allowed-tools lets a call run without asking, in place of settings'
// tools.allowed, and says it is deprecated as 0.61 does.
func TestRunAllowedToolsFlag(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"tools": {"allowed": ["read_file"]}}`},
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "touch ran"})),
		geminitest.TextTurn("done"))
	r := h.run("run", "--allowed-tools", "run_shell_command(touch)", "-p", "touch it")
	r.wantExit(t, 0)
	if !h.exists("ran") {
		t.Errorf("the allowed command did not run; stderr:\n%s", r.stderr)
	}
	contains(t, "stderr", r.stderr, "--allowed-tools cli argument and tools.allowed in settings.json are deprecated")
}

// --allowed-mcp-server-names keeps only the servers it names, in place of
// settings' mcp.allowed and mcp.excluded; the settings' own exclude one.
// Both servers are trusted: headless, only the tools something lets run
// are declared.
func TestRunAllowedMCPServerNames(t *testing.T) {
	bin := mcpServerBinary(t)
	servers := `"mcpServers": {"tester": {"command": "` + bin + `", "trust": true}, "other": {"command": "` + bin + `", "args": ["-extra", "other_tool"], "trust": true}}`
	for _, tc := range []struct {
		settings string
		args     []string
		want     []string // the servers whose tools are declared
	}{
		{`{` + servers + `}`, nil, []string{"other", "tester"}},
		{`{` + servers + `}`, []string{"--allowed-mcp-server-names", "other"}, []string{"other"}},
		{`{` + servers + `, "mcp": {"excluded": ["other"]}}`, nil, []string{"tester"}},
		{`{` + servers + `, "mcp": {"allowed": ["other"]}}`, nil, []string{"other"}},
		{`{` + servers + `, "mcp": {"excluded": ["other"]}}`, []string{"--allowed-mcp-server-names", "other"}, []string{"other"}},
	} {
		h := newHeadless(t, map[string]string{".gemini/settings.json": tc.settings}, geminitest.TextTurn("ok"))
		h.run(append([]string{"run", "-p", "hi"}, tc.args...)...).wantExit(t, 0)
		var got []string
		for _, server := range []string{"other", "tester"} {
			if slices.ContainsFunc(declared(h.model.Requests(), 0), func(n string) bool { return strings.HasPrefix(n, "mcp_"+server+"_") }) {
				got = append(got, server)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: tools of %v declared, want %v", tc.settings[len(servers)+1:], tc.args, got, tc.want)
		}
	}
}

// -d logs at debug level on stderr: the requests' info lines, which a
// run leaves out by default, among them.
func TestRunDebugFlag(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("ok"), geminitest.TextTurn("ok"))
	quiet := h.run("run", "-p", "hi")
	loud := h.run("run", "-d", "-p", "hi")
	quiet.wantExit(t, 0)
	loud.wantExit(t, 0)
	const line = `"msg":"api_request"`
	if strings.Contains(quiet.stderr, line) || !strings.Contains(loud.stderr, line) {
		t.Errorf("request log lines: without -d %v, with -d %v", strings.Contains(quiet.stderr, line), strings.Contains(loud.stderr, line))
	}
	if loud.stdout != "ok\n" {
		t.Errorf("-d: stdout %q", loud.stdout)
	}
}

// A failed model call is said on stderr in words; its api_error log
// line, JSON, is there only with --debug: without it nothing structured
// reaches the user's terminal.
func TestRunFailureLogsOnlyWithDebug(t *testing.T) {
	h := newHeadless(t, nil, geminitest.ErrorTurn(400, "bad request"), geminitest.ErrorTurn(400, "bad request"))
	quiet := h.run("run", "-p", "hi")
	loud := h.run("run", "--debug", "-p", "hi")
	for _, r := range []cliResult{quiet, loud} {
		r.wantExit(t, exitError)
		if !strings.Contains(r.stderr, "gemini-ls: The Gemini API refused the request (400 INVALID_ARGUMENT: bad request).") {
			t.Errorf("stderr does not say the call failed:\n%s", r.stderr)
		}
	}
	for line := range strings.Lines(quiet.stderr) {
		if strings.HasPrefix(line, "{") || strings.Contains(line, "api_error") {
			t.Errorf("without --debug stderr has a log line: %s", line)
		}
	}
	if !strings.Contains(loud.stderr, `"msg":"api_error"`) {
		t.Errorf("with --debug stderr has no api_error line:\n%s", loud.stderr)
	}
}

// The OpenTelemetry SDK's own complaints (here a bad OTEL_* variable,
// which it reports through both its error handler and its logger) go to
// the log like the rest: on stderr only with --debug.
func TestRunTelemetrySDKErrorsOnlyWithDebug(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(collector.Close)
	settings := `{"telemetry": {"enabled": true, "otlpProtocol": "http", "otlpEndpoint": "` + collector.URL + `"}}`
	h := newHeadless(t, map[string]string{".gemini/settings.json": settings}, geminitest.TextTurn("ok"), geminitest.TextTurn("ok"))
	h.env = append(h.env, "OTEL_EXPORTER_OTLP_TIMEOUT=soon")
	quiet := h.run("run", "-p", "hi")
	loud := h.run("run", "--debug", "-p", "hi")
	quiet.wantExit(t, 0)
	loud.wantExit(t, 0)
	if quiet.stderr != "" {
		t.Errorf("without --debug stderr = %q", quiet.stderr)
	}
	for _, want := range []string{`"msg":"OpenTelemetry SDK error","error":"invalid OTEL_EXPORTER_OTLP_TIMEOUT value soon`, `"logger":"otel"`} {
		if !strings.Contains(loud.stderr, want) {
			t.Errorf("with --debug stderr has no %s:\n%s", want, loud.stderr)
		}
	}
}

// The model's terminal escape sequences are stripped, as Gemini CLI
// strips them, unless --raw-output (with a warning, unless
// --accept-raw-output-risk).
func TestRunRawOutput(t *testing.T) {
	const red = "\x1b[31mred\x1b[0m alert\x1b]8;;http://evil\x07link\x1b]8;;\x07"
	for _, tc := range []struct {
		args    []string
		stdout  string
		warning bool
	}{
		{nil, "red alertlink\n", false},
		{[]string{"--raw-output"}, red + "\n", true},
		{[]string{"--raw-output", "--accept-raw-output-risk"}, red + "\n", false},
	} {
		h := newHeadless(t, nil, geminitest.TextTurn(red))
		r := h.run(append([]string{"run", "-p", "hi"}, tc.args...)...)
		r.wantExit(t, 0)
		if r.stdout != tc.stdout || strings.Contains(r.stderr, "--raw-output is enabled") != tc.warning {
			t.Errorf("%q: stdout %q, stderr %q; want %q, warning %v", tc.args, r.stdout, r.stderr, tc.stdout, tc.warning)
		}
	}
}

// A session that reaches model.maxSessionTurns ends with 0.61's words
// and its status, 53.
func TestRunMaxSessionTurns(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"model": {"maxSessionTurns": 1}}`, "a.txt": "a\n"},
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a.txt"})),
		geminitest.TextTurn("never"))
	r := h.run("run", "-p", "read")
	r.wantExit(t, exitMaxTurns)
	contains(t, "stderr", r.stderr, "Reached max session turns for this session.")
}

// An unknown /command is refused, where 0.61's headless run sends it to
// the model as typed; a /path prompt is sent as typed.
func TestRunUnknownSlashCommandIsRefused(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("ok"))
	r := h.run("run", "-p", "/nosuch thing")
	r.wantExit(t, exitInput)
	contains(t, "stderr", r.stderr, "/nosuch is not a command (/help lists them). Nothing was sent to the model")
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("%d model requests for an unknown command", n)
	}
	h.run("run", "-p", "/usr/bin/env is broken").wantExit(t, 0)
	if got := lastUserText(t, h.model.Requests(), 0); got != "/usr/bin/env is broken" {
		t.Errorf("sent the model %q", got)
	}
}

// Without credentials, the built-ins that make no model request answer
// over LSP (/help, /tools, /about); a prompt for the model, or /compress,
// is refused saying which credentials are missing, and nothing reaches a
// model.
func TestBuiltinsWithoutCredentialsOverLSP(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true})
	for _, tc := range []struct{ prompt, want string }{
		{"/help", "/tools"},
		{"/tools", "read_file"},
		{"/about", "gemini-ls"},
	} {
		if res := h.prompt(map[string]any{"prompt": tc.prompt}); res.StopReason != "end_turn" || !strings.Contains(res.Text, tc.want) {
			t.Errorf("%s without credentials: %+v, want an answer naming %s", tc.prompt, res, tc.want)
		}
	}
	for _, prompt := range []string{"hello", "/compress"} {
		var res promptResult
		err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": prompt}, &res)
		if err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
			t.Errorf("%s without credentials: %v, %+v; want an error naming GEMINI_API_KEY", prompt, err, res)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// --session-id starts a session with the id given, which --resume then
// continues; an id in use, a bad one, or --resume with it too is refused
// in 0.61's words. --resume latest with nothing saved starts afresh, as
// 0.61 does, with a warning.
func TestRunSessionID(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("first"), geminitest.TextTurn("second"), geminitest.TextTurn("fresh"))
	r := h.run("run", "-r", "-p", "hello")
	r.wantExit(t, 0)
	contains(t, "stderr", r.stderr, "No previous sessions found for this project.")
	h.run("run", "--session-id", "my-run-1", "-p", "remember 42").wantExit(t, 0)
	h.run("run", "--resume", "my-run-1", "-p", "what was it?").wantExit(t, 0)
	reqs := h.model.Requests()
	var history strings.Builder
	for _, c := range reqs[len(reqs)-1].Contents {
		for _, p := range c.Parts {
			history.WriteString(p.Text)
		}
	}
	contains(t, "the resumed request", history.String(), "remember 42")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--session-id", "my-run-1"}, exitInput, `Session ID "my-run-1" already exists. Use --resume to resume it`},
		{[]string{"--session-id", "bad id!"}, exitError, `Invalid session ID "bad id!": Only alphanumeric characters, dashes, and underscores are allowed.`},
		{[]string{"--session-id", "x", "--resume", "latest"}, exitError, "The flags --resume, --session-id, and --session-file are mutually exclusive."},
	} {
		r := h.run(append([]string{"run", "-p", "hi"}, tc.args...)...)
		r.wantExit(t, tc.code)
		contains(t, "stderr", r.stderr, tc.want)
	}
	if n := len(h.model.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}
