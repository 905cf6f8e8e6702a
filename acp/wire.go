package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"go.uber.org/zap"
)

// maxMessage bounds one line the client sends. The SDK's connection reads
// lines of up to 10 MiB (its newline included) and closes the connection
// on a longer one; wire answers such a line with an error instead.
const maxMessage = 10<<20 - 1<<10

// lockedWriter serialises whole messages: the SDK's connection writes one
// message per Write, and wire's error answers go through the same lock.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
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

// filterLines copies the client's messages from in to sdk, one per line,
// and answers each line that is not a JSON-RPC message on out: invalid
// JSON with a parse error, anything else with an invalid request, with the
// message's id when it has a usable one. It returns when in ends, closing
// sdk so the connection ends too.
func filterLines(in io.Reader, sdk *io.PipeWriter, out io.Writer, log *zap.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	var err error
	for err == nil {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(r, maxMessage)
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			continue
		}
		var code int
		var id json.RawMessage
		var why string
		if tooLong {
			code, id, why = codeInvalidRequest, idOf(line), fmt.Sprintf("message is longer than %d bytes", maxMessage)
		} else {
			code, id, why = check(line)
		}
		if code != 0 {
			log.Warn("answered a malformed message", zap.Int("code", code), zap.String("why", why))
			if werr := writeError(out, code, id, why); werr != nil {
				err = werr
			}
			continue
		}
		if _, werr := sdk.Write(append(line, '\n')); werr != nil {
			err = werr
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	_ = sdk.CloseWithError(err)
}

// readLine reads one line without its newline, keeping at most limit
// bytes of it: a longer line is read to its end and reported tooLong,
// with its first limit bytes. err is io.EOF at the end of input (with the
// last line, if it had no newline).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			tooLong = true
			if room := limit - len(line); room > 0 {
				line = append(line, chunk[:room]...)
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

// message is what check reads of a line.
type message struct {
	JSONRPC *string          `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  *json.RawMessage `json:"method"`
	Params  *json.RawMessage `json:"params"`
	Result  *json.RawMessage `json:"result"`
	Error   *json.RawMessage `json:"error"`
}

// check says what is wrong with line as a JSON-RPC 2.0 message, as an
// error code (0 when nothing is), the id to answer with, and why.
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
	if err := json.Unmarshal(line, &m); err != nil {
		return codeInvalidRequest, nil, "jsonrpc must be the string \"2.0\""
	}
	if m.ID != nil {
		switch b := bytes.TrimSpace(*m.ID); b[0] {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = b
		default:
			return codeInvalidRequest, nil, "id must be a string, a number or null"
		}
	}
	switch {
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return codeInvalidRequest, id, "jsonrpc must be \"2.0\""
	case m.Method != nil:
		var name string
		if json.Unmarshal(*m.Method, &name) != nil || name == "" {
			return codeInvalidRequest, id, "method must be a non-empty string"
		}
		if m.Params != nil {
			if p := bytes.TrimSpace(*m.Params); p[0] != '{' && p[0] != '[' && string(p) != "null" {
				return codeInvalidRequest, id, "params must be an object or an array"
			}
		}
	case m.ID == nil:
		return codeInvalidRequest, nil, "a message needs a method or an id"
	case m.Result == nil && m.Error == nil:
		return codeInvalidRequest, id, "a response needs a result or an error"
	}
	return 0, nil, ""
}

// idOf finds the top-level id in the start of a message too long to
// parse, so its sender can match the error to its request; nil when
// there is none before the cut.
func idOf(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			if b := bytes.TrimSpace(v); len(b) > 0 && (b[0] == '"' || b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
				return b
			}
			return nil
		}
	}
	return nil
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
