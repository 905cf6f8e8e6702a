package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The line layer. wire reads the client's lines: its requests and
// notifications go to the SDK's connection, which serves them; its
// answers to gemini-ls's own requests (permission, files, terminals) are
// wire's, which sent those requests (call) and matches the answers to
// them, so that every answer, a malformed one too, ends the wait. A line
// that is not a JSON-RPC message is answered with the error JSON-RPC asks
// for, unless it is an answer: answers are never answered.

const (
	// maxMessage bounds a request or notification the client sends. The
	// SDK's connection reads lines of up to 10 MiB (its newline included)
	// and closes the connection on a longer one; wire answers such a line
	// with an error instead.
	maxMessage = 10<<20 - 1<<10
	// maxReadAnswer bounds the client's answer to fs/read_text_file: the
	// text of a file read whole (workspace.MaxFileSize bytes at most, the
	// limit of read_file and of every read through the editor) as a JSON
	// string, where a byte takes up to six (\u0001), and the envelope.
	// Lines this long are read only while a read waits for its answer; a
	// longer answer fails the read.
	maxReadAnswer = 6*workspace.MaxFileSize + 64<<10
)

// lockedWriter serialises whole messages: the SDK's connection writes one
// message per Write, and so does wire. It closes failed at the first write
// that fails: the client closed its end (EPIPE), and with its input still
// open nothing else would say that nobody reads any more.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error         // the first failure
	failed chan struct{} // closed with err set
}

func newLockedWriter(w io.Writer) *lockedWriter {
	return &lockedWriter{w: w, failed: make(chan struct{})}
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(b)
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("writing to the client: %w", err)
		close(l.failed)
	}
	return n, err
}

// failure is the first write's failure, nil if none failed.
func (l *lockedWriter) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// wire is one connection's line layer.
type wire struct {
	out io.Writer // a lockedWriter shared with the SDK's connection
	log *zap.Logger
	// readLimit is the longest answer to fs/read_text_file read whole.
	readLimit int

	mu      sync.Mutex
	lastID  int64
	pending map[int64]*pendingCall
	// ended is why calls fail at once: the client's input ended.
	ended error

	// own are the requests wire answers itself (wire_own.go); nil, all
	// go to the SDK's connection.
	own *ownMethods
}

func newWire(out io.Writer, log *zap.Logger) *wire {
	return &wire{out: out, log: log, readLimit: maxReadAnswer, pending: make(map[int64]*pendingCall)}
}

// pendingCall is a request of gemini-ls's waiting for the client's answer.
type pendingCall struct {
	method string
	answer chan callAnswer // takes one
}

type callAnswer struct {
	result json.RawMessage
	err    error
}

