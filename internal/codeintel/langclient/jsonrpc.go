package langclient

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
)

// The JSON-RPC 2.0 the servers speak, over LSP's Content-Length framing.
// Hand-rolled rather than go.lsp.dev/jsonrpc2 (doc.go says why): a frame's
// announced length is checked against a cap before a byte of it is read.

const (
	// defaultMaxMessage caps one message from a server; gopls's largest
	// answers (workspace symbols of a big module) are a few MiB.
	defaultMaxMessage = 64 << 20
	// maxHeaderLine caps one header line; LSP's are a few dozen bytes.
	maxHeaderLine = 4 << 10
)

// Error codes of JSON-RPC and LSP.
const (
	codeMethodNotFound = -32601
	codeRequestFailed  = -32803
)

// rpcError is an error a server answered with.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// message is any JSON-RPC message: a request (Method and ID), a
// notification (Method), or a response (ID, then Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// handler answers what a server sends unasked: a request (id non-nil),
// whose answer is returned, or a notification (id nil, answer ignored).
type handler func(method string, params json.RawMessage, isRequest bool) (any, *rpcError)

// conn is one JSON-RPC connection to a server. Its calls fail, never hang,
// once the connection is gone: the read loop ending fails every pending
// call with the reason, and a call also ends with its ctx.
type conn struct {
	handle handler
	// readFailed turns why reading ended into why the connection is gone
	// (the server's exit, rather than the end of its output).
	readFailed func(error) error
	out        chan []byte   // framed messages to write, in order
	done       chan struct{} // closed once the connection is gone

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan message
	err     error // why the connection is gone
}

// newConn runs a connection reading r and writing w until either fails or
// close is called.
func newConn(r io.Reader, w io.Writer, maxMessage int, handle handler, readFailed func(error) error) *conn {
	c := &conn{
		handle:     handle,
		readFailed: readFailed,
		out:        make(chan []byte),
		done:       make(chan struct{}),
		pending:    make(map[string]chan message),
	}
	go c.readLoop(r, maxMessage)
	go c.writeLoop(w)
	return c
}

// close ends the connection with err, failing pending calls.
func (c *conn) close(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
	for id, ch := range c.pending {
		delete(c.pending, id)
		close(ch)
	}
}

// failure is why the connection is gone.
func (c *conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *conn) writeLoop(w io.Writer) {
	for {
		select {
		case <-c.done:
			return
		case frame := <-c.out:
			if _, err := w.Write(frame); err != nil {
				c.close(fmt.Errorf("writing to the server: %w", err))
				return
			}
		}
	}
}

// send queues m to be written, waiting until the writer takes it, ctx
// ends or the connection is gone.
func (c *conn) send(ctx context.Context, m message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", m.Method, err)
	}
	frame := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	select {
	case c.out <- frame:
		return nil
	case <-c.done:
		return c.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// notify sends a notification.
func (c *conn) notify(ctx context.Context, method string, params any) error {
	raw, err := encodeParams(method, params)
	if err != nil {
		return err
	}
	return c.send(ctx, message{Method: method, Params: raw})
}

// encodeParams is params as JSON, nothing for nil: shutdown and exit
// take none, and a strict server refuses "params": null.
func encodeParams(method string, params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	return raw, nil
}

// pendingCall is a request sent, its answer to come.
type pendingCall struct {
	c      *conn
	id     string
	method string
	answer chan message
}

// start sends a request; wait then waits for its answer. Sending and
// waiting apart lets a caller order a request after a notification
// (didChange) without holding a lock for the whole round trip.
func (c *conn) start(ctx context.Context, method string, params any) (*pendingCall, error) {
	raw, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	answer := make(chan message, 1)
	c.pending[id] = answer
	c.mu.Unlock()
	if err := c.send(ctx, message{ID: json.RawMessage(id), Method: method, Params: raw}); err != nil {
		c.forget(id)
		return nil, err
	}
	return &pendingCall{c: c, id: id, method: method, answer: answer}, nil
}

func (c *conn) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// wait is the request's result, or the server's error (*rpcError).
func (p *pendingCall) wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case m, ok := <-p.answer:
		if !ok {
			return nil, p.c.failure()
		}
		if m.Error != nil {
			return nil, m.Error
		}
		if m.Result == nil {
			return json.RawMessage("null"), nil
		}
		return m.Result, nil
	case <-ctx.Done():
		p.c.forget(p.id)
		// Tell the server to stop working on it; it may not listen.
		_ = p.c.send(context.Background(), message{Method: "$/cancelRequest", Params: json.RawMessage(`{"id":` + p.id + `}`)})
		return nil, ctx.Err()
	}
}

// call is start then wait.
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := c.start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return p.wait(ctx)
}

func (c *conn) readLoop(r io.Reader, maxMessage int) {
	br := bufio.NewReaderSize(r, maxHeaderLine)
	for {
		body, err := readFrame(br, maxMessage)
		if err != nil {
			c.close(c.readFailed(err))
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.close(c.readFailed(fmt.Errorf("the server sent a malformed message: %w", err)))
			return
		}
		c.dispatch(m)
	}
}

// dispatch routes one message: an answer to its call, a server's request
// or notification to the handler.
func (c *conn) dispatch(m message) {
	switch {
	case m.Method == "" && m.ID != nil:
		c.mu.Lock()
		ch, ok := c.pending[string(bytes.TrimSpace(m.ID))]
		delete(c.pending, string(bytes.TrimSpace(m.ID)))
		c.mu.Unlock()
		if ok {
			ch <- m
		}
	case m.Method != "" && m.ID != nil:
		result, rerr := c.handle(m.Method, m.Params, true)
		reply := message{ID: m.ID, Error: rerr}
		if rerr == nil {
			raw, err := json.Marshal(result)
			if err != nil {
				raw, reply.Error = nil, &rpcError{Code: codeRequestFailed, Message: err.Error()}
			}
			reply.Result = raw
		}
		// Answered from the read loop so answers keep the order of the
		// requests; only a server that stops reading could block it,
		// and that server's calls end with their contexts.
		_ = c.send(context.Background(), reply)
	case m.Method != "":
		c.handle(m.Method, m.Params, false)
	}
}

// readFrame reads one Content-Length framed message, refusing one larger
// than maxMessage before reading it.
func readFrame(br *bufio.Reader, maxMessage int) ([]byte, error) {
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("the server sent a header line longer than %d bytes", maxHeaderLine)
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			if length < 0 {
				return nil, errors.New("the server sent a message without a Content-Length")
			}
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("the server sent a malformed header line %q", ellipsize(text, 80))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("the server sent a malformed Content-Length %q", ellipsize(value, 40))
			}
			if n > int64(maxMessage) {
				return nil, fmt.Errorf("the server sent a message of %d bytes, over the %d-byte limit", n, maxMessage)
			}
			length = int(n)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading a message from the server: %w", err)
	}
	return body, nil
}

// ellipsize is s cut to at most n bytes, marked when cut.
func ellipsize(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
