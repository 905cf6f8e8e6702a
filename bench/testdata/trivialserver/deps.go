//go:build linkdeps

package main

// Built with -tags linkdeps, the trivial server links every package
// outside the standard library that gemini-ls imports directly (and so
// everything those import), without using them: what is left is what
// linking the chosen dependencies costs a process (their package init,
// the pages a bigger binary faults in). TestTheDependencyFloorLinksEvery
// Dependency keeps this list equal to cmd/gemini-ls's.
import (
	_ "cloud.google.com/go/auth"
	_ "cloud.google.com/go/auth/credentials"
	_ "cloud.google.com/go/auth/credentials/idtoken"
	_ "cloud.google.com/go/auth/httptransport"
	_ "github.com/BurntSushi/toml"
	_ "github.com/JohannesKaufmann/html-to-markdown/v2"
	_ "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	_ "github.com/a2aproject/a2a-go/a2a"
	_ "github.com/a2aproject/a2a-go/a2aclient"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/aymanbagabas/go-udiff/lcs"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/go-json-experiment/json"
	_ "github.com/go-json-experiment/json/jsontext"
	_ "github.com/go-logr/stdr"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/google/uuid"
	_ "github.com/modelcontextprotocol/go-sdk/auth"
	_ "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/modelcontextprotocol/go-sdk/oauthex"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "go.lsp.dev/uri"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/attribute"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	_ "go.opentelemetry.io/otel/log"
	_ "go.opentelemetry.io/otel/metric"
	_ "go.opentelemetry.io/otel/sdk/log"
	_ "go.opentelemetry.io/otel/sdk/metric"
	_ "go.opentelemetry.io/otel/sdk/metric/metricdata"
	_ "go.opentelemetry.io/otel/sdk/resource"
	_ "go.opentelemetry.io/otel/semconv/v1.40.0"
	_ "go.uber.org/zap"
	_ "go.uber.org/zap/zapcore"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/crypto/scrypt"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/html/atom"
	_ "golang.org/x/net/html/charset"
	_ "golang.org/x/net/http/httpproxy"
	_ "golang.org/x/oauth2"
	_ "golang.org/x/sys/unix"
	_ "google.golang.org/genai"
	_ "mvdan.cc/sh/v3/shell"
	_ "mvdan.cc/sh/v3/syntax"
)
