package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// direction is which way a frame went.
type direction int

const (
	fromServer direction = iota
	toServer
)

// frame is one LSP message seen on the wire and when: for a frame from the
// server, when its last byte was read; for one to the server, when the
// editor started writing it.
type frame struct {
	At   time.Time
	Dir  direction
	Kind frameKind
	// Method of a request or notification.
	Method string
	// UpdateKind is params.kind of a gemini/update ("toolCall", ...).
	UpdateKind string
}

type frameKind int

const (
	message  frameKind = iota // request or notification
	response                  // result or error
	unknown                   // not a JSON object
)

// wireLog timestamps every frame between the editor and the server, so
// intervals can be read as the editor sees them without waiting on
// goroutines that would add their own scheduling delay.
type wireLog struct {
	mu     sync.Mutex
	frames []frame
	err    error // the first framing error; parsing stops there
}

// tap returns rwc with every frame through it recorded in l.
func (l *wireLog) tap(rwc io.ReadWriteCloser) io.ReadWriteCloser {
	return &tapped{rwc: rwc, log: l}
}

// mark is the number of frames seen so far, for since.
func (l *wireLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.frames)
}

// since returns the frames recorded after mark, and the framing error if
// there was one.
func (l *wireLog) since(mark int) ([]frame, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.frames[mark:]), l.err
}

func (l *wireLog) add(f frame) {
	l.mu.Lock()
	l.frames = append(l.frames, f)
	l.mu.Unlock()
}

func (l *wireLog) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

// tapped is one connection being recorded. Read is called by one reader
// goroutine and Write under the client's write lock, so each splitter has
// a single user.
type tapped struct {
	rwc     io.ReadWriteCloser
	log     *wireLog
	in, out splitter
}

func (t *tapped) Read(p []byte) (int, error) {
	n, err := t.rwc.Read(p)
	if n > 0 {
		t.record(&t.in, p[:n], time.Now(), fromServer)
	}
	return n, err
}

func (t *tapped) Write(p []byte) (int, error) {
	t.record(&t.out, p, time.Now(), toServer)
	return t.rwc.Write(p)
}

func (t *tapped) Close() error { return t.rwc.Close() }

func (t *tapped) record(s *splitter, p []byte, at time.Time, dir direction) {
	err := s.feed(p, func(body []byte) {
		f := describe(body)
		f.At, f.Dir = at, dir
		t.log.add(f)
	})
	if err != nil {
		t.log.fail(err)
	}
}

// splitter cuts a byte stream into LSP frame bodies (Content-Length
// framing).
type splitter struct {
	buf    []byte
	inBody bool
	length int
	err    error
}

// feed adds p and calls emit with each body completed by it.
func (s *splitter) feed(p []byte, emit func(body []byte)) error {
	if s.err != nil {
		return s.err
	}
	s.buf = append(s.buf, p...)
	for {
		if !s.inBody {
			end := bytes.Index(s.buf, []byte("\r\n\r\n"))
			if end < 0 {
				return nil
			}
			n, err := contentLength(string(s.buf[:end]))
			if err != nil {
				s.err = err
				return err
			}
			s.buf, s.inBody, s.length = s.buf[end+4:], true, n
		}
		if len(s.buf) < s.length {
			return nil
		}
		emit(s.buf[:s.length])
		s.buf, s.inBody = s.buf[s.length:], false
	}
}