// call sends the client method with params and waits for its answer: the
// result (JSON null included), or an error for an error answer (an
// *sdk.RequestError), a malformed answer, or an input that ended. When
// ctx ends first, call returns ctx's error, and the client is told with
// $/cancel_request.
func (w *wire) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	id, pc, err := w.register(method)
	if err != nil {
		return nil, err
	}
	err = w.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int64           `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{"2.0", id, method, p})
	if err != nil {
		w.forget(id)
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case a := <-pc.answer:
		return a.result, a.err
	case <-ctx.Done():
		if w.forget(id) {
			w.cancelRequest(id)
		}
		return nil, ctx.Err()
	}
}

// register makes the next request id pending for method.
func (w *wire) register(method string) (int64, *pendingCall, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != nil {
		return 0, nil, fmt.Errorf("sending %s: %w", method, w.ended)
	}
	w.lastID++
	pc := &pendingCall{method: method, answer: make(chan callAnswer, 1)}
	w.pending[w.lastID] = pc
	return w.lastID, pc, nil
}

// forget drops request id, reporting whether it was still pending.
func (w *wire) forget(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.pending[id]
	delete(w.pending, id)
	return ok
}

// take removes and returns pending request id.
func (w *wire) take(id int64) (*pendingCall, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pc, ok := w.pending[id]
	delete(w.pending, id)
	return pc, ok
}

// end fails every pending request, and every later one, with why.
func (w *wire) end(why error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = why
	for id, pc := range w.pending {
		pc.answer <- callAnswer{err: why}
		delete(w.pending, id)
	}
}

// lineLimit is the longest line read whole now: an answer to a pending
// fs/read_text_file may carry a whole file; anything else is bounded by
// what the SDK's connection reads.
func (w *wire) lineLimit() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pc := range w.pending {
		if pc.method == sdk.ClientMethodFsReadTextFile {
			return max(w.readLimit, maxMessage)
		}
	}
	return maxMessage
}

// cancelRequest tells the client that gemini-ls no longer waits for
// request id (ACP's $/cancel_request), as the SDK would.
func (w *wire) cancelRequest(id int64) {
	err := w.send(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", "$/cancel_request", map[string]int64{"requestId": id}})
	if err != nil {
		w.log.Debug("sending $/cancel_request", zap.Error(err))
	}
}

func (w *wire) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = w.out.Write(append(b, '\n'))
	return err
}

// serve copies the client's requests and notifications from in to sdk,
// one per line, takes its answers to gemini-ls's requests, and answers
// each other line that is not a JSON-RPC message on out: invalid JSON
// with a parse error, anything else with an invalid request, with the
// message's id when it has a usable one. It returns when in ends,
// failing the pending requests and closing sdk so the connection ends
// too.
func (w *wire) serve(in io.Reader, toSDK *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	var err error
	for err == nil {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(r, w.lineLimit)
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			continue
		}
		if w.takeAnswer(line, tooLong) || w.serveOwn(line, tooLong) {
			continue
		}
		if werr := w.pass(line, tooLong, toSDK); werr != nil {
			err = werr
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	why := errors.New("the client closed the connection before answering")
	if err != nil {
		why = fmt.Errorf("the connection to the client failed before it answered: %w", err)
	}
	w.end(why)
	_ = toSDK.CloseWithError(err)
}

// pass hands a request or notification to the SDK's connection, or
// answers it with an error when it is not a JSON-RPC message the
// connection can read.
func (w *wire) pass(line []byte, tooLong bool, toSDK io.Writer) error {
	var code int
	var id json.RawMessage
	var why string
	if tooLong || len(line) > maxMessage {
		code, id, why = codeInvalidRequest, idOf(line), fmt.Sprintf("message is longer than %d bytes", maxMessage)
	} else {
		code, id, why = check(line)
	}
	if code != 0 {
		w.log.Warn("answered a malformed message", zap.Int("code", code), zap.String("why", why))
		return writeError(w.out, code, id, why)
	}
	_, err := toSDK.Write(append(line, '\n'))
	return err
}

// takeAnswer takes line when it is an answer: a whole object with no
// method and an id, a result or an error, or a line too long or not JSON
// whose start shows a result or an error before any method. An answer to
// a pending request ends its wait, with its result or an error saying
// what is wrong with it; any other answer is logged and dropped. Answers
// are never answered: their ids are gemini-ls's, not the client's.
func (w *wire) takeAnswer(line []byte, tooLong bool) bool {
	limit := w.lineLimit() // before the answer's request is taken
	whole := !tooLong && json.Valid(line)
	var env envelope
	if whole {
		env = envelopeOf(line)
	} else {
		env = headOf(line)
	}
	if env.has("method") {
		return false
	}
	if !env.has("result") && !env.has("error") && !(whole && env.has("id")) {
		return false
	}
	id, ok := requestID(env.id)
	var pc *pendingCall
	if ok {
		pc, ok = w.take(id)
	}
	if !ok {
		w.log.Warn("dropped an answer to no pending request", zap.ByteString("id", env.id), zap.Int("bytes", len(line)))
		return true
	}
	var a callAnswer
	switch {
	case tooLong:
		a.err = &malformedAnswerError{fmt.Sprintf("it is longer than %d bytes", limit)}
	case !whole:
		a.err = &malformedAnswerError{"it is not valid JSON"}
	default:
		a = answerOf(env)
	}
	if _, ok := errors.AsType[*malformedAnswerError](a.err); ok {
		w.log.Warn("a malformed answer", zap.String("method", pc.method), zap.Int64("id", id), zap.Error(a.err))
	}
	pc.answer <- a
	return true
}

// malformedAnswerError is an answer that is not a JSON-RPC response: what
// the client did is unknown.
type malformedAnswerError struct{ why string }

func (e *malformedAnswerError) Error() string { return "the editor's answer is malformed: " + e.why }

// answerOf is the outcome a whole answer reports.
func answerOf(env envelope) callAnswer {
	var version string
	if json.Unmarshal(env.members["jsonrpc"], &version) != nil || version != "2.0" {
		return callAnswer{err: &malformedAnswerError{`jsonrpc must be "2.0"`}}
	}
	result, hasResult := env.members["result"]
	raw, hasError := env.members["error"]
	switch {
	case hasResult && hasError:
		return callAnswer{err: &malformedAnswerError{"it has both a result and an error"}}
	case hasResult:
		return callAnswer{result: result}
	case !hasError:
		return callAnswer{err: &malformedAnswerError{"it has neither a result nor an error"}}
	}
	var e struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
		Data    any     `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Code == nil || e.Message == nil {
		return callAnswer{err: &malformedAnswerError{fmt.Sprintf("its error is not a JSON-RPC error: %.200s", raw)}}
	}
	return callAnswer{err: &sdk.RequestError{Code: *e.Code, Message: *e.Message, Data: e.Data}}
}

