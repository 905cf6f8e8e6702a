package telemetry

// The outfile as Gemini CLI 0.61 writes it: its FileLogExporter and
// FileMetricExporter (packages/core/src/telemetry/file-exporters.ts) write
// each log record, and each collection of metrics, as the JavaScript
// OpenTelemetry SDK's object serialized by JSON.stringify(data, null, 2)
// plus a newline: records follow each other as "}\n{", which is how its
// integration rig (packages/test-utils test-rig.ts) and a user's scripts
// split them. A log record is the SDK's LogRecordImpl (hrTime, resource,
// instrumentationScope, attributes as one object, _body, …); metrics are
// its ResourceMetrics (resource, scopeMetrics[].metrics[] with descriptor,
// dataPointType and dataPoints). The Go SDK's records are written in that
// shape here; the OTLP exporters are not touched.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// jsAttributeCountLimit is the JavaScript SDK's default attributeCountLimit,
// which its records carry in _logRecordLimits.
const jsAttributeCountLimit = 128

// The JavaScript SDK's enumerations as its records hold them (numbers).
const (
	jsCumulative          = 1 // AggregationTemporality.CUMULATIVE
	jsDataPointHistogram  = 0 // DataPointType.HISTOGRAM
	jsDataPointGauge      = 2 // DataPointType.GAUGE
	jsDataPointSum        = 3 // DataPointType.SUM
	jsValueTypeInt        = 0 // ValueType.INT
	jsValueTypeDouble     = 1 // ValueType.DOUBLE
	jsInstrumentCounter   = "COUNTER"
	jsInstrumentUpDown    = "UP_DOWN_COUNTER"
	jsInstrumentHistogram = "HISTOGRAM"
	jsInstrumentGauge     = "GAUGE"
)

// writeJS writes v as JSON.stringify(v, null, 2) + "\n" does: two-space
// indents, and no escaping of <, > and & (JavaScript escapes none).
func writeJS(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v) // Encode ends it with the newline
}

// hrTime is a time as the JavaScript SDK's HrTime: [seconds, nanoseconds].
func hrTime(t time.Time) [2]int64 {
	return [2]int64{t.Unix(), int64(t.Nanosecond())}
}

// object is a JSON object that keeps its keys in the order they were set,
// as a JavaScript object does; setting a key again replaces its value in
// place.
type object struct {
	keys   []string
	values map[string]any
}

func newObject(n int) *object {
	return &object{keys: make([]string, 0, n), values: make(map[string]any, n)}
}

