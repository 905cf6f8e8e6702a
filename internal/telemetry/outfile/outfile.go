package outfile

import (
	"encoding/json"
	"os"
	"strings"
)

// Record is one JSON object of the file: a log record, a collection of
// metrics or a span, as parsed.
type Record map[string]any

// File is the records of a telemetry outfile, in order.
type File []Record

// Read reads and parses the outfile at path; an absent file has no
// records, as for the rig.
func Read(path string) (File, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(string(data)), nil
}

// Parse cuts content into its JSON objects as the rig does (split at
// "}\n{", the braces put back) and parses each; one that does not parse
// is skipped.
func Parse(content string) File {
	pieces := strings.Split(content, "}\n{")
	var out File
	for i, p := range pieces {
		if i > 0 {
			p = "{" + p
		}
		if i < len(pieces)-1 {
			p += "}"
		}
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		var r Record
		if json.Unmarshal([]byte(p), &r) != nil || r == nil {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Attributes is a log record's "attributes" object; nil when it has none.
func (r Record) Attributes() map[string]any {
	a, _ := r["attributes"].(map[string]any)
	return a
}

// EventName is a log record's attributes["event.name"].
func (r Record) EventName() string {
	s, _ := r.Attributes()["event.name"].(string)
	return s
}

// Events are the records whose event.name is name, in order.
func (f File) Events(name string) []Record {
	var out []Record
	for _, r := range f {
		if r.EventName() == name {
			out = append(out, r)
		}
	}
	return out
}

// ToolCall is a gemini_cli.tool_call record as readToolLogs reads it,
// with its defaults for what is missing.
type ToolCall struct {
	Name, Args       string
	Success          bool
	DurationMS       float64
	PromptID         string
	Error, ErrorType string
}

// ToolLogs are the tool calls, as readToolLogs reads them.
func (f File) ToolLogs() []ToolCall {
	var out []ToolCall
	for _, r := range f.Events("gemini_cli.tool_call") {
		a := r.Attributes()
		out = append(out, ToolCall{
			Name:       str(a, "function_name", ""),
			Args:       str(a, "function_args", "{}"),
			Success:    boolean(a, "success"),
			DurationMS: num(a, "duration_ms"),
			PromptID:   str(a, "prompt_id", ""),
			Error:      str(a, "error", ""),
			ErrorType:  str(a, "error_type", ""),
		})
	}
	return out
}

// HookCall is a gemini_cli.hook_call record as readHookLogs reads it.
// HookInput and HookOutput are as the file holds them: 0.61 writes them
// as JSON text, which the rig's tests parse.
type HookCall struct {
	HookEventName, HookName string
	HookInput, HookOutput   any
	ExitCode                float64
	Stdout, Stderr          string
	DurationMS              float64
	Success                 bool
	Error                   string
}

// HookLogs are the hook calls, as readHookLogs reads them.
func (f File) HookLogs() []HookCall {
	var out []HookCall
	for _, r := range f.Events("gemini_cli.hook_call") {
		a := r.Attributes()
		out = append(out, HookCall{
			HookEventName: str(a, "hook_event_name", ""),
			HookName:      str(a, "hook_name", ""),
			HookInput:     orEmpty(a["hook_input"]),
			HookOutput:    orEmpty(a["hook_output"]),
			ExitCode:      num(a, "exit_code"),
			Stdout:        str(a, "stdout", ""),
			Stderr:        str(a, "stderr", ""),
			DurationMS:    num(a, "duration_ms"),
			Success:       boolean(a, "success"),
			Error:         str(a, "error", ""),
		})
	}
	return out
}

// Metric is one instrument's data in a metrics record.
type Metric struct {
	Descriptor map[string]any
	DataPoints []map[string]any
	Raw        map[string]any
}

// Name is the metric's descriptor.name.
func (m Metric) Name() string {
	s, _ := m.Descriptor["name"].(string)
	return s
}

// Metrics are every metric of every metrics record, in order.
func (f File) Metrics() []Metric {
	var out []Metric
	for _, r := range f {
		scopes, _ := r["scopeMetrics"].([]any)
		for _, s := range scopes {
			sm, _ := s.(map[string]any)
			metrics, _ := sm["metrics"].([]any)
			for _, m := range metrics {
				if raw, ok := m.(map[string]any); ok {
					out = append(out, newMetric(raw))
				}
			}
		}
	}
	return out
}

func newMetric(raw map[string]any) Metric {
	m := Metric{Raw: raw}
	m.Descriptor, _ = raw["descriptor"].(map[string]any)
	points, _ := raw["dataPoints"].([]any)
	for _, p := range points {
		if dp, ok := p.(map[string]any); ok {
			m.DataPoints = append(m.DataPoints, dp)
		}
	}
	return m
}

// Metric is the first metric named name (gemini_cli.NAME), as
// readMetric finds it; ok false when there is none.
func (f File) Metric(name string) (Metric, bool) {
	for _, m := range f.Metrics() {
		if m.Name() == name {
			return m, true
		}
	}
	return Metric{}, false
}

func str(a map[string]any, key, def string) string {
	if s, ok := a[key].(string); ok {
		return s
	}
	return def
}

func num(a map[string]any, key string) float64 {
	f, _ := a[key].(float64)
	return f
}

func boolean(a map[string]any, key string) bool {
	b, _ := a[key].(bool)
	return b
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}
