// Command otelcol is a real OpenTelemetry Collector with only what the
// telemetry tests need: the OTLP receiver (grpc and http) and the contrib
// file exporter, which writes what it received as OTLP JSON lines. It is the
// collector's own otelcol.NewCommand, so it reads a standard collector config
// (--config file.yaml); the components are those the collector's builder
// (ocb) would put in with a manifest naming these two.
//
// It lives in its own Go module so that the collector's many dependencies stay
// out of gemini-ls's go.mod; `make otelcol` (or telemetry's tests) builds it
// once into ~/.cache/gemini-ls/otelcol-<version>.
package main

import (
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return f, fmt.Errorf("receivers: %w", err)
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory()); err != nil {
		return f, fmt.Errorf("exporters: %w", err)
	}
	// The collector's own telemetry (its logs on stderr), which it needs.
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol",
			Description: "gemini-ls test collector: otlp receiver, file exporter",
			Version:     "0.165.0",
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				// --config takes a file; env is the collector's default
				// scheme for ${VAR} in it, which the resolver requires.
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
				DefaultScheme:     "env",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol:", err)
		os.Exit(1)
	}
}
