package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// Options is what New needs besides the settings: the facts every event
// carries (0.61's getCommonAttributes) and the secrets to keep out.
type Options struct {
	Config
	// Version is gemini-ls's, the resource's service.version.
	Version string
	// InstallationID is ~/.gemini/installation_id, shared with Gemini CLI.
	InstallationID string
	// Interactive: a person is there (the editor), not a headless run.
	Interactive bool
	// AuthType is the auth mode ("gemini-api-key", "oauth-personal", …).
	AuthType string
	// Secrets are values never to export (NewRedactor).
	Secrets []string
}

// defaultMetricInterval is 0.61's exportIntervalMillis for OTLP and file.
const defaultMetricInterval = 10 * time.Second

// Telemetry exports through its own SDK providers.
type Telemetry struct {
	logPrompts bool
	common     []attribute.KeyValue
	redact     *Redactor
	now        func() time.Time

	logs    *sdklog.LoggerProvider
	logger  log.Logger
	metrics *sdkmetric.MeterProvider
	file    *os.File

	sessions, toolCalls, apiRequests, tokens, hookCalls metric.Int64Counter
	toolLatency, apiLatency, hookLatency                metric.Int64Histogram
}

// New returns Nop when telemetry is off, else a Telemetry exporting to
// the outfile or the OTLP endpoint; an error when the settings ask for
// what cannot be done (Config.Validate) or the outfile cannot be opened.
// No connection is made here: the exporters connect on their first export.
func New(ctx context.Context, o Options) (Sink, error) {
	if !o.Enabled {
		return Nop{}, nil
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t := &Telemetry{
		logPrompts: o.LogPrompts,
		redact:     NewRedactor(o.Secrets...),
		now:        time.Now,
	}
	// 0.61's getCommonAttributes, in its order (session.id goes first).
	if o.InstallationID != "" {
		t.common = append(t.common, attribute.String("installation.id", o.InstallationID))
	}
	t.common = append(t.common, attribute.Bool("interactive", o.Interactive))
	if o.AuthType != "" {
		t.common = append(t.common, attribute.String("auth_type", o.AuthType))
	}
	res := resource.NewSchemaless(
		semconv.ServiceName(ServiceName),
		semconv.ServiceVersion(o.Version),
	)
	logExp, metricExp, err := t.exporters(ctx, o.Config)
	if err != nil {
		return nil, err
	}
	interval := o.MetricInterval
	if interval <= 0 {
		interval = defaultMetricInterval
	}
	t.logs = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewBatchProcessor(logExp)))
	t.metrics = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExp, sdkmetric.WithInterval(interval))))
	t.logger = t.logs.Logger(ServiceName)
	if err := t.instruments(t.metrics.Meter(ServiceName)); err != nil {
		return nil, errors.Join(err, t.Shutdown(ctx))
	}
	return t, nil
}

// exporters makes 0.61's: the outfile's when set (it overrides the
// endpoint), writing what 0.61's file holds, else OTLP over grpc (gzip,
// as 0.61) or http.
func (t *Telemetry) exporters(ctx context.Context, c Config) (sdklog.Exporter, sdkmetric.Exporter, error) {
	if c.Outfile != "" {
		f, err := os.OpenFile(c.Outfile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("opening the telemetry outfile: %w", err)
		}
		t.file = f
		// 0.61's FileLogExporter and FileMetricExporter: the JavaScript
		// SDK's objects, which its tools read (jsfile.go).
		w := &lockedWriter{w: f}
		return jsLogExporter{w: w}, jsMetricExporter{w: w}, nil
	}
	u, err := c.endpoint()
	if err != nil {
		return nil, nil, err
	}
	if c.protocol() == ProtocolHTTP {
		base := strings.TrimSuffix(u.String(), "/")
		logExp, err := otlploghttp.New(ctx, otlploghttp.WithEndpointURL(base+"/v1/logs"))
		if err != nil {
			return nil, nil, fmt.Errorf("making the OTLP http log exporter: %w", err)
		}
		metricExp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"))
		if err != nil {
			return nil, nil, fmt.Errorf("making the OTLP http metric exporter: %w", err)
		}
		return logExp, metricExp, nil
	}
	logExp, err := otlploggrpc.New(ctx, otlploggrpc.WithEndpointURL(u.String()), otlploggrpc.WithCompressor("gzip"))
	if err != nil {
		return nil, nil, fmt.Errorf("making the OTLP grpc log exporter: %w", err)
	}
	metricExp, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(u.String()), otlpmetricgrpc.WithCompressor("gzip"))
	if err != nil {
		return nil, nil, fmt.Errorf("making the OTLP grpc metric exporter: %w", err)
	}
	return logExp, metricExp, nil
}

