package sessionstore

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A line written in its pieces still lands whole on an append-only file
// another writer appends to meanwhile: no line of the other's lands
// inside it. So does one of more pieces than one writev takes.
func TestALineWrittenInPiecesIsOneAppend(t *testing.T) {
	if runtime.GOOS == "windows" {
		// Windows appends each write of an append-only handle whole, and
		// writeGathered joins the pieces into one write there; Wine, which
		// the Windows tests run in, lets two handles' appends interleave.
		t.Skip("appends from two handles interleave under Wine")
	}
	for _, tc := range []struct {
		name         string
		pieces, size int
	}{
		{"huge", 64, 64 << 10},
		{"of many pieces", 3 * maxGathered, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			open := func() *os.File {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				return f
			}
			big, small := open(), open()
			var pieces net.Buffers
			for i := range tc.pieces {
				pieces = append(pieces, bytes.Repeat([]byte{byte('a' + i%26)}, tc.size))
			}
			line := append(bytes.Join(pieces, nil), '\n')
			var done atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				for !done.Load() {
					if _, err := small.Write([]byte("small\n")); err != nil {
						t.Error(err)
						return
					}
				}
			})
			for range 20 {
				buffers := append(append(net.Buffers{}, pieces...), []byte("\n"))
				if err := writeLines(big, buffers); err != nil {
					t.Fatal(err)
				}
			}
			done.Store(true)
			wg.Wait()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			whole := 0
			for l := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
				switch {
				case l == "small":
				case l+"\n" == string(line):
					whole++
				default:
					t.Fatalf("a line of %d bytes is neither the long one nor the small one: the writes interleaved", len(l))
				}
			}
			if whole != 20 {
				t.Errorf("%d long lines whole, want 20", whole)
			}
		})
	}
}

func TestConsumedDropsTheBytesWritten(t *testing.T) {
	b := net.Buffers{[]byte("abc"), []byte("de"), []byte("fgh")}
	got := consumed(b, 4)
	if string(bytes.Join(got, nil)) != "efgh" {
		t.Errorf("after 4 bytes: %q, want efgh", bytes.Join(got, nil))
	}
	if got := consumed(net.Buffers{[]byte("ab")}, 2); len(got) != 0 {
		t.Errorf("after all bytes: %q left", got)
	}
}