func contentLength(header string) (int, error) {
	for line := range strings.SplitSeq(header, "\r\n") {
		name, value, _ := strings.Cut(line, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("frame header %q has no Content-Length", header)
}

// describe reads what a frame is. It reads tokens only as far as it needs
// (method, and the kind of a gemini/update), so a megabyte of tool
// arguments later in the frame costs nothing on the read path being timed.
func describe(body []byte) frame {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return frame{Kind: unknown}
	}
	var f frame
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return frame{Kind: unknown}
		}
		key, _ := tok.(string)
		switch key {
		case "method":
			if err := dec.Decode(&f.Method); err != nil {
				return frame{Kind: unknown}
			}
			if f.Method != "gemini/update" || f.UpdateKind != "" {
				return f
			}
		case "result", "error":
			if f.Method == "" {
				f.Kind = response
				return f
			}
			if skip(dec) != nil {
				return frame{Kind: unknown}
			}
		case "params":
			// With the method still unknown, read params to its end to
			// go on with the members after it.
			kind, err := updateKind(dec, f.Method == "")
			if err != nil {
				return frame{Kind: unknown}
			}
			f.UpdateKind = kind
			if f.Method != "" {
				return f
			}
		default:
			if skip(dec) != nil {
				return frame{Kind: unknown}
			}
		}
	}
	return f
}

// updateKind reads params up to its "kind" member, or all of it when
// whole is set or it has no kind.
func updateKind(dec *json.Decoder, whole bool) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	if tok != json.Delim('{') {
		if d, ok := tok.(json.Delim); ok && d == '[' {
			return "", skipRest(dec)
		}
		return "", nil // a scalar: already read
	}
	var kind string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		if tok == "kind" && kind == "" {
			if err := dec.Decode(&kind); err != nil {
				return "", err
			}
			if !whole {
				return kind, nil
			}
			continue
		}
		if err := skip(dec); err != nil {
			return "", err
		}
	}
	_, err = dec.Token() // '}'
	return kind, err
}