// instruments makes 0.61's counters and histograms, with its
// descriptions and units.
func (t *Telemetry) instruments(m metric.Meter) error {
	var errs []error
	counter := func(name, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string) metric.Int64Histogram {
		h, err := m.Int64Histogram(name, metric.WithDescription(desc), metric.WithUnit("ms"))
		errs = append(errs, err)
		return h
	}
	t.sessions = counter("gemini_cli.session.count", "Count of CLI sessions started.")
	t.toolCalls = counter("gemini_cli.tool.call.count", "Counts tool calls, tagged by function name and success.")
	t.apiRequests = counter("gemini_cli.api.request.count", "Counts API requests, tagged by model and status.")
	t.tokens = counter("gemini_cli.token.usage", "Counts the total number of tokens used.")
	t.toolLatency = histogram("gemini_cli.tool.call.latency", "Latency of tool calls in milliseconds.")
	t.apiLatency = histogram("gemini_cli.api.request.latency", "Latency of API requests in milliseconds.")
	t.hookCalls = counter("gemini_cli.hook_call.count", "Counts hook calls, tagged by hook event name and success.")
	t.hookLatency = histogram("gemini_cli.hook_call.latency", "Latency of hook calls in milliseconds.")
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("making the telemetry metrics: %w", err)
	}
	return nil
}

// Shutdown exports what is pending and closes the exporters and the
// outfile; ctx bounds it (an unreachable collector must not hold up exit).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	if t.logs != nil {
		errs = append(errs, t.logs.Shutdown(ctx))
	}
	if t.metrics != nil {
		errs = append(errs, t.metrics.Shutdown(ctx))
	}
	if t.file != nil {
		errs = append(errs, t.file.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("flushing telemetry: %w", err)
	}
	return nil
}

// lockedWriter lets the log and metric exporters share the outfile.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// attrs is the session's and the common attributes, then kv.
func (t *Telemetry) attrs(sessionID string, kv ...attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(t.common)+1+len(kv))
	if sessionID != "" {
		out = append(out, attribute.String("session.id", sessionID))
	}
	out = append(out, t.common...)
	return append(out, kv...)
}

// emit sends one log record as 0.61's logger.emit does: its body, its
// attributes as far as they are exported, in 0.61's order: the session's
// and the common ones, event.name and event.timestamp, then the event's.
func (t *Telemetry) emit(ctx context.Context, name, body string, attrs []attribute.KeyValue) {
	var r log.Record
	now := t.now()
	r.SetEventName(name)
	r.SetTimestamp(now)
	r.SetObservedTimestamp(now)
	r.SetBody(attribute.StringValue(t.redact.String(body)))
	common := len(t.common)
	if len(attrs) > 0 && attrs[0].Key == "session.id" {
		common++
	}
	common = min(common, len(attrs))
	r.AddAttributes(t.exported(attrs[:common])...)
	r.AddAttributes(
		attribute.String("event.name", name),
		attribute.String("event.timestamp", now.UTC().Format("2006-01-02T15:04:05.000Z07:00")),
	)
	r.AddAttributes(t.exported(attrs[common:])...)
	t.logger.Emit(ctx, r)
}

// exported is what leaves the process of attrs, logs' and metrics' alike:
// the attributes logPrompts lets out (exports), every string passed
// through the Redactor.
func (t *Telemetry) exported(attrs []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(attrs))
	for _, kv := range attrs {
		if !t.exports(kv) {
			continue
		}
		switch kv.Value.Type() {
		case attribute.STRING:
			kv = attribute.String(string(kv.Key), t.redact.String(kv.Value.AsString()))
		case attribute.STRINGSLICE:
			ss := kv.Value.AsStringSlice()
			for j := range ss {
				ss[j] = t.redact.String(ss[j])
			}
			kv = attribute.StringSlice(string(kv.Key), ss)
		}
		out = append(out, kv)
	}
	return out
}

