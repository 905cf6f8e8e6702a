package telemetry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// apiKey is shaped as a Google API key, as GEMINI_API_KEY holds.
const apiKey = "AIzaSyD-fake0key0for0the0telemetry0test1"

// otherSecret is a secret the environment holds that has no known shape.
const otherSecret = "hunter2-the-db-password"

const promptText = "please fix the flaky test in parser_test.go"

// record sends one of each event gemini-ls emits, with the credentials
// planted where a user or a model could put them, and text the user wrote
// quoted back in a tool's and the API's errors.
func record(t *testing.T, r telemetry.Recorder) {
	t.Helper()
	r.Config(telemetry.StartSession{Model: "gemini-2.5-pro", ApprovalMode: "default", APIKeyEnabled: true, MCPServers: []string{"docs"}})
	r.UserPrompt(telemetry.UserPrompt{SessionID: "s-1", PromptID: "s-1########0",
		Prompt: promptText + " (my key is " + apiKey + ", db " + otherSecret + ")"})
	r.APIRequest(telemetry.APIRequest{SessionID: "s-1", PromptID: "s-1########0", Model: "gemini-2.5-pro",
		RequestText: `[{"role":"user","parts":[{"text":"` + promptText + `"}]}]`})
	r.APIResponse(telemetry.APIResponse{SessionID: "s-1", PromptID: "s-1########0", Model: "gemini-2.5-pro",
		Duration: 1200 * time.Millisecond, Usage: telemetry.Usage{Input: 100, Output: 20, Cached: 60, Thoughts: 5, Total: 125},
		ResponseText: "I will run the model-written shell command", FinishReasons: []string{"STOP"}})
	r.ToolCall(telemetry.ToolCall{SessionID: "s-1", PromptID: "s-1########0", Name: "web_fetch",
		Args:     map[string]any{"prompt": "summarize https://intranet.example.test/private-notes"},
		Duration: 10 * time.Millisecond, Success: false, Decision: "accept",
		Error: "All fetch attempts failed: https://intranet.example.test/private-notes: 404 Not Found"})
	r.ToolCall(telemetry.ToolCall{SessionID: "s-1", PromptID: "s-1########0", Name: "run_shell_command",
		Args:     map[string]any{"command": "curl -H 'x-goog-api-key: " + apiKey + "' -H 'Authorization: Bearer ya29.a0AfH6SMBtokentokentoken' https://example.test"},
		Duration: 30 * time.Millisecond, Success: true, Decision: "accept"})
	r.APIError(telemetry.APIError{SessionID: "s-1", PromptID: "s-1########1", Model: "gemini-2.5-pro",
		Duration: 40 * time.Millisecond, Error: `Error 400, Message: Invalid value at 'contents[0]' ("` + promptText + `")`, ErrorType: "INVALID_ARGUMENT", StatusCode: 400})
	recordHooks(r)
}

// hookCommand is a hook's command with a credential among its arguments.
const hookCommand = "/home/u/hooks/check.sh --token " + apiKey

