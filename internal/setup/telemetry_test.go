package setup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

const telemetryKey = "AIzaSyD-setup0telemetry0test0key0000001"

type telemetryEnv struct {
	home, root string
	env        map[string]string
	warnings   []string
	mode       dialog.ApprovalMode
}

// newTelemetryEnv is a project and a home with userSettings, whose model
// answers with turns (one "the answer" when none).
func newTelemetryEnv(t *testing.T, userSettings string, turns ...geminitest.Turn) *telemetryEnv {
	t.Helper()
	if len(turns) == 0 {
		turns = []geminitest.Turn{geminitest.TextTurn("the answer")}
	}
	srv := geminitest.NewTestServer(t, turns...)
	e := &telemetryEnv{home: t.TempDir(), root: t.TempDir()}
	// A model named, so no routing request: the fake answers the prompt's one.
	userSettings = strings.Replace(userSettings, "{", `{"model": {"name": "gemini-2.5-flash"}, `, 1)
	writeFile(t, filepath.Join(e.home, ".gemini", "settings.json"), userSettings)
	e.env = map[string]string{
		"HOME": e.home, "USERPROFILE": e.home,
		"PATH":                   os.Getenv("PATH"),
		"GEMINI_API_KEY":         telemetryKey,
		"GOOGLE_GEMINI_BASE_URL": srv.URL,
	}
	return e
}

func (e *telemetryEnv) build(t *testing.T) *Built {
	t.Helper()
	ws, err := workspace.New([]string{e.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(context.Background(), Options{
		Workspace:    ws,
		Getenv:       func(k string) string { return e.env[k] },
		LookupEnv:    func(k string) (string, bool) { v, ok := e.env[k]; return v, ok },
		Unattended:   true,
		ApprovalMode: e.mode,
		Warn:         func(what string, err error) { e.warnings = append(e.warnings, what+": "+err.Error()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.AuthErr != nil {
		t.Fatal(b.AuthErr)
	}
	return b
}

// TestTelemetryFromSettings: the user's telemetry settings turn it on;
// a prompt's events and metrics reach the outfile (relative to the
// project, as 0.61 opens it from there) when the build closes, with
// installation.id from ~/.gemini/installation_id, no prompt text under
// logPrompts false, and never the API key.
func TestTelemetryFromSettings(t *testing.T) {
	e := newTelemetryEnv(t, `{"telemetry": {"enabled": true, "outfile": "telemetry.log", "logPrompts": false}}`)
	b := e.build(t)
	s := b.Agent.NewSession()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := s.Prompt(ctx, dialog.Input{Text: "the secret plan, key " + telemetryKey}, nil); err != nil || res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt = %+v, %v", res, err)
	}
	b.Close()
	data, err := os.ReadFile(filepath.Join(e.root, "telemetry.log"))
	if err != nil {
		t.Fatalf("no outfile in the project: %v (warnings %q)", err, e.warnings)
	}
	got := string(data)
	for _, name := range []string{"gemini_cli.config", "gemini_cli.user_prompt", "gemini_cli.api_request", "gemini_cli.api_response",
		"gemini_cli.session.count", "gemini_cli.api.request.count", "gemini_cli.token.usage", s.ID()} {
		if !strings.Contains(got, name) {
			t.Errorf("the outfile has no %s", name)
		}
	}
	id, err := os.ReadFile(filepath.Join(e.home, ".gemini", "installation_id"))
	if err != nil || len(id) != 36 || !strings.Contains(got, string(id)) {
		t.Errorf("installation_id %q (%v) is not in the outfile", id, err)
	}
	for _, text := range []string{"secret plan", "the answer", telemetryKey} {
		if strings.Contains(got, text) {
			t.Errorf("the outfile has %q", text)
		}
	}
}

// TestTelemetryWithholdsWhatAFailedFetchQuotes: with logPrompts false,
// a web_fetch of a URL from the prompt fails (a loopback address, which
// web_fetch refuses) and its error, which quotes the URL, stays out of
// the outfile with every other trace of the prompt; the call is there.
func TestTelemetryWithholdsWhatAFailedFetchQuotes(t *testing.T) {
	const token = "zqx7telemetrytoken"
	url := "http://127.0.0.1:9/" + token
	e := newTelemetryEnv(t, `{"telemetry": {"enabled": true, "target": "local", "outfile": "telemetry.log", "logPrompts": false}}`,
		geminitest.CallTurn(geminitest.Call(tools.WebFetchName, map[string]any{"prompt": "summarize " + url})),
		geminitest.TextTurn("it could not be fetched"))
	e.mode = dialog.ApprovalYolo
	e.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true" // yolo is for trusted folders
	b := e.build(t)
	s := b.Agent.NewSession()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := s.Prompt(ctx, dialog.Input{Text: "summarize " + url}, nil); err != nil || res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt = %+v, %v", res, err)
	}
	b.Close()
	data, err := os.ReadFile(filepath.Join(e.root, "telemetry.log"))
	if err != nil {
		t.Fatalf("no outfile: %v (warnings %q)", err, e.warnings)
	}
	got := string(data)
	if !strings.Contains(got, `"gemini_cli.tool_call"`) || !strings.Contains(got, "Tool call: web_fetch. Decision: accept. Success: false.") {
		t.Fatalf("the outfile has no failed web_fetch call:\n%s", got)
	}
	if strings.Contains(got, token) {
		t.Errorf("the outfile holds the prompt's URL (%s):\n%s", token, got)
	}
}

// TestTelemetryOffUnlessEnabled: no settings, nothing made; 0.61's
// environment variables turn it on over the settings.
func TestTelemetryOffUnlessEnabled(t *testing.T) {
	e := newTelemetryEnv(t, `{"telemetry": {"outfile": "telemetry.log"}}`)
	b := e.build(t)
	if _, off := b.telemetry.(telemetry.Nop); !off {
		t.Errorf("telemetry = %T, want off", b.telemetry)
	}
	b.Close()
	if _, err := os.Stat(filepath.Join(e.root, "telemetry.log")); err == nil {
		t.Error("telemetry off wrote the outfile")
	}
	out := filepath.Join(t.TempDir(), "env.log")
	e.env["GEMINI_TELEMETRY_ENABLED"] = "1"
	e.env["GEMINI_TELEMETRY_OUTFILE"] = out
	e.build(t).Close()
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "gemini_cli.config") {
		t.Errorf("GEMINI_TELEMETRY_ENABLED/OUTFILE: %v, %q", err, data)
	}
}

// TestTelemetryGCPWithoutCollector: 0.61's direct Google Cloud export is
// not something gemini-ls does, so target gcp alone warns and stays off;
// a bad protocol is refused as 0.61 refuses it, the build going on.
func TestTelemetryGCPWithoutCollector(t *testing.T) {
	for settings, want := range map[string]string{
		`{"telemetry": {"enabled": true, "target": "gcp"}}`:         "useCollector",
		`{"telemetry": {"enabled": true, "otlpProtocol": "udp"}}`:   "valid values are grpc, http",
		`{"telemetry": {"enabled": true, "target": "somewhere"}}`:   "valid values are local, gcp",
		`{"telemetry": {"enabled": true, "otlpEndpoint": "::bad"}}`: "invalid telemetry OTLP endpoint",
	} {
		e := newTelemetryEnv(t, settings)
		b := e.build(t)
		if _, off := b.telemetry.(telemetry.Nop); !off || len(e.warnings) != 1 || !strings.Contains(e.warnings[0], want) {
			t.Errorf("%s: telemetry %T, warnings %q, want one saying %q", settings, b.telemetry, e.warnings, want)
		}
		b.Close()
	}
}