// metricAttrs are a measurement's attributes, exported as a record's.
func (t *Telemetry) metricAttrs(sessionID string, kv ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributes(t.exported(t.attrs(sessionID, kv...))...)
}

func (t *Telemetry) Config(e StartSession) {
	ctx := context.Background()
	t.emit(ctx, "gemini_cli.config", "CLI configuration loaded.", t.attrs("",
		attribute.String("model", e.Model),
		attribute.Bool("sandbox_enabled", e.SandboxEnabled),
		attribute.String("core_tools_enabled", strings.Join(e.CoreTools, ",")),
		attribute.String("approval_mode", e.ApprovalMode),
		attribute.Bool("api_key_enabled", e.APIKeyEnabled),
		attribute.Bool("vertex_ai_enabled", e.VertexAIEnabled),
		attribute.Bool("log_user_prompts_enabled", t.logPrompts),
		attribute.Bool("file_filtering_respect_git_ignore", e.RespectGitIgnore),
		attribute.Bool("debug_mode", e.DebugMode),
		attribute.String("mcp_servers", strings.Join(e.MCPServers, ",")),
		attribute.Int("mcp_servers_count", len(e.MCPServers)),
		attribute.String("output_format", e.OutputFormat),
		attribute.String("extensions", strings.Join(e.Extensions, ",")),
		attribute.Int("extensions_count", len(e.Extensions)),
		attribute.String("extension_ids", strings.Join(e.ExtensionIDs, ",")),
		attribute.Bool("worktree_active", false),
	))
	t.sessions.Add(ctx, 1, t.metricAttrs(""))
}

func (t *Telemetry) UserPrompt(e UserPrompt) {
	kv := []attribute.KeyValue{
		attribute.Int("prompt_length", len(e.Prompt)),
		attribute.String("prompt_id", e.PromptID),
		attribute.String("prompt", e.Prompt),
	}
	t.emit(context.Background(), "gemini_cli.user_prompt", fmt.Sprintf("User prompt. Length: %d.", len(e.Prompt)), t.attrs(e.SessionID, kv...))
}

func (t *Telemetry) ToolCall(e ToolCall) {
	ctx := context.Background()
	toolType := "native"
	if e.MCPServer != "" {
		toolType = "mcp"
	}
	ms := e.Duration.Milliseconds()
	kv := []attribute.KeyValue{
		attribute.String("function_name", e.Name),
		attribute.Int64("duration_ms", ms),
		attribute.Bool("success", e.Success),
		attribute.String("prompt_id", e.PromptID),
		attribute.String("tool_type", toolType),
	}
	if e.Decision != "" {
		kv = append(kv, attribute.String("decision", e.Decision))
	}
	if e.MCPServer != "" {
		kv = append(kv, attribute.String("mcp_server_name", e.MCPServer))
	}
	if e.Args != nil {
		if args, err := json.MarshalIndent(e.Args, "", "  "); err == nil {
			kv = append(kv, attribute.String("function_args", string(args)))
		}
	}
	if e.Error != "" {
		kv = append(kv, attribute.String("error", e.Error), attribute.String("error.message", e.Error))
		if e.ErrorType != "" {
			kv = append(kv, attribute.String("error_type", e.ErrorType), attribute.String("error.type", e.ErrorType))
		}
	}
	body := fmt.Sprintf("Tool call: %s. Success: %t. Duration: %dms.", e.Name, e.Success, ms)
	if e.Decision != "" {
		body = fmt.Sprintf("Tool call: %s. Decision: %s. Success: %t. Duration: %dms.", e.Name, e.Decision, e.Success, ms)
	}
	t.emit(ctx, "gemini_cli.tool_call", body, t.attrs(e.SessionID, kv...))
	count := []attribute.KeyValue{
		attribute.String("function_name", e.Name),
		attribute.Bool("success", e.Success),
		attribute.String("tool_type", toolType),
	}
	if e.Decision != "" {
		count = append(count, attribute.String("decision", e.Decision))
	}
	t.toolCalls.Add(ctx, 1, t.metricAttrs(e.SessionID, count...))
	t.toolLatency.Record(ctx, ms, t.metricAttrs(e.SessionID, attribute.String("function_name", e.Name)))
}