// recordHooks sends two hook calls: one that exited 0 with JSON output
// quoting the prompt, and one that timed out.
func recordHooks(r telemetry.Recorder) {
	zero := 0
	r.HookCall(telemetry.HookCall{SessionID: "s-1", Event: "BeforeTool", Name: hookCommand, Type: "command",
		Duration: 23 * time.Millisecond, Success: true, ExitCode: &zero,
		Input:  map[string]any{"session_id": "s-1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "go test <pkg> && echo"}},
		Output: map[string]any{"decision": "allow", "reason": promptText},
		Stdout: `{"decision":"allow","reason":"` + promptText + `"}` + "\n", Stderr: ""})
	r.HookCall(telemetry.HookCall{SessionID: "s-1", Event: "AfterAgent", Name: "slow-check", Type: "command",
		Duration: 60 * time.Second, Input: map[string]any{"prompt_response": "the model-written answer"},
		Stdout: "", Stderr: "still thinking about " + promptText, Error: "it timed out after 1m0s and was stopped"})
}

var (
	wantEvents  = []string{"gemini_cli.config", "gemini_cli.user_prompt", "gemini_cli.api_request", "gemini_cli.api_response", "gemini_cli.tool_call", "gemini_cli.api_error", "gemini_cli.hook_call"}
	wantMetrics = []string{"gemini_cli.session.count", "gemini_cli.tool.call.count", "gemini_cli.tool.call.latency", "gemini_cli.api.request.count", "gemini_cli.api.request.latency", "gemini_cli.token.usage",
		"gemini_cli.hook_call.count", "gemini_cli.hook_call.latency"}
)

func newSink(t *testing.T, c telemetry.Config) telemetry.Sink {
	t.Helper()
	c.Enabled = true
	c.MetricInterval = time.Hour // exported at Shutdown
	s, err := telemetry.New(context.Background(), telemetry.Options{
		Config: c, Version: "test", InstallationID: "inst-1", AuthType: "gemini-api-key",
		Secrets: telemetry.SecretEnv([]string{"GEMINI_API_KEY=" + apiKey, "DB_PASSWORD=" + otherSecret, "HOME=/home/u"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func shutdown(t *testing.T, s telemetry.Sink) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCollectorReceivesGeminiCLINames sends every event to a real
// OpenTelemetry Collector over grpc and over http and finds them there
// under 0.61's event, metric, attribute and service names.
func TestCollectorReceivesGeminiCLINames(t *testing.T) {
	for _, protocol := range []string{"grpc", "http"} {
		t.Run(protocol, func(t *testing.T) {
			col := startCollector(t)
			endpoint := col.GRPC
			if protocol == "http" {
				endpoint = col.HTTP
			}
			s := newSink(t, telemetry.Config{OTLPEndpoint: endpoint, OTLPProtocol: protocol, LogPrompts: true})
			record(t, s)
			shutdown(t, s)
			got := col.received(t, append(slices.Clone(wantEvents), wantMetrics...)...)
			o := parseOTLP(t, got)
			for _, e := range wantEvents {
				if o.events[e] == nil {
					t.Errorf("no %s event; events: %v", e, keys(o.events))
				}
			}
			for _, m := range wantMetrics {
				if !o.metrics[m] {
					t.Errorf("no %s metric; metrics: %v", m, o.metrics)
				}
			}
			if !o.services["gemini-cli"] {
				t.Errorf("service.name is not gemini-cli: %v", o.services)
			}
			resp := o.events["gemini_cli.api_response"]
			for k, v := range map[string]string{"session.id": "s-1", "installation.id": "inst-1", "prompt_id": "s-1########0",
				"model": "gemini-2.5-pro", "duration_ms": "1200", "input_token_count": "100", "cached_content_token_count": "60",
				"output_token_count": "20", "auth_type": "gemini-api-key"} {
				if resp[k] != v {
					t.Errorf("api_response %s = %q, want %q (all: %v)", k, resp[k], v, resp)
				}
			}
			if p := o.events["gemini_cli.user_prompt"]["prompt"]; !strings.Contains(p, promptText) {
				t.Errorf("with logPrompts the prompt is exported; got %q", p)
			}
			if d := o.events["gemini_cli.tool_call"]["decision"]; d != "accept" {
				t.Errorf("tool_call decision = %q", d)
			}
			noCredentials(t, got)
		})
	}
}

// TestLogPromptsFalse: no text the user or the model wrote reaches the
// collector, neither in the attributes meant for it nor in the errors
// that quote it; the API error's body says what was withheld.
func TestLogPromptsFalse(t *testing.T) {
	col := startCollector(t)
	s := newSink(t, telemetry.Config{OTLPEndpoint: col.GRPC, LogPrompts: false})
	record(t, s)
	shutdown(t, s)
	got := col.received(t, append(slices.Clone(wantEvents), wantMetrics...)...)
	for _, text := range []string{promptText, "flaky", "model-written", "curl", "example.test", "private-notes"} {
		if strings.Contains(got, text) {
			t.Errorf("with logPrompts false the collector received %q", text)
		}
	}
	if !strings.Contains(got, "API error for gemini-2.5-pro. Error: "+telemetry.Withheld+". Duration: 40ms.") {
		t.Error("the api_error body does not say its error was withheld")
	}
	o := parseOTLP(t, got)
	if o.events["gemini_cli.user_prompt"]["prompt_length"] == "" {
		t.Error("user_prompt lost its prompt_length")
	}
	if o.events["gemini_cli.config"]["log_user_prompts_enabled"] != "false" {
		t.Errorf("config log_user_prompts_enabled = %q", o.events["gemini_cli.config"]["log_user_prompts_enabled"])
	}
}

// TestLogPromptsFalseKeepsTheFacts: logPrompts false withholds exactly
// the attributes that can quote the user (the one rule's strings), and
// every other attribute of every event stays, the same as with it.
func TestLogPromptsFalseKeepsTheFacts(t *testing.T) {
	attrs := func(logPrompts bool) map[string]map[string]bool {
		col := startCollector(t)
		s := newSink(t, telemetry.Config{OTLPEndpoint: col.GRPC, LogPrompts: logPrompts})
		record(t, s)
		shutdown(t, s)
		return parseOTLP(t, col.received(t, wantEvents...)).keys
	}
	with, without := attrs(true), attrs(false)
	withheld := map[string][]string{
		"gemini_cli.config":       nil,
		"gemini_cli.user_prompt":  {"prompt"},
		"gemini_cli.api_request":  {"request_text"},
		"gemini_cli.api_response": {"response_text"},
		"gemini_cli.tool_call":    {"error", "error.message", "function_args"},
		"gemini_cli.api_error":    {"error", "error.message"},
		"gemini_cli.hook_call":    {"error", "hook_input", "hook_output", "stderr", "stdout"},
	}
	for event, want := range withheld {
		var lost []string
		for key := range with[event] {
			if !without[event][key] {
				lost = append(lost, key)
			}
		}
		slices.Sort(lost)
		if !slices.Equal(lost, want) {
			t.Errorf("%s: logPrompts false withholds %q, want %q", event, lost, want)
		}
		for key := range without[event] {
			if !with[event][key] {
				t.Errorf("%s: %s only with logPrompts false", event, key)
			}
		}
	}
}

// TestOutfile: the outfile gets the events and metrics instead of the
// endpoint (nothing listens there), appended, as 0.61's.
func TestOutfile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "telemetry.log")
	if err := os.WriteFile(out, []byte("earlier run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newSink(t, telemetry.Config{Outfile: out, OTLPEndpoint: "http://127.0.0.1:1", LogPrompts: true})
	record(t, s)
	shutdown(t, s)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	if !strings.HasPrefix(got, "earlier run\n") {
		t.Error("the outfile was not appended to")
	}
	for _, name := range append(slices.Clone(wantEvents), wantMetrics...) {
		if !strings.Contains(got, `"`+name+`"`) {
			t.Errorf("the outfile has no %s", name)
		}
	}
	if !strings.Contains(got, "gemini-cli") {
		t.Error("the outfile has no service.name gemini-cli")
	}
	noCredentials(t, got)
}

func noCredentials(t *testing.T, got string) {
	t.Helper()
	for _, secret := range []string{apiKey, otherSecret, "ya29.a0AfH6SMBtokentokentoken"} {
		if strings.Contains(got, secret) {
			t.Errorf("a credential was exported: %q", secret)
		}
	}
	if !strings.Contains(got, telemetry.Redacted) {
		t.Error("nothing was redacted: the planted credentials are not where they were put")
	}
}

// otlp is what the collector's file exporter wrote, by name.
type otlp struct {
	events   map[string]map[string]string // event.name → attributes (the last record's)
	keys     map[string]map[string]bool   // event.name → attribute keys of all its records
	metrics  map[string]bool
	services map[string]bool
}

type kv struct {
	Key   string         `json:"key"`
	Value map[string]any `json:"value"`
}

func (a kv) String() string {
	for _, v := range a.Value {
		switch v := v.(type) {
		case string:
			return v
		case bool:
			if v {
				return "true"
			}
			return "false"
		case float64:
			b, _ := json.Marshal(v)
			return string(b)
		default:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	return ""
}

func parseOTLP(t *testing.T, data string) otlp {
	t.Helper()
	o := otlp{events: map[string]map[string]string{}, keys: map[string]map[string]bool{}, metrics: map[string]bool{}, services: map[string]bool{}}
	for line := range strings.Lines(data) {
		var doc struct {
			ResourceLogs []struct {
				Resource  struct{ Attributes []kv }
				ScopeLogs []struct {
					LogRecords []struct{ Attributes []kv }
				}
			}
			ResourceMetrics []struct {
				Resource     struct{ Attributes []kv }
				ScopeMetrics []struct {
					Metrics []struct{ Name string }
				}
			}
		}
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			t.Fatalf("the collector wrote a line that is not OTLP JSON: %v\n%s", err, line)
		}
		service := func(attrs []kv) {
			for _, a := range attrs {
				if a.Key == "service.name" {
					o.services[a.String()] = true
				}
			}
		}
		for _, rl := range doc.ResourceLogs {
			service(rl.Resource.Attributes)
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					attrs := map[string]string{}
					for _, a := range lr.Attributes {
						attrs[a.Key] = a.String()
					}
					name := attrs["event.name"]
					o.events[name] = attrs
					if o.keys[name] == nil {
						o.keys[name] = map[string]bool{}
					}
					for key := range attrs {
						o.keys[name][key] = true
					}
				}
			}
		}
		for _, rm := range doc.ResourceMetrics {
			service(rm.Resource.Attributes)
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					o.metrics[m.Name] = true
				}
			}
		}
	}
	return o
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
