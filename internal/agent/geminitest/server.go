package geminitest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"
)

// Request is one request the server received.
type Request struct {
	// Method is the RPC: "streamGenerateContent", "generateContent" or
	// "countTokens".
	Method string
	Model  string
	// APIKey is the x-goog-api-key header.
	APIKey string
	Header http.Header
	Body   []byte

	Contents          []*genai.Content
	SystemInstruction *genai.Content
	Tools             []*genai.Tool
	GenerationConfig  *genai.GenerationConfig

	// Problem is set when the server could not answer this request as
	// scripted (no turn left, malformed body, unknown path); it answered 500.
	Problem string
	// Seq numbers the requests from 1, in arrival order.
	Seq int
	// Rule is the rule that answered, nil for a scripted turn.
	Rule *Rule
}

// Abort is a request whose client went away before its answer ended.
type Abort struct {
	Seq int       // the request's
	At  time.Time // when the server saw the connection go
}

// Options configure Start.
type Options struct {
	// Addr to listen on; 127.0.0.1:0 when empty.
	Addr string
	// Logf, when set, receives one line per request and every problem.
	Logf func(format string, args ...any)
	// OnRequest, when set, sees every request as it is recorded, before
	// it is answered.
	OnRequest func(Request)
	// Rules answer the requests they match instead of the script.
	Rules []Rule
}

// Server is a fake Gemini REST API on a loopback port.
type Server struct {
	// URL is the base URL to give the client (HTTPOptions.BaseURL or
	// GOOGLE_GEMINI_BASE_URL), without a trailing slash.
	URL string

	logf      func(format string, args ...any)
	onRequest func(Request)
	http      *http.Server
	done      chan struct{} // closed by Close
	handlers  sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	turns    []Turn
	rules    []Rule
	requests []Request
	aborts   []Abort
	arrived  chan struct{} // closed and replaced whenever a request is recorded or aborted, or a connection opened or closed
	// conns counts the client's connections: opened, and closed since.
	conns Connections
}

// Connections counts the connections clients opened to the server, and
// those closed since (by either side).
type Connections struct{ Opened, Closed int }

// NewServer starts a server on 127.0.0.1:0 answering with turns, in order.
// It panics if it cannot listen, like httptest.NewServer.
func NewServer(turns ...Turn) *Server {
	s, err := Start(Options{}, turns...)
	if err != nil {
		panic(err)
	}
	return s
}

// NewTestServer starts a server that is closed when t ends; the test fails
// if any request could not be answered as scripted.
func NewTestServer(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s, err := Start(Options{}, turns...)
	if err != nil {
		t.Fatalf("starting fake Gemini server: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		if err := s.Err(); err != nil {
			t.Errorf("fake Gemini server: %v", err)
		}
	})
	return s
}

// RefusingURL is the URL of a model endpoint that refuses connections: a
// port on 127.0.0.1 that was listened on and let go of.
func RefusingURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	url := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("freeing a port: %v", err)
	}
	return url
}

// Start starts a server with opts answering with turns, in order.
func Start(opts Options, turns ...Turn) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	s := &Server{
		URL:       "http://" + ln.Addr().String(),
		logf:      opts.Logf,
		onRequest: opts.OnRequest,
		done:      make(chan struct{}),
		turns:     append([]Turn(nil), turns...),
		rules:     append([]Rule(nil), opts.Rules...),
		arrived:   make(chan struct{}),
	}
	s.http = &http.Server{Handler: s, ConnState: s.countConn}
	go s.http.Serve(ln)
	return s, nil
}

// Close stops the server, ends hanging streams and waits for every handler.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	s.http.Close()
	s.handlers.Wait()
}

// Push appends turns to the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Remaining is the number of scripted turns not yet used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// AddRule adds a rule after those already there.
func (s *Server) AddRule(r Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, r)
}

// Aborts returns the requests whose client went away before their answer
// ended, in the order the server saw it.
func (s *Server) Aborts() []Abort {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Abort(nil), s.aborts...)
}