// requestID is the request id an answer names, when it is one gemini-ls
// could have sent (an integer).
func requestID(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

// envelope is what wire reads of a line: the top-level members it has,
// the values of those an answer is made of (only of a whole line: a
// request's params are not copied), and its id, if usable.
type envelope struct {
	keys    map[string]bool
	members map[string]json.RawMessage
	id      json.RawMessage
}

func (e envelope) has(key string) bool { return e.keys[key] }

// envelopeOf reads a whole line; a line that is not an object has no
// members.
func envelopeOf(line []byte) envelope {
	var m struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	env := envelope{keys: map[string]bool{}, members: map[string]json.RawMessage{}}
	if json.Unmarshal(line, &m) != nil {
		return env
	}
	// A member given as null is there: json.RawMessage keeps "null".
	for key, v := range map[string]json.RawMessage{"jsonrpc": m.JSONRPC, "id": m.ID, "method": m.Method, "result": m.Result, "error": m.Error} {
		if v != nil {
			env.keys[key], env.members[key] = true, v
		}
	}
	env.id = usableID(m.ID)
	return env
}

// headOf reads the start of a line too long or not JSON: the top-level
// members before the first that cannot be read.
func headOf(prefix []byte) envelope {
	env := envelope{keys: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return env
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return env
		}
		env.keys[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return env
		}
		if key == "id" {
			env.id = usableID(v)
		}
	}
	return env
}

// usableID is raw when it is an id an answer can carry: a string or a
// number.
func usableID(raw json.RawMessage) json.RawMessage {
	b := bytes.TrimSpace(raw)
	if len(b) > 0 && (b[0] == '"' || b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		return b
	}
	return nil
}

// idOf finds the top-level id in the start of a message too long to
// parse, so its sender can match the error to its request; nil when
// there is none before the cut.
func idOf(prefix []byte) json.RawMessage { return headOf(prefix).id }

// readLine reads one line without its newline, keeping at most limit()
// bytes of it: a longer line is read to its end and reported tooLong,
// with its first bytes. err is io.EOF at the end of input (with the last
// line, if it had no newline). limit is asked as the line arrives, so a
// request sent while wire waits for the next line is seen.
func readLine(r *bufio.Reader, limit func() int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if max := limit(); len(line)+len(chunk) > max+1 {
			tooLong = true
			if room := max - len(line); room > 0 {
				line = append(line, chunk[:min(room, len(chunk))]...)
			}
		} else {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if err != nil && !errors.Is(err, io.EOF) {
			return line, tooLong, fmt.Errorf("reading the client's messages: %w", err)
		}
		return line, tooLong, err
	}
}

