package langclient

import (
	"bufio"
	"bytes"
	"testing"
)

// A language server is a program from the user's PATH: whatever it
// writes, readFrame returns a body no larger than the cap, or an error,
// and never reads past what the header announced.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 99999999999\r\n\r\n",
		"content-length:3\nX-Other: y\n\nabcdef",
		"Content-Length: -1\r\n\r\n",
		"no colon\r\n\r\n",
		"\r\n",
	} {
		f.Add([]byte(s))
	}
	const maxMessage = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReaderSize(bytes.NewReader(data), maxHeaderLine)
		body, err := readFrame(br, maxMessage)
		if err != nil {
			if body != nil {
				t.Fatalf("an error with a body: %v", err)
			}
			return
		}
		if len(body) > maxMessage {
			t.Fatalf("a body of %d bytes over the %d-byte cap", len(body), maxMessage)
		}
		if !bytes.Contains(data, body) {
			t.Fatalf("a body %q that the input does not hold", body)
		}
	})
}
