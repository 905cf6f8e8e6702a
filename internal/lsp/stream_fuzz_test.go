package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// pipeEnd is a stream's far end: what it reads is fixed, what it is
// written is recorded.
type pipeEnd struct {
	io.Reader
	out bytes.Buffer
}

func (p *pipeEnd) Write(b []byte) (int, error) { return p.out.Write(b) }
func (*pipeEnd) Close() error                  { return nil }

// FuzzStreamFraming: whatever the client sends, the stream reads until
// it ends or cannot be framed, never allocating more than it was sent;
// each message it reads is one a frame held; everything it writes back
// is frames of valid UTF-8 JSON; and a message written by one stream is
// read back whole by another, whatever follows it.
//
//	go test -run '^$' -fuzz FuzzStreamFraming ./internal/lsp/
func FuzzStreamFraming(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}",
		"content-length:  3 \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\nnul",
		"Content-Length: 5\r\n\r\n[1,2]Content-Length: 1\r\n\r\n{",
		"Content-Type: x\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 268435457\r\n\r\n",
		"Content-Length: 200000000\r\n\r\n{}",
		"no colon\r\n\r\n",
		"Content-Length: 10\n\n{\"a\":\"\xff\"}",
		"",
	} {
		f.Add([]byte(s), "textDocument/didOpen", "id\xff")
	}
	f.Fuzz(func(t *testing.T, input []byte, method, id string) {
		end := &pipeEnd{Reader: bytes.NewReader(input)}
		st := newStream(end, nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for n := 0; ; n++ {
			if n > len(input) {
				t.Fatalf("%d messages from %d bytes", n, len(input))
			}
			msg, size, err := st.Read(context.Background())
			if err != nil {
				break
			}
			if msg == nil || size <= 0 || size > int64(len(input)) {
				t.Fatalf("Read of %q: %v, %d bytes", input, msg, size)
			}
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20+64*uint64(len(input)) {
			t.Fatalf("reading %d bytes allocated %d", len(input), alloc)
		}
		checkFrames(t, end.out.Bytes())

		// A message, and what follows it, written and read back.
		var params jsonrpc2.RawMessage
		if json.Valid([]byte(id)) {
			params = jsonrpc2.RawMessage(id)
		}
		call := jsonrpc2.NewCall(jsonrpc2.NewStringID(id), method, params)
		w := &pipeEnd{Reader: bytes.NewReader(nil)}
		if _, err := newStream(w, nil).Write(context.Background(), call); err != nil {
			t.Fatalf("Write(%v): %v", call, err)
		}
		sent := w.out.Bytes()
		r := newStream(&pipeEnd{Reader: bytes.NewReader(append(bytes.Clone(sent), input...))}, nil)
		got, _, err := r.Read(context.Background())
		if err != nil {
			t.Fatalf("reading back %q: %v", sent, err)
		}
		c, ok := got.(*jsonrpc2.Call)
		if !ok || c.Method() != string(bytes.ToValidUTF8([]byte(method), []byte("\uFFFD"))) {
			t.Fatalf("read back %q as %#v", sent, got)
		}
	})
}

// checkFrames: out is Content-Length frames of valid UTF-8 JSON.
func checkFrames(t *testing.T, out []byte) {
	t.Helper()
	for len(out) > 0 {
		head, rest, ok := bytes.Cut(out, []byte("\r\n\r\n"))
		n, err := strconv.Atoi(string(bytes.TrimPrefix(head, []byte("Content-Length: "))))
		if !ok || err != nil || n > len(rest) {
			t.Fatalf("not a frame: %q", out)
		}
		if body := rest[:n]; !utf8.Valid(body) || !json.Valid(body) {
			t.Fatalf("a frame of %q", body)
		}
		out = rest[n:]
	}
}

// A client cannot make the server hold more than it sent: a Content-Length
// near the limit without its bytes allocates as they arrive, and a header
// line that never ends is refused once it outgrows the reader's buffer.
func TestStreamBoundsHostileFraming(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st := newStream(&pipeEnd{Reader: bytes.NewReader([]byte("Content-Length: 250000000\r\n\r\n{}"))}, nil)
	if _, _, err := st.Read(context.Background()); err == nil {
		t.Fatal("a body cut short was read")
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("a 2-byte body of a 250 MB frame allocated %d bytes", alloc)
	}

	long := append([]byte("X-Long: "), bytes.Repeat([]byte("x"), 1<<20)...)
	st = newStream(&pipeEnd{Reader: bytes.NewReader(long)}, nil)
	if _, _, err := st.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "header line longer than 64 KiB") {
		t.Errorf("a 1 MiB header line: %v", err)
	}
}