func (o *object) set(key string, v any) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeCompact(&b, k); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encodeCompact(&b, o.values[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeCompact appends v's JSON to b without escaping HTML characters;
// the enclosing encoder indents it.
func encodeCompact(b *bytes.Buffer, v any) error {
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	return nil
}

// number is a float as JSON.stringify writes it: NaN and the infinities,
// which JSON cannot hold, as null.
func number(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// jsAttribute is an attribute value (a record's body or attribute, a
// metric's attribute) as JavaScript holds it.
func jsAttribute(v attribute.Value) any {
	switch v.Type() {
	case attribute.BOOL:
		return v.AsBool()
	case attribute.INT64:
		return v.AsInt64()
	case attribute.FLOAT64:
		return number(v.AsFloat64())
	case attribute.STRING:
		return v.AsString()
	case attribute.BOOLSLICE:
		return v.AsBoolSlice()
	case attribute.INT64SLICE:
		return v.AsInt64Slice()
	case attribute.FLOAT64SLICE:
		fs := v.AsFloat64Slice()
		out := make([]any, len(fs))
		for i, f := range fs {
			out[i] = number(f)
		}
		return out
	case attribute.STRINGSLICE:
		return v.AsStringSlice()
	case attribute.BYTESLICE:
		return base64.StdEncoding.EncodeToString(v.AsByteSlice())
	case attribute.SLICE:
		vs := v.AsSlice()
		out := make([]any, len(vs))
		for i, e := range vs {
			out[i] = jsAttribute(e)
		}
		return out
	case attribute.MAP:
		kvs := v.AsMap()
		o := newObject(len(kvs))
		for _, kv := range kvs {
			o.set(string(kv.Key), jsAttribute(kv.Value))
		}
		return o
	}
	return nil
}

// jsAttributes is a set of attributes as one JavaScript object.
func jsAttributes(set attribute.Set) *object {
	o := newObject(set.Len())
	for it := set.Iter(); it.Next(); {
		kv := it.Attribute()
		o.set(string(kv.Key), jsAttribute(kv.Value))
	}
	return o
}

// jsResource is the SDK's Resource as JSON.stringify writes it: its
// attributes as [key, value] pairs.
type jsResource struct {
	RawAttributes          [][2]any `json:"_rawAttributes"`
	AsyncAttributesPending bool     `json:"_asyncAttributesPending"`
}

func newJSResource(res *resource.Resource) jsResource {
	out := jsResource{RawAttributes: [][2]any{}}
	if res == nil {
		return out
	}
	for it := res.Iter(); it.Next(); {
		kv := it.Attribute()
		out.RawAttributes = append(out.RawAttributes, [2]any{string(kv.Key), jsAttribute(kv.Value)})
	}
	return out
}

// jsLogScope is a logger's instrumentation scope: its version is left
// out when it has none, as 0.61's getLogger(SERVICE_NAME) has none.
type jsLogScope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type jsSpanContext struct {
	TraceID    string `json:"traceId"`
	SpanID     string `json:"spanId"`
	TraceFlags int    `json:"traceFlags"`
}

type jsLogLimits struct {
	AttributeCountLimit       int  `json:"attributeCountLimit"`
	AttributeValueLengthLimit *int `json:"attributeValueLengthLimit"`
}

// jsLogRecord is the SDK's LogRecordImpl as JSON.stringify writes it.
type jsLogRecord struct {
	HRTime                 [2]int64       `json:"hrTime"`
	HRTimeObserved         [2]int64       `json:"hrTimeObserved"`
	SpanContext            *jsSpanContext `json:"spanContext,omitempty"`
	Resource               jsResource     `json:"resource"`
	InstrumentationScope   jsLogScope     `json:"instrumentationScope"`
	Attributes             *object        `json:"attributes"`
	Body                   any            `json:"_body,omitempty"`
	AttributesCount        int            `json:"_attributesCount"`
	DroppedAttributesCount int            `json:"_droppedAttributesCount"`
	IsReadonly             bool           `json:"_isReadonly"`
	LogRecordLimits        jsLogLimits    `json:"_logRecordLimits"`
}

func newJSLogRecord(r *sdklog.Record) jsLogRecord {
	attrs := newObject(r.AttributesLen())
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		attrs.set(string(kv.Key), jsAttribute(kv.Value))
		return true
	})
	scope := r.InstrumentationScope()
	out := jsLogRecord{
		HRTime:                 hrTime(r.Timestamp()),
		HRTimeObserved:         hrTime(r.ObservedTimestamp()),
		Resource:               newJSResource(r.Resource()),
		InstrumentationScope:   jsLogScope{Name: scope.Name, Version: scope.Version},
		Attributes:             attrs,
		Body:                   jsAttribute(r.Body()),
		AttributesCount:        len(attrs.keys),
		DroppedAttributesCount: r.DroppedAttributes(),
		IsReadonly:             true,
		LogRecordLimits:        jsLogLimits{AttributeCountLimit: jsAttributeCountLimit},
	}
	if tid, sid := r.TraceID(), r.SpanID(); tid.IsValid() && sid.IsValid() {
		out.SpanContext = &jsSpanContext{TraceID: tid.String(), SpanID: sid.String(), TraceFlags: int(r.TraceFlags())}
	}
	return out
}

// jsLogExporter writes log records to w as 0.61's FileLogExporter.
type jsLogExporter struct{ w io.Writer }

func (e jsLogExporter) Export(_ context.Context, records []sdklog.Record) error {
	var buf bytes.Buffer
	for i := range records {
		if err := writeJS(&buf, newJSLogRecord(&records[i])); err != nil {
			return fmt.Errorf("writing a log record to the telemetry outfile: %w", err)
		}
	}
	if _, err := e.w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing log records to the telemetry outfile: %w", err)
	}
	return nil
}

func (jsLogExporter) Shutdown(context.Context) error   { return nil }
func (jsLogExporter) ForceFlush(context.Context) error { return nil }

// jsMetricExporter writes each collection of metrics to w as 0.61's
// FileMetricExporter: cumulative, as it asks.
type jsMetricExporter struct{ w io.Writer }

func (jsMetricExporter) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}

func (jsMetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e jsMetricExporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	var buf bytes.Buffer
	if err := writeJS(&buf, newJSResourceMetrics(rm)); err != nil {
		return fmt.Errorf("writing metrics to the telemetry outfile: %w", err)
	}
	if _, err := e.w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing metrics to the telemetry outfile: %w", err)
	}
	return nil
}

func (jsMetricExporter) Shutdown(context.Context) error   { return nil }
func (jsMetricExporter) ForceFlush(context.Context) error { return nil }
