package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// writeBuffer is a stream's far end that only records what is written.
type writeBuffer struct{ bytes.Buffer }

func (*writeBuffer) Read([]byte) (int, error) { return 0, io.EOF }
func (*writeBuffer) Close() error             { return nil }

// Every frame written is valid UTF-8 JSON, whatever strings jsonrpc2 copied
// into it; valid text goes out byte for byte.
func TestStreamWritesOnlyValidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  jsonrpc2.Message
		want string // the body, as JSON
	}{
		{"notification method", jsonrpc2.NewNotification("gemini/\xffx", nil),
			`{"jsonrpc":"2.0","method":"gemini/\uFFFDx"}`},
		{"call id", jsonrpc2.NewCall(jsonrpc2.NewStringID("a\xc3"), "m", nil),
			`{"jsonrpc":"2.0","method":"m","id":"a\uFFFD"}`},
		{"error message", jsonrpc2.NewResponse(jsonrpc2.NewNumberID(1), nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: \xfe\xffz")),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \uFFFDz"}}`},
		{"valid text unchanged", jsonrpc2.NewNotification("gemini/é…😀", jsonrpc2.RawMessage(`{"text":"ça ∑ 😀"}`)),
			`{"jsonrpc":"2.0","method":"gemini/é…😀","params":{"text":"ça ∑ 😀"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out writeBuffer
			if _, err := newStream(&out, nil).Write(context.Background(), tc.msg); err != nil {
				t.Fatal(err)
			}
			_, body, ok := strings.Cut(out.String(), "\r\n\r\n")
			if !ok || !utf8.ValidString(body) || !json.Valid([]byte(body)) {
				t.Fatalf("frame %q is not valid UTF-8 JSON", out.String())
			}
			var got, want any
			_ = json.Unmarshal([]byte(body), &got)
			_ = json.Unmarshal([]byte(tc.want), &want)
			if gb, wb := mustJSON(got), mustJSON(want); !bytes.Equal(gb, wb) {
				t.Errorf("body = %s, want %s", body, tc.want)
			}
			if encoded, _ := jsonrpc2.EncodeMessage(tc.msg); utf8.Valid(encoded) && body != string(encoded) {
				t.Errorf("valid body %s went out as %s", encoded, body)
			}
		})
	}
}

// A large body, arriving in pieces, ends in a buffer of its size (it
// ended in one up to twice as large, kept while the message is handled);
// one cut short is an unexpected EOF.
func TestReadBodyEndsInABufferOfItsSize(t *testing.T) {
	const length = 3<<20 + 1
	data := bytes.Repeat([]byte("x"), length)
	body, err := readBody(iotest.HalfReader(bytes.NewReader(data)), length)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, data) || cap(body) != length {
		t.Errorf("read %d bytes in a buffer of %d, want %d in %d", len(body), cap(body), length, length)
	}
	if _, err := readBody(bytes.NewReader(data[:length-1]), length); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a body cut short: %v, want io.ErrUnexpectedEOF", err)
	}
}
