package sandbox

import (
	"bytes"
	"reflect"
	"testing"
)

// The supervisor's frame reader takes what the other end of a pipe wrote,
// and a command inside the sandbox shares the supervisor's namespace: any
// bytes are an error or a message, never a panic or an allocation past
// maxFrame, and a message read is written back as the same message.
func FuzzReadFrame(f *testing.F) {
	var seed bytes.Buffer
	if err := writeFrame(&seed, message{Op: opRun, ID: 1, Argv: []string{"sh", "-c", "true"}, Dir: "/w"}); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readFrame(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := writeFrame(&again, m); err != nil {
			t.Fatalf("a message read could not be written back: %v", err)
		}
		back, err := readFrame(&again)
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("read back %+v, %v; want %+v", back, err, m)
		}
	})
}
