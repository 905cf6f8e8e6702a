package settings_test

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func env(m map[string]string) settings.Getenv { return func(k string) string { return m[k] } }

// TestTelemetryResolve: 0.61's defaults, the settings over them and its
// environment variables over the settings (resolveTelemetrySettings).
func TestTelemetryResolve(t *testing.T) {
	no, yes := false, true
	got := settings.Telemetry{}.Resolve(env(nil))
	want := settings.ResolvedTelemetry{Target: "local", OTLPEndpoint: "http://localhost:4317", OTLPProtocol: "grpc", LogPrompts: true}
	if got != want {
		t.Errorf("defaults: got %+v, want %+v", got, want)
	}
	set := settings.Telemetry{Enabled: &yes, Target: "gcp", OTLPEndpoint: "http://a:1", OTLPProtocol: "http", LogPrompts: &no, Outfile: "t.log", UseCollector: &yes}
	got = set.Resolve(env(nil))
	want = settings.ResolvedTelemetry{Enabled: true, Target: "gcp", OTLPEndpoint: "http://a:1", OTLPProtocol: "http", Outfile: "t.log", UseCollector: true}
	if got != want {
		t.Errorf("settings: got %+v, want %+v", got, want)
	}
	got = set.Resolve(env(map[string]string{
		"GEMINI_TELEMETRY_ENABLED": "yes", // neither "true" nor "1": false
		"GEMINI_TELEMETRY_TARGET":  "local", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:2",
		"GEMINI_TELEMETRY_OTLP_PROTOCOL": "grpc", "GEMINI_TELEMETRY_LOG_PROMPTS": "1",
		"GEMINI_TELEMETRY_OUTFILE": "o.log", "GEMINI_TELEMETRY_USE_COLLECTOR": "false",
	}))
	want = settings.ResolvedTelemetry{Target: "local", OTLPEndpoint: "http://otel:2", OTLPProtocol: "grpc", Outfile: "o.log", LogPrompts: true}
	if got != want {
		t.Errorf("environment: got %+v, want %+v", got, want)
	}
	got = set.Resolve(env(map[string]string{"GEMINI_TELEMETRY_OTLP_ENDPOINT": "http://gemini:3", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:2"}))
	if got.OTLPEndpoint != "http://gemini:3" {
		t.Errorf("GEMINI_TELEMETRY_OTLP_ENDPOINT does not win over OTEL_EXPORTER_OTLP_ENDPOINT: %q", got.OTLPEndpoint)
	}
}
