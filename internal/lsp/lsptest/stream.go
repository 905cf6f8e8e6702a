package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// stream is Content-Length framing that also lets a test write raw
// frames, and sets aside responses a jsonrpc2 conn cannot route: those
// with a null id (answers to frames the server could not parse) and those
// to requests the test wrote itself (ids "raw-...").
type stream struct {
	rwc     io.ReadWriteCloser
	in      *bufio.Reader
	writeMu sync.Mutex
	onRaw   func([]byte)
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := s.readFrame()
		if err != nil {
			return nil, 0, err
		}
		if bytes.Contains(body, []byte(`"id":null`)) || bytes.Contains(body, []byte(`"id":"raw-`)) {
			s.onRaw(body)
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			return nil, 0, fmt.Errorf("server sent a malformed message %q: %w", body, err)
		}
		return msg, int64(len(body)), nil
	}
}

func (s *stream) readFrame() ([]byte, error) {
	tp := textproto.NewReader(s.in)
	length := -1
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, _ := strings.Cut(line, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(s.in, body)
	return body, err
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	return int64(len(body)), s.WriteFrame(body)
}

// WriteFrame writes body in one Content-Length frame, whatever it holds.
func (s *stream) WriteFrame(body []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := fmt.Fprintf(s.rwc, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func (s *stream) Close() error { return s.rwc.Close() }