// wireError is a JSON-RPC error answer wire writes itself.
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	} `json:"error"`
}

// JSON-RPC's error codes for messages that never reach a method.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// message is what check reads of a request or notification.
type message struct {
	JSONRPC *string          `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  *json.RawMessage `json:"method"`
	Params  *json.RawMessage `json:"params"`
}

// check says what is wrong with line as a JSON-RPC 2.0 request or
// notification (answers are takeAnswer's), as an error code (0 when
// nothing is), the id to answer with, and why.
func check(line []byte) (code int, id json.RawMessage, why string) {
	if !json.Valid(line) {
		return codeParseError, nil, "not valid JSON"
	}
	var m message
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		if trimmed[0] == '[' {
			return codeInvalidRequest, nil, "batches are not supported"
		}
		return codeInvalidRequest, nil, "a message must be a JSON object"
	}
	// Only jsonrpc can fail to decode, and the others are decoded still.
	err := json.Unmarshal(line, &m)
	if m.ID != nil {
		if id = usableID(*m.ID); id == nil {
			return codeInvalidRequest, nil, "id must be a string, a number or null"
		}
	}
	switch {
	case err != nil || m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return codeInvalidRequest, id, "jsonrpc must be \"2.0\""
	case m.Method == nil && id == nil:
		return codeInvalidRequest, nil, "a message needs a method or an id"
	case m.Method == nil: // null: an answer would have no method
		return codeInvalidRequest, id, "method must be a non-empty string"
	}
	var name string
	if json.Unmarshal(*m.Method, &name) != nil || name == "" {
		return codeInvalidRequest, id, "method must be a non-empty string"
	}
	if m.Params != nil {
		if p := bytes.TrimSpace(*m.Params); p[0] != '{' && p[0] != '[' && string(p) != "null" {
			return codeInvalidRequest, id, "params must be an object or an array"
		}
	}
	if err := json.Unmarshal(line, new(sdkMessage)); err != nil {
		return codeInvalidRequest, id, unreadableWhy(err)
	}
	return 0, nil, ""
}

// sdkMessage is how the SDK's connection reads every line (its
// anyMessage): one it cannot read so is dropped unanswered, and the
// request's sender waits forever. A request whose error member is not
// a JSON-RPC error is one, and so is any member given twice with a value
// of the wrong type first. Params and result it keeps whatever they are.
type sdkMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      anyValue          `json:"id"`
	Method  string            `json:"method"`
	Params  anyValue          `json:"params"`
	Result  anyValue          `json:"result"`
	Error   *sdk.RequestError `json:"error"`
}

// anyValue takes any JSON value and keeps nothing of it.
type anyValue struct{}

func (*anyValue) UnmarshalJSON([]byte) error { return nil }

// unreadableWhy says which member of a message the SDK cannot read.
func unreadableWhy(err error) string {
	typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err)
	switch {
	case !ok || typeErr.Field == "":
		return "the message cannot be read: " + err.Error()
	case typeErr.Field == "error" || strings.HasPrefix(typeErr.Field, "error."):
		return "error must be a JSON-RPC error object, with an integer code and a string message"
	}
	return fmt.Sprintf("%s cannot be a JSON %s", typeErr.Field, typeErr.Value)
}

func writeError(out io.Writer, code int, id json.RawMessage, why string) error {
	e := wireError{JSONRPC: "2.0", ID: id}
	if e.ID == nil {
		e.ID = json.RawMessage("null")
	}
	e.Error.Code = code
	e.Error.Message = map[int]string{codeParseError: "Parse error", codeInvalidRequest: "Invalid request"}[code]
	e.Error.Data = map[string]string{"error": why}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding an error answer: %w", err)
	}
	if _, err := out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("answering a malformed message: %w", err)
	}
	return nil
}
