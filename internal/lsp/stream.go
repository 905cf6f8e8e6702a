package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds one message; a larger Content-Length is a protocol error.
const maxFrame = 256 << 20

// stream is LSP Content-Length framing that answers a body that is not
// JSON-RPC with a parse error (id null) and keeps reading, where
// jsonrpc2's own framer would end the connection. It is the first to know
// that the client went away, by either end: the input ended, or a write
// failed, the client no longer reading (the one place every outgoing byte
// passes).
type stream struct {
	rwc     io.ReadWriteCloser
	in      *bufio.Reader
	writeMu sync.Mutex
	onBad   func(error) // told about each dropped frame, for the log

	// ended is closed when the connection is over for good: reading
	// stopped (end of input, or a stream that cannot be framed any more)
	// or a write failed; endErr says why.
	ended   chan struct{}
	endOnce sync.Once
	endErr  error
}

func newStream(rwc io.ReadWriteCloser, onBad func(error)) *stream {
	return &stream{rwc: rwc, in: bufio.NewReaderSize(rwc, 64<<10), onBad: onBad, ended: make(chan struct{})}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	msg, n, err := s.read(ctx)
	if err != nil {
		// jsonrpc2 stops reading at the first error: no more input.
		s.end(err)
	}
	return msg, n, err
}

// end marks the connection over, for the first reason given.
func (s *stream) end(why error) {
	s.endOnce.Do(func() {
		s.endErr = why
		close(s.ended)
	})
}

func (s *stream) read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		if s.onBad != nil {
			s.onBad(fmt.Errorf("dropping malformed message: %w", err))
		}
		code, text := jsonrpc2.ParseError, "Parse error: the message body is not valid JSON"
		if isJSON(body) {
			code, text = jsonrpc2.InvalidRequest, "Invalid request: the message is not a JSON-RPC 2.0 request, notification or response"
		}
		if werr := s.writeRaw(errorResponse(code, text)); werr != nil {
			return nil, 0, werr
		}
	}
}

func (s *stream) readFrame() ([]byte, int64, error) {
	length := -1
	var headerLen int64
	for {
		// A header line fits the reader's buffer, or the stream is not
		// LSP: a line without end must not grow without bound.
		raw, err := s.in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, 0, fmt.Errorf("message header line longer than %d KiB: %w", s.in.Size()>>10, jsonrpc2.ErrInvalidHeader)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && headerLen == 0 && len(raw) == 0 {
				return nil, 0, io.EOF
			}
			return nil, 0, fmt.Errorf("reading message header: %w", err)
		}
		headerLen += int64(len(raw))
		line := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
		if line == "" {
			if length < 0 {
				// A header block without a length cannot be skipped
				// safely; nothing after it can be framed.
				return nil, 0, fmt.Errorf("message header has no Content-Length: %w", jsonrpc2.ErrInvalidHeader)
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, 0, fmt.Errorf("malformed header line %q: %w", line, jsonrpc2.ErrInvalidHeader)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || n > maxFrame {
				return nil, 0, fmt.Errorf("bad Content-Length %q: %w", value, jsonrpc2.ErrInvalidHeader)
			}
			length = n
		}
	}
	body, err := readBody(s.in, length)
	if err != nil {
		return nil, 0, fmt.Errorf("reading message body: %w", err)
	}
	return body, headerLen + int64(length), nil
}

// firstBodyChunk is how much of a body is allocated before any of it has
// arrived.
const firstBodyChunk = 64 << 10

// readBody reads a body of length bytes, grown as it arrives: a
// Content-Length alone, without the bytes, must not make the server
// allocate up to maxFrame. It doubles up to length and no further, so a
// large body (a prompt of tens of MiB) ends in a buffer of its size, not
// in one up to twice as large, and costs about twice its size in
// allocations.
func readBody(r io.Reader, length int) ([]byte, error) {
	body := make([]byte, 0, min(length, firstBodyChunk))
	for len(body) < length {
		if len(body) == cap(body) {
			body = append(make([]byte, 0, min(2*cap(body), length)), body...)
		}
		n, err := r.Read(body[len(body):min(cap(body), length)])
		body = body[:len(body)+n]
		if err != nil && len(body) < length {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return body, nil
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, fmt.Errorf("encoding message: %w", err)
	}
	return int64(len(body)), s.writeRaw(body)
}

// writeRaw frames body. Every string that goes out is valid UTF-8:
// jsonrpc2 copies a method name, an error message or a string id into the
// frame byte for byte, so one the client sent with invalid UTF-8 (echoed
// in MethodNotFound, or as the id of the response) would make the frame
// invalid JSON. Invalid bytes are never JSON syntax, only string content,
// so replacing them with U+FFFD keeps the JSON intact.
//
// A failed write ends the connection: the client closed its end (EPIPE)
// or cannot be written to any more, and with stdin still open nothing
// else would tell the server that nobody reads its answers.
func (s *stream) writeRaw(body []byte) error {
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.rwc.Write(frame); err != nil {
		err = fmt.Errorf("writing to the client: %w", err)
		s.end(err)
		return err
	}
	return nil
}

func (s *stream) Close() error { return s.rwc.Close() }

func errorResponse(code jsonrpc2.Code, message string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%s}}`, code, strconv.Quote(message))
}
