package mcp

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage bounds one message read from a remote server: one event of
// an SSE stream, or a whole answer of any other type (a JSON answer, an
// error's body). It is the bound the SDK's SSE transport holds events to;
// its streamable HTTP transport holds them to none unless told, and
// neither bounds a JSON answer. Without a bound, one endless line is read
// until the process runs out of memory.
const maxMessage = sdk.DefaultMaxEventSize

// tooLargeError is a message over the bound.
type tooLargeError struct{ limit int }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of more than %d MiB: gemini-ls stopped reading it and disconnected the server", e.limit>>20)
}

// boundedTransport holds every answer's messages to limit: a body that
// goes over fails from there on, and exceeded is told.
type boundedTransport struct {
	limit    int
	exceeded func(error)
	base     http.RoundTripper
}

func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &boundedBody{body: resp.Body, events: mediaType == "text/event-stream", limit: t.limit, exceeded: t.exceeded, blank: true}
	return resp, nil
}

// boundedBody reads body, failing once a message is over limit. The
// body is closed then, so that whoever drains it (the SDK reads a failed
// stream to its end) stops at once.
type boundedBody struct {
	body     io.ReadCloser
	events   bool // an SSE stream: each event is bounded, not the whole
	limit    int
	exceeded func(error)

	size  int  // of the message so far
	blank bool // the line so far holds nothing but '\r' (as the SDK reads lines)
	err   error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.body.Read(p)
	if b.over(p[:n]) {
		b.err = &tooLargeError{b.limit}
		b.body.Close()
		b.exceeded(b.err)
		return 0, b.err
	}
	return n, err
}

// over counts p into the message, and reports whether it went over.
func (b *boundedBody) over(p []byte) bool {
	if !b.events {
		b.size += len(p)
		return b.size > b.limit
	}
	// An event ends with a blank line; the SDK, like this, splits lines
	// at '\n' and takes one of only '\r's for blank.
	for len(p) > 0 {
		line := p
		end := bytes.IndexByte(p, '\n')
		if end >= 0 {
			line = p[:end]
		}
		if len(bytes.Trim(line, "\r")) > 0 {
			b.blank = false
		}
		b.size += len(line)
		if b.size > b.limit {
			return true
		}
		if end < 0 {
			return false
		}
		b.size++
		if b.blank {
			b.size = 0
		}
		b.blank = true
		p = p[end+1:]
	}
	return false
}

func (b *boundedBody) Close() error { return b.body.Close() }
