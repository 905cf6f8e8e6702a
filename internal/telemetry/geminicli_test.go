package telemetry_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// TestSameNamesAsGeminiCLI runs Gemini CLI 0.61 itself against the fake
// model, a prompt with one tool call and two BeforeTool hooks (one times
// out), exporting to a real collector, and holds gemini-ls's names to
// what it sent: each event and metric name
// gemini-ls emits is one 0.61 emitted too (api_error aside: this run has
// none), under the same service.name, and each attribute gemini-ls puts
// on an event is one 0.61 put on it.
func TestSameNamesAsGeminiCLI(t *testing.T) {
	col := startCollector(t)
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})),
		geminitest.TextTurn("done"))
	home, project := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(project, "a.txt"), "hello\n")
	writeTestFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, project))
	writeTestFile(t, filepath.Join(home, ".gemini", "settings.json"), fmt.Sprintf(`{
		"security": {"auth": {"selectedType": "gemini-api-key"}},
		"model": {"skipNextSpeakerCheck": true},
		"experimental": {"useModelRouter": false},
		"general": {"disableAutoUpdate": true},
		"telemetry": {"enabled": true, "otlpEndpoint": %q, "otlpProtocol": "http", "logPrompts": true},
		"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "allow", "command": "echo '{\"decision\":\"allow\"}'"},
			{"type": "command", "name": "slow", "command": "sleep 1", "timeout": 200}]}]}
	}`, col.HTTP))
	cmd := geminicli.Command(t, home, project, srv.URL, "-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", "read a.txt", "-o", "text")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting gemini: %v", err)
	}
	hung := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	hung.Stop()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out.String())
	}
	want := []string{"gemini_cli.config", "gemini_cli.user_prompt", "gemini_cli.api_request", "gemini_cli.api_response", "gemini_cli.tool_call", "gemini_cli.hook_call"}
	theirs := parseOTLP(t, col.received(t, append(slices.Clone(want), wantMetrics...)...))

	ours := startCollector(t)
	s := newSink(t, telemetry.Config{OTLPEndpoint: ours.HTTP, OTLPProtocol: "http", LogPrompts: true})
	record(t, s)
	shutdown(t, s)
	mine := parseOTLP(t, ours.received(t, append(slices.Clone(wantEvents), wantMetrics...)...))

	for name := range mine.events {
		if name == "gemini_cli.api_error" {
			continue
		}
		their, ok := theirs.events[name]
		if !ok {
			t.Errorf("gemini-ls emits %s, 0.61 did not (0.61's: %v)", name, keys(theirs.events))
			continue
		}
		for attr := range mine.events[name] {
			if _, ok := their[attr]; !ok {
				t.Errorf("%s: gemini-ls sets %s, 0.61 did not (0.61's: %v)", name, attr, keys(their))
			}
		}
	}
	for name := range mine.metrics {
		if !theirs.metrics[name] {
			t.Errorf("gemini-ls emits metric %s, 0.61 did not (0.61's: %v)", name, keys(theirs.metrics))
		}
	}
	if !theirs.services[telemetry.ServiceName] {
		t.Errorf("0.61's service.name is not %s: %v", telemetry.ServiceName, theirs.services)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