func (t *Telemetry) APIRequest(e APIRequest) {
	kv := []attribute.KeyValue{
		attribute.String("model", e.Model),
		attribute.String("prompt_id", e.PromptID),
	}
	if e.RequestText != "" {
		kv = append(kv, attribute.String("request_text", e.RequestText))
	}
	t.emit(context.Background(), "gemini_cli.api_request", "API request to "+e.Model+".", t.attrs(e.SessionID, kv...))
}

func (t *Telemetry) APIResponse(e APIResponse) {
	ctx := context.Background()
	ms := e.Duration.Milliseconds()
	u := e.Usage
	kv := []attribute.KeyValue{
		attribute.String("model", e.Model),
		attribute.Int64("duration_ms", ms),
		attribute.Int64("input_token_count", u.Input),
		attribute.Int64("output_token_count", u.Output),
		attribute.Int64("cached_content_token_count", u.Cached),
		attribute.Int64("thoughts_token_count", u.Thoughts),
		attribute.Int64("tool_token_count", u.Tool),
		attribute.Int64("total_token_count", u.Total),
		attribute.String("prompt_id", e.PromptID),
		attribute.Int("status_code", 200),
		attribute.StringSlice("finish_reasons", e.FinishReasons),
	}
	if e.ResponseText != "" {
		kv = append(kv, attribute.String("response_text", e.ResponseText))
	}
	t.emit(ctx, "gemini_cli.api_response", "API response from "+e.Model+".", t.attrs(e.SessionID, kv...))
	t.apiRequests.Add(ctx, 1, t.metricAttrs(e.SessionID, attribute.String("model", e.Model), attribute.Int("status_code", 200)))
	t.apiLatency.Record(ctx, ms, t.metricAttrs(e.SessionID, attribute.String("model", e.Model)))
	for _, c := range []struct {
		n    int64
		kind string
	}{{u.Input, "input"}, {u.Output, "output"}, {u.Cached, "cache"}, {u.Thoughts, "thought"}, {u.Tool, "tool"}} {
		t.tokens.Add(ctx, c.n, t.metricAttrs(e.SessionID, attribute.String("model", e.Model), attribute.String("type", c.kind)))
	}
}

func (t *Telemetry) APIError(e APIError) {
	ctx := context.Background()
	ms := e.Duration.Milliseconds()
	errorText := attribute.String("error", e.Error)
	kv := []attribute.KeyValue{
		attribute.String("error.message", e.Error),
		attribute.String("model_name", e.Model),
		attribute.Int64("duration", ms),
		attribute.String("model", e.Model),
		errorText,
		attribute.Int64("duration_ms", ms),
		attribute.String("prompt_id", e.PromptID),
	}
	if e.ErrorType != "" {
		kv = append(kv, attribute.String("error.type", e.ErrorType))
	}
	status := attribute.String("status_code", "error") // 0.61's when there is none
	if e.StatusCode != 0 {
		status = attribute.Int("status_code", e.StatusCode)
		kv = append(kv, attribute.Int("http.status_code", e.StatusCode))
	}
	kv = append(kv, status)
	body := fmt.Sprintf("API error for %s. Error: %s. Duration: %dms.", e.Model, t.shown(errorText), ms)
	t.emit(ctx, "gemini_cli.api_error", body, t.attrs(e.SessionID, kv...))
	t.apiRequests.Add(ctx, 1, t.metricAttrs(e.SessionID, attribute.String("model", e.Model), status,
		attribute.String("error_type", cmpOr(e.ErrorType, "unknown"))))
	t.apiLatency.Record(ctx, ms, t.metricAttrs(e.SessionID, attribute.String("model", e.Model)))
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
