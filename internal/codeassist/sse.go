package codeassist

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
)

// maxEventSize bounds one Server-Sent Event (its data lines together): a
// chunk is a few kilobytes, a server that never ends a line is a fault.
const maxEventSize = 16 << 20

// sseData yields the data of each Server-Sent Event in r: the "data:"
// lines of one event joined with newlines, as server.ts joins them. Blank
// lines between events (keep-alives) and other fields (comments, ids) are
// skipped; an event the stream ends in without a blank line still counts.
func sseData(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), maxEventSize)
		var event []byte
		lines := 0
		flush := func() bool {
			if lines == 0 {
				return true
			}
			data := event
			event, lines = nil, 0
			return yield(data, nil)
		}
		for sc.Scan() {
			line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
			if len(line) == 0 {
				if !flush() {
					return
				}
				continue
			}
			data, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue
			}
			data = bytes.TrimSpace(data)
			if len(event)+len(data)+1 > maxEventSize {
				yield(nil, fmt.Errorf("an event larger than %d MiB", maxEventSize>>20))
				return
			}
			if lines > 0 {
				event = append(event, '\n')
			}
			event = append(event, data...)
			lines++
		}
		if err := sc.Err(); err != nil {
			if err == bufio.ErrTooLong {
				err = fmt.Errorf("a line longer than %d MiB", maxEventSize>>20)
			}
			yield(nil, err)
			return
		}
		flush()
	}
}