// WaitAborts blocks until at least n requests were aborted, and returns
// the aborts.
func (s *Server) WaitAborts(ctx context.Context, n int) ([]Abort, error) {
	if err := s.waitFor(ctx, func() int { return len(s.aborts) }, n, "aborted requests"); err != nil {
		return s.Aborts(), err
	}
	return s.Aborts(), nil
}

// waitFor blocks until count (read under s.mu) reaches n or ctx ends.
func (s *Server) waitFor(ctx context.Context, count func() int, n int, what string) error {
	for {
		s.mu.Lock()
		got, arrived := count(), s.arrived
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d %s, got %d: %w", n, what, got, ctx.Err())
		}
	}
}

// aborted records that req's client went away before its answer ended.
func (s *Server) aborted(req Request) {
	at := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborts = append(s.aborts, Abort{Seq: req.Seq, At: at})
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// countConn counts a connection opened or closed.
func (s *Server) countConn(_ net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch state {
	case http.StateNew:
		s.conns.Opened++
	case http.StateClosed, http.StateHijacked:
		s.conns.Closed++
	default:
		return
	}
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// Connections are the connections opened so far, and those closed.
func (s *Server) Connections() Connections {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// WaitConnectionsClosed blocks until at least n connections have closed,
// and returns the count.
func (s *Server) WaitConnectionsClosed(ctx context.Context, n int) (Connections, error) {
	err := s.waitFor(ctx, func() int { return s.conns.Closed }, n, "closed connections")
	return s.Connections(), err
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests blocks until at least n requests arrived, and returns them.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	if err := s.waitFor(ctx, func() int { return len(s.requests) }, n, "requests"); err != nil {
		return s.Requests(), err
	}
	return s.Requests(), nil
}

// Err reports every request the server could not answer as scripted.
func (s *Server) Err() error {
	var errs []error
	for i, r := range s.Requests() {
		if r.Problem != "" {
			errs = append(errs, fmt.Errorf("request %d (%s): %s", i+1, r.Method, r.Problem))
		}
	}
	return errors.Join(errs...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "fake Gemini server is closed", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	req, turn, ok := s.record(r)
	if ok && turn.From != nil {
		turn = turn.From(req)
	}
	if s.onRequest != nil {
		s.onRequest(req)
	}
	if s.logf != nil {
		s.logf("%s %s", r.Method, r.URL.Path)
		if req.Problem != "" {
			s.logf("problem: %s", req.Problem)
		}
	}
	if req.Problem != "" {
		writeError(w, &APIError{Code: http.StatusInternalServerError, Message: "geminitest: " + req.Problem})
		return
	}
	switch req.Method {
	case "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": roughTokens(req.Contents...)})
		return
	}
	if !ok {
		return
	}
	if !s.wait(r.Context(), turn.Delay) {
		if r.Context().Err() != nil {
			s.aborted(req)
		}
		return
	}
	if turn.Err != nil && len(turn.Chunks) == 0 {
		writeError(w, turn.Err)
		return
	}
	if req.Method == "generateContent" {
		if turn.Err != nil {
			writeError(w, turn.Err)
			return
		}
		if turn.Cut {
			panic(http.ErrAbortHandler) // the connection drops before the answer
		}
		writeJSON(w, http.StatusOK, merged(turn, req))
		return
	}
	if !s.stream(w, r, turn, req) && r.Context().Err() != nil {
		s.aborted(req)
	}
}

// record parses and records r, and takes the turn that answers it.
func (s *Server) record(r *http.Request) (Request, Turn, bool) {
	req := Request{APIKey: r.Header.Get("x-goog-api-key"), Header: r.Header.Clone()}
	body, err := io.ReadAll(r.Body)
	req.Body = body
	if err != nil {
		req.Problem = fmt.Sprintf("reading request body: %v", err)
	}
	last := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	model, method, found := strings.Cut(last, ":")
	req.Model, req.Method = model, method
	switch {
	case req.Problem != "":
	case r.Method != http.MethodPost || !found || !strings.Contains(r.URL.Path, "/models/"):
		req.Problem = fmt.Sprintf("unexpected request %s %s: want POST .../models/{model}:{method}", r.Method, r.URL.Path)
	case method != "generateContent" && method != "streamGenerateContent" && method != "countTokens":
		req.Problem = fmt.Sprintf("unsupported method %q (serving generateContent, streamGenerateContent, countTokens)", method)
	case method == "streamGenerateContent" && r.URL.Query().Get("alt") != "sse":
		req.Problem = "streamGenerateContent without alt=sse"
	default:
		var parsed struct {
			Contents          []*genai.Content        `json:"contents"`
			SystemInstruction *genai.Content          `json:"systemInstruction"`
			Tools             []*genai.Tool           `json:"tools"`
			GenerationConfig  *genai.GenerationConfig `json:"generationConfig"`
		}
		if err := json.Unmarshal(stdBase64(body), &parsed); err != nil {
			req.Problem = fmt.Sprintf("decoding %s request body: %v", method, err)
			break
		}
		req.Contents, req.SystemInstruction = parsed.Contents, parsed.SystemInstruction
		req.Tools, req.GenerationConfig = parsed.Tools, parsed.GenerationConfig
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	var turn Turn
	ok := false
	req.Seq = len(s.requests) + 1
	if req.Problem == "" && method != "countTokens" {
		if rule := matchRule(s.rules, req); rule != nil {
			req.Rule, turn, ok = rule, rule.Turn, true
		} else if len(s.turns) == 0 {
			req.Problem = fmt.Sprintf("unscripted %s request: all %d scripted turns were used", method, s.used())
		} else {
			turn, s.turns, ok = s.turns[0], s.turns[1:], true
		}
	}
	s.requests = append(s.requests, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
	return req, turn, ok
}

// matchRule is the first rule req's text holds, nil when none.
func matchRule(rules []Rule, req Request) *Rule {
	if len(rules) == 0 {
		return nil
	}
	var text strings.Builder
	for _, c := range append([]*genai.Content{req.SystemInstruction}, req.Contents...) {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p != nil {
				text.WriteString(p.Text)
				text.WriteByte('\n')
			}
		}
	}
	for i := range rules {
		if strings.Contains(text.String(), rules[i].Contains) {
			return &rules[i]
		}
	}
	return nil
}

// stdBase64 rewrites the request's thoughtSignatures, which the API reads
// as proto3 JSON bytes (standard or URL-safe base64, padded or not), to the
// standard padded base64 encoding/json decodes. Gemini CLI 0.61 sends
// "skip_thought_signature_validator" for a call that came without a
// signature, which is URL-safe base64. A body this cannot read is left as
// it is, for the decoder to report.
func stdBase64(body []byte) []byte {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	changed := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "thoughtSignature" {
					if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(s), "=")); err == nil {
						if std := base64.StdEncoding.EncodeToString(b); std != s {
							v[k], changed = std, true
						}
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	if !changed {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// used counts the generate requests answered so far; s.mu is held.
func (s *Server) used() int {
	n := 0
	for _, r := range s.requests {
		if r.Problem == "" && r.Method != "countTokens" && r.Rule == nil {
			n++
		}
	}
	return n
}

// wait sleeps for d unless the client goes away or the server closes.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// stream answers turn as server-sent events; it reports whether the
// answer ended as scripted (false: the client or the server went away).
func (s *Server) stream(w http.ResponseWriter, r *http.Request, turn Turn, req Request) bool {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	send := func(v any) bool {
		data, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("geminitest: encoding a chunk: %v", err))
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}

	responses := chunkResponses(turn, req)
	for i, c := range turn.Chunks {
		if !s.wait(r.Context(), c.Delay) || !send(responses[i]) {
			return false
		}
	}
	if len(turn.Chunks) == 0 && !turn.Hang && !turn.Cut {
		// The client would reconnect on a stream with no chunk at all.
		send(responses[0])
	}
	switch {
	case turn.Cut:
		// net/http drops the connection without ending the chunked body.
		panic(http.ErrAbortHandler)
	case turn.Err != nil:
		send(errorBody(turn.Err))
	case turn.Hang:
		select {
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		}
	}
	return true
}

// chunkResponses builds one response per chunk (at least one); the last
// carries the finish reason and usage unless the turn hangs or fails.
func chunkResponses(turn Turn, req Request) []*genai.GenerateContentResponse {
	var out []*genai.GenerateContentResponse
	for _, c := range turn.Chunks {
		out = append(out, &genai.GenerateContentResponse{
			Candidates: []*genai.Candidate{{Content: genai.NewContentFromParts([]*genai.Part{c.part()}, genai.RoleModel)}},
		})
	}
	if len(out) == 0 {
		if turn.NoCandidates {
			return []*genai.GenerateContentResponse{{UsageMetadata: usage(turn, req)}}
		}
		out = append(out, &genai.GenerateContentResponse{
			Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel}}},
		})
	}
	if turn.Hang || turn.Err != nil || turn.Cut || turn.NoFinishReason {
		return out
	}
	last := out[len(out)-1]
	last.Candidates[0].GroundingMetadata = turn.Grounding
	last.Candidates[0].FinishReason = finishReason(turn)
	last.UsageMetadata = usage(turn, req)
	return out
}

// merged is the whole turn as one response, adjacent texts of the same kind
// joined as Gemini does for generateContent.
func merged(turn Turn, req Request) *genai.GenerateContentResponse {
	if turn.NoCandidates && len(turn.Chunks) == 0 {
		return &genai.GenerateContentResponse{UsageMetadata: usage(turn, req)}
	}
	content := &genai.Content{Role: genai.RoleModel}
	for _, c := range turn.Chunks {
		p := c.part()
		if n := len(content.Parts); n > 0 && p.Text != "" && p.FunctionCall == nil {
			prev := content.Parts[n-1]
			if prev.Text != "" && prev.FunctionCall == nil && prev.Thought == p.Thought && p.ThoughtSignature == nil {
				prev.Text += p.Text
				continue
			}
		}
		content.Parts = append(content.Parts, p)
	}
	return &genai.GenerateContentResponse{
		Candidates:    []*genai.Candidate{{Content: content, FinishReason: finishReason(turn), GroundingMetadata: turn.Grounding}},
		UsageMetadata: usage(turn, req),
	}
}

func (c Chunk) part() *genai.Part {
	return &genai.Part{Text: c.Text, Thought: c.Thought, ThoughtSignature: c.ThoughtSignature, FunctionCall: c.Call}
}

func finishReason(turn Turn) genai.FinishReason {
	if turn.NoFinishReason {
		return ""
	}
	if turn.FinishReason != "" {
		return turn.FinishReason
	}
	return genai.FinishReasonStop
}

func usage(turn Turn, req Request) *genai.GenerateContentResponseUsageMetadata {
	if turn.Usage != nil {
		return turn.Usage
	}
	u := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: roughTokens(req.Contents...)}
	for _, c := range turn.Chunks {
		n := roughTokens(&genai.Content{Parts: []*genai.Part{c.part()}})
		if c.Thought {
			u.ThoughtsTokenCount += n
		} else {
			u.CandidatesTokenCount += n
		}
	}
	u.TotalTokenCount = u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount
	return u
}

