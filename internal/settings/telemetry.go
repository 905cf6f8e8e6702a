package settings

import "cmp"

// Telemetry is the "telemetry" object (0.61's TelemetrySettings).
// traces and useCliAuth are not read: gemini-ls makes no spans, and CLI
// auth is for 0.61's direct Google Cloud export, which it does not do.
type Telemetry struct {
	Enabled      *bool  `json:"enabled"`
	Target       string `json:"target"`
	OTLPEndpoint string `json:"otlpEndpoint"`
	OTLPProtocol string `json:"otlpProtocol"`
	LogPrompts   *bool  `json:"logPrompts"`
	Outfile      string `json:"outfile"`
	UseCollector *bool  `json:"useCollector"`
}

// ResolvedTelemetry is telemetry with the environment over the settings
// and 0.61's defaults under them.
type ResolvedTelemetry struct {
	Enabled      bool
	Target       string // "local" unless set; an unknown value is kept, for the caller to refuse
	OTLPEndpoint string
	OTLPProtocol string // "grpc" unless set
	Outfile      string
	LogPrompts   bool // true unless set
	UseCollector bool
}

// Resolve applies the environment as 0.61's resolveTelemetrySettings
// does: GEMINI_TELEMETRY_ENABLED, _TARGET, _OTLP_ENDPOINT (then
// OTEL_EXPORTER_OTLP_ENDPOINT), _OTLP_PROTOCOL, _LOG_PROMPTS, _OUTFILE and
// _USE_COLLECTOR win over the settings; a boolean variable is true when
// "true" or "1" and false for any other value it is set to.
func (t Telemetry) Resolve(getenv Getenv) ResolvedTelemetry {
	flag := func(name string, setting *bool, def bool) bool {
		if v := getenv(name); v != "" {
			return v == "true" || v == "1"
		}
		if setting != nil {
			return *setting
		}
		return def
	}
	return ResolvedTelemetry{
		Enabled:      flag("GEMINI_TELEMETRY_ENABLED", t.Enabled, false),
		Target:       cmp.Or(getenv("GEMINI_TELEMETRY_TARGET"), t.Target, "local"),
		OTLPEndpoint: cmp.Or(getenv("GEMINI_TELEMETRY_OTLP_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), t.OTLPEndpoint, "http://localhost:4317"),
		OTLPProtocol: cmp.Or(getenv("GEMINI_TELEMETRY_OTLP_PROTOCOL"), t.OTLPProtocol, "grpc"),
		Outfile:      cmp.Or(getenv("GEMINI_TELEMETRY_OUTFILE"), t.Outfile),
		LogPrompts:   flag("GEMINI_TELEMETRY_LOG_PROMPTS", t.LogPrompts, true),
		UseCollector: flag("GEMINI_TELEMETRY_USE_COLLECTOR", t.UseCollector, false),
	}
}
