package telemetry

import (
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The JavaScript SDK's ResourceMetrics as 0.61's FileMetricExporter
// writes it (jsfile.go).

type jsResourceMetrics struct {
	Resource     jsResource       `json:"resource"`
	ScopeMetrics []jsScopeMetrics `json:"scopeMetrics"`
}

// jsMeterScope is a meter's scope: the JavaScript SDK writes its version,
// "" when it has none.
type jsMeterScope struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsScopeMetrics struct {
	Scope   jsMeterScope `json:"scope"`
	Metrics []jsMetric   `json:"metrics"`
}

type jsDescriptor struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Unit        string   `json:"unit"`
	ValueType   int      `json:"valueType"`
	Advice      struct{} `json:"advice"`
}

// jsMetric is one instrument's data; IsMonotonic is a sum's only.
type jsMetric struct {
	Descriptor             jsDescriptor  `json:"descriptor"`
	AggregationTemporality int           `json:"aggregationTemporality"`
	DataPointType          int           `json:"dataPointType"`
	DataPoints             []jsDataPoint `json:"dataPoints"`
	IsMonotonic            *bool         `json:"isMonotonic,omitempty"`
}

type jsDataPoint struct {
	Attributes *object  `json:"attributes"`
	StartTime  [2]int64 `json:"startTime"`
	EndTime    [2]int64 `json:"endTime"`
	Value      any      `json:"value"`
}

type jsHistogramValue struct {
	Min     any       `json:"min,omitempty"`
	Max     any       `json:"max,omitempty"`
	Sum     any       `json:"sum"`
	Buckets jsBuckets `json:"buckets"`
	Count   uint64    `json:"count"`
}

type jsBuckets struct {
	Boundaries []float64 `json:"boundaries"`
	Counts     []uint64  `json:"counts"`
}

func newJSResourceMetrics(rm *metricdata.ResourceMetrics) jsResourceMetrics {
	out := jsResourceMetrics{Resource: newJSResource(rm.Resource), ScopeMetrics: []jsScopeMetrics{}}
	for _, sm := range rm.ScopeMetrics {
		s := jsScopeMetrics{Scope: jsMeterScope{Name: sm.Scope.Name, Version: sm.Scope.Version}, Metrics: []jsMetric{}}
		for _, m := range sm.Metrics {
			if jm, ok := newJSMetric(m); ok {
				s.Metrics = append(s.Metrics, jm)
			}
		}
		out.ScopeMetrics = append(out.ScopeMetrics, s)
	}
	return out
}

// newJSMetric is m as the JavaScript SDK's MetricData; ok false for an
// aggregation gemini-ls does not make (exponential histograms, summaries).
func newJSMetric(m metricdata.Metrics) (jsMetric, bool) {
	out := jsMetric{
		Descriptor:             jsDescriptor{Name: m.Name, Description: m.Description, Unit: m.Unit, ValueType: jsValueTypeInt},
		AggregationTemporality: jsCumulative,
	}
	switch data := m.Data.(type) {
	case metricdata.Sum[int64]:
		setSum(&out, data.IsMonotonic, data.DataPoints)
	case metricdata.Sum[float64]:
		out.Descriptor.ValueType = jsValueTypeDouble
		setSum(&out, data.IsMonotonic, data.DataPoints)
	case metricdata.Gauge[int64]:
		setGauge(&out, data.DataPoints)
	case metricdata.Gauge[float64]:
		out.Descriptor.ValueType = jsValueTypeDouble
		setGauge(&out, data.DataPoints)
	case metricdata.Histogram[int64]:
		setHistogram(&out, data.DataPoints)
	case metricdata.Histogram[float64]:
		out.Descriptor.ValueType = jsValueTypeDouble
		setHistogram(&out, data.DataPoints)
	default:
		return jsMetric{}, false
	}
	return out, true
}

// setSum makes m a counter's (monotonic) or an up-down counter's data.
func setSum[N int64 | float64](m *jsMetric, monotonic bool, points []metricdata.DataPoint[N]) {
	m.Descriptor.Type = jsInstrumentUpDown
	if monotonic {
		m.Descriptor.Type = jsInstrumentCounter
	}
	m.DataPointType = jsDataPointSum
	m.IsMonotonic = &monotonic
	m.DataPoints = valuePoints(points)
}

// setGauge makes m a gauge's data.
func setGauge[N int64 | float64](m *jsMetric, points []metricdata.DataPoint[N]) {
	m.Descriptor.Type, m.DataPointType = jsInstrumentGauge, jsDataPointGauge
	m.DataPoints = valuePoints(points)
}

func valuePoints[N int64 | float64](points []metricdata.DataPoint[N]) []jsDataPoint {
	out := make([]jsDataPoint, 0, len(points))
	for _, p := range points {
		out = append(out, jsDataPoint{
			Attributes: jsAttributes(p.Attributes),
			StartTime:  hrTime(p.StartTime),
			EndTime:    hrTime(p.Time),
			Value:      number(float64(p.Value)),
		})
	}
	return out
}

// setHistogram makes m a histogram's data: each point's value is its
// min, max, sum, buckets and count, as the JavaScript SDK's.
func setHistogram[N int64 | float64](m *jsMetric, points []metricdata.HistogramDataPoint[N]) {
	m.Descriptor.Type, m.DataPointType = jsInstrumentHistogram, jsDataPointHistogram
	m.DataPoints = make([]jsDataPoint, 0, len(points))
	for _, p := range points {
		v := jsHistogramValue{
			Sum:     number(float64(p.Sum)),
			Buckets: jsBuckets{Boundaries: p.Bounds, Counts: p.BucketCounts},
			Count:   p.Count,
		}
		if min, ok := p.Min.Value(); ok {
			v.Min = number(float64(min))
		}
		if max, ok := p.Max.Value(); ok {
			v.Max = number(float64(max))
		}
		m.DataPoints = append(m.DataPoints, jsDataPoint{
			Attributes: jsAttributes(p.Attributes),
			StartTime:  hrTime(p.StartTime),
			EndTime:    hrTime(p.Time),
			Value:      v,
		})
	}
}