// roughTokens estimates tokens as a quarter of the characters, the usual
// rule of thumb for English and code.
func roughTokens(contents ...*genai.Content) int32 {
	chars := 0
	for _, c := range contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			chars += len(p.Text)
			if p.FunctionCall != nil {
				b, _ := json.Marshal(p.FunctionCall)
				chars += len(b)
			}
			if p.FunctionResponse != nil {
				b, _ := json.Marshal(p.FunctionResponse)
				chars += len(b)
			}
			if p.InlineData != nil {
				chars += len(p.InlineData.Data)
			}
		}
	}
	return int32((chars + 3) / 4)
}

func errorBody(e *APIError) map[string]any {
	status := e.Status
	if status == "" {
		status = statusFor(e.Code)
	}
	body := map[string]any{"code": e.Code, "message": e.Message, "status": status}
	var details []map[string]any
	if e.RetryDelay > 0 {
		details = append(details, map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(e.RetryDelay.Seconds(), 'f', -1, 64) + "s",
		})
	}
	details = append(details, e.Details...)
	if len(details) > 0 {
		body["details"] = details
	}
	return map[string]any{"error": body}
}

func writeError(w http.ResponseWriter, e *APIError) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	writeJSON(w, e.Code, errorBody(e))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("geminitest: encoding a response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	w.Write(data)
}
