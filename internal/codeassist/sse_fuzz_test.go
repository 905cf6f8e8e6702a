package codeassist

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzSSEData: whatever the server streams, the events read are the
// same however the bytes arrive, each at most maxEventSize, no more of
// them than "data:" lines; and events written as a server writes them
// (one "data:" line per line, a blank line after each, LF or CRLF) are
// read back as written.
//
//	go test -run '^$' -fuzz FuzzSSEData ./internal/codeassist/
func FuzzSSEData(f *testing.F) {
	f.Add([]byte(": keep-alive comment\r\n\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n\r\n\r\nid: 7\nevent: message\ndata:{\"b\":2}\n\ndata: {\"c\":3}"), "{\"a\":\n1}\x00{\"b\":2}", false)
	f.Add([]byte("data:\n\ndata: x\rdata: y\n"), "x\x00\x00y", true)
	f.Add([]byte("\n\n\ndata"), "", false)
	f.Fuzz(func(t *testing.T, stream []byte, events string, crlf bool) {
		whole, errWhole := readEvents(bytes.NewReader(stream))
		bytewise, errBytewise := readEvents(iotest.OneByteReader(bytes.NewReader(stream)))
		if !slices.Equal(whole, bytewise) || (errWhole == nil) != (errBytewise == nil) {
			t.Fatalf("%q read whole: %q, %v; a byte at a time: %q, %v", stream, whole, errWhole, bytewise, errBytewise)
		}
		if len(whole) > bytes.Count(stream, []byte("data:")) {
			t.Fatalf("%q: %d events from %d data lines", stream, len(whole), bytes.Count(stream, []byte("data:")))
		}
		for _, e := range whole {
			if len(e) > maxEventSize {
				t.Fatalf("an event of %d bytes", len(e))
			}
		}

		want := strings.Split(events, "\x00")
		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		var b strings.Builder
		for i, e := range want {
			lines := strings.Split(e, "\n")
			for j, l := range lines {
				// A line the server sends: no line break in it, and no
				// space at its ends (the reader trims it).
				lines[j] = strings.TrimSpace(strings.ReplaceAll(l, "\r", ""))
				b.WriteString("data: " + lines[j] + eol)
			}
			want[i] = strings.Join(lines, "\n")
			b.WriteString(eol)
		}
		got, err := readEvents(strings.NewReader(b.String()))
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%q read as %q, %v; want %q", b.String(), got, err, want)
		}
	})
}

func readEvents(r interface{ Read([]byte) (int, error) }) ([]string, error) {
	var out []string
	for data, err := range sseData(r) {
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
	return out, nil
}
