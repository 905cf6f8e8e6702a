package telemetry

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// 0.61's defaults (packages/core config.js, telemetry/index.js).
const (
	DefaultOTLPEndpoint = "http://localhost:4317"
	TargetLocal         = "local"
	TargetGCP           = "gcp"
	ProtocolGRPC        = "grpc"
	ProtocolHTTP        = "http"
	// ServiceName is 0.61's resource service.name (SERVICE_NAME), kept so
	// that dashboards for Gemini CLI read gemini-ls's data unchanged.
	ServiceName = "gemini-cli"
)

// Config is telemetry as the settings and the environment resolved it
// (settings.Telemetry.Resolve).
type Config struct {
	Enabled      bool
	Target       string // TargetLocal or TargetGCP
	OTLPEndpoint string
	OTLPProtocol string // ProtocolGRPC or ProtocolHTTP
	// Outfile, when set, gets every log record and metric instead of the
	// OTLP endpoint, as 0.61's outfile overrides otlpEndpoint.
	Outfile      string
	LogPrompts   bool
	UseCollector bool

	// MetricInterval is how often metrics are exported; 0.61's 10s when 0.
	MetricInterval time.Duration
}

// ErrGCPDirect says that target gcp without useCollector asks for 0.61's
// in-process Google Cloud exporters, which gemini-ls does not have.
var ErrGCPDirect = errors.New(`telemetry.target "gcp" exports straight to Google Cloud, which gemini-ls does not do; set telemetry.useCollector to true and run an OpenTelemetry collector that exports to Google Cloud at telemetry.otlpEndpoint, or use target "local"`)

// Validate checks the values 0.61 refuses (its FatalConfigError for a bad
// target or protocol) and what gemini-ls cannot do.
func (c Config) Validate() error {
	switch c.Target {
	case "", TargetLocal, TargetGCP:
	default:
		return fmt.Errorf("invalid telemetry target %q: valid values are local, gcp", c.Target)
	}
	switch c.OTLPProtocol {
	case "", ProtocolGRPC, ProtocolHTTP:
	default:
		return fmt.Errorf("invalid telemetry OTLP protocol %q: valid values are grpc, http", c.OTLPProtocol)
	}
	if c.Target == TargetGCP && !c.UseCollector {
		return ErrGCPDirect
	}
	if c.Outfile == "" {
		if _, err := c.endpoint(); err != nil {
			return err
		}
	}
	return nil
}

// endpoint parses OTLPEndpoint as 0.61's parseOtlpEndpoint: quotes around
// it are dropped; grpc takes the URL's origin, http the whole URL (the
// signal's path, v1/logs or v1/metrics, is appended to it).
func (c Config) endpoint() (*url.URL, error) {
	raw := strings.Trim(c.OTLPEndpoint, `"'`)
	if raw == "" {
		raw = DefaultOTLPEndpoint
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("invalid telemetry OTLP endpoint %q: want a URL such as %s", raw, DefaultOTLPEndpoint)
	}
	if c.protocol() == ProtocolGRPC {
		return &url.URL{Scheme: u.Scheme, Host: u.Host}, nil
	}
	return u, nil
}

func (c Config) protocol() string {
	if c.OTLPProtocol == "" {
		return ProtocolGRPC
	}
	return c.OTLPProtocol
}