func skip(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// skipRest consumes the rest of an array whose '[' was read.
func skipRest(dec *json.Decoder) error {
	for dec.More() {
		if err := skip(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// first returns the first frame after from that matches, and its index.
func first(frames []frame, from int, match func(frame) bool) (frame, int, bool) {
	for i := from; i < len(frames); i++ {
		if match(frames[i]) {
			return frames[i], i, true
		}
	}
	return frame{}, -1, false
}

func isUpdate(kind string) func(frame) bool {
	return func(f frame) bool {
		return f.Dir == fromServer && f.Method == "gemini/update" && f.UpdateKind == kind
	}
}

func isRequest(method string, dir direction) func(frame) bool {
	return func(f frame) bool { return f.Dir == dir && f.Kind == message && f.Method == method }
}

func isResponse(dir direction) func(frame) bool {
	return func(f frame) bool { return f.Dir == dir && f.Kind == response }
}

// distribution summarises per-iteration samples (durations, byte counts,
// or ratios).
type distribution[T ~int64 | ~float64] struct{ sorted []T }

func distributionOf[T ~int64 | ~float64](samples []T) distribution[T] {
	s := slices.Clone(samples)
	slices.Sort(s)
	return distribution[T]{s}
}

// median is the middle sample (the mean of the middle two for an even count).
func (d distribution[T]) median() T {
	n := len(d.sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return d.sorted[n/2]
	}
	return (d.sorted[n/2-1] + d.sorted[n/2]) / 2
}

// quantile is the nearest-rank q-quantile: the smallest sample with at
// least q of the samples at or below it.
func (d distribution[T]) quantile(q float64) T {
	n := len(d.sorted)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(n))) - 1
	return d.sorted[max(0, min(i, n-1))]
}

func (d distribution[T]) min() T { return d.quantile(0) }
func (d distribution[T]) max() T { return d.quantile(1) }

// reportMS adds the median, p90 and max of durations, in milliseconds, to
// the benchmark's output as name-median-ms and so on.
func reportMS(b *testing.B, name string, d distribution[time.Duration]) {
	b.ReportMetric(ms(d.median()), name+"-median-ms")
	b.ReportMetric(ms(d.quantile(0.9)), name+"-p90-ms")
	b.ReportMetric(ms(d.max()), name+"-max-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mb is bytes in MiB.
func mb(bytes int64) float64 { return float64(bytes) / (1 << 20) }

func TestSplitterCutsFramesAcrossReads(t *testing.T) {
	bodies := []string{`{"a":1}`, `{"jsonrpc":"2.0","method":"x","params":{"text":"ü\r\n\r\n"}}`, `{}`}
	var stream []byte
	for i, b := range bodies {
		header := fmt.Sprintf("Content-Length: %d\r\n\r\n", len(b))
		if i == 1 {
			header = fmt.Sprintf("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: %d\r\n\r\n", len(b))
		}
		stream = append(stream, header+b...)
	}
	for _, size := range []int{1, 3, 7, len(stream)} {
		var s splitter
		var got []string
		for chunk := range slices.Chunk(stream, size) {
			if err := s.feed(chunk, func(body []byte) { got = append(got, string(body)) }); err != nil {
				t.Fatalf("reads of %d bytes: %v", size, err)
			}
		}
		if !slices.Equal(got, bodies) {
			t.Errorf("reads of %d bytes: bodies %q, want %q", size, got, bodies)
		}
	}
}

func TestSplitterRefusesHeaderWithoutLength(t *testing.T) {
	var s splitter
	if err := s.feed([]byte("Content-Type: x\r\n\r\n{}"), func([]byte) { t.Error("emitted a body") }); err == nil {
		t.Fatal("no error for a header without Content-Length")
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		body string
		want frame
	}{
		{`{"jsonrpc":"2.0","method":"gemini/update","params":{"sessionId":"s","kind":"toolCall","args":{"content":"big"}}}`,
			frame{Method: "gemini/update", UpdateKind: "toolCall"}},
		// Members in another order than go.lsp.dev/jsonrpc2 writes them.
		{`{"params":{"args":[1,{"kind":"no"}],"kind":"toolResult"},"jsonrpc":"2.0","method":"gemini/update"}`,
			frame{Method: "gemini/update", UpdateKind: "toolResult"}},
		{`{"jsonrpc":"2.0","method":"workspace/applyEdit","params":{"edit":{}},"id":3}`,
			frame{Method: "workspace/applyEdit"}},
		{`{"jsonrpc":"2.0","id":3,"result":{"applied":true}}`, frame{Kind: response}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, frame{Kind: response}},
		{`{"jsonrpc":"2.0","method":"textDocument/didChange","params":[1,2]}`, frame{Method: "textDocument/didChange"}},
		{`[1]`, frame{Kind: unknown}},
		{`{"method":`, frame{Kind: unknown}},
	} {
		if got := describe([]byte(tc.body)); got != tc.want {
			t.Errorf("describe(%s) = %+v, want %+v", tc.body, got, tc.want)
		}
	}
}

func TestDistribution(t *testing.T) {
	var samples []time.Duration
	for _, v := range []int{9, 1, 5, 3, 7, 2, 8, 4, 6, 10} {
		samples = append(samples, time.Duration(v)*time.Millisecond)
	}
	d := distributionOf(samples)
	if got, want := d.median(), 5500*time.Microsecond; got != want {
		t.Errorf("median = %v, want %v", got, want)
	}
	if got, want := d.quantile(0.9), 9*time.Millisecond; got != want {
		t.Errorf("p90 = %v, want %v", got, want)
	}
	if d.min() != time.Millisecond || d.max() != 10*time.Millisecond {
		t.Errorf("min, max = %v, %v", d.min(), d.max())
	}
	if got := distributionOf(samples[:3]).median(); got != 5*time.Millisecond {
		t.Errorf("median of 9, 1, 5 = %v", got)
	}
	if samples[0] != 9*time.Millisecond {
		t.Error("distributionOf sorted the caller's samples")
	}
	// Ratios: the middle two are averaged, not truncated.
	if got := distributionOf([]float64{1.5, 3, 0.5, 1.25}).median(); got != 1.375 {
		t.Errorf("median of ratios 1.5, 3, 0.5, 1.25 = %v, want 1.375", got)
	}
}
