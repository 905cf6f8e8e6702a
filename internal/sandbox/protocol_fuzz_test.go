package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// testSealers are the two ends of one direction of a channel.
func testSealers(t testing.TB) (seal, open *sealer) {
	key := bytes.Repeat([]byte{7}, keySize)
	seal, err := newSealer(key, toSupervisor)
	if err != nil {
		t.Fatal(err)
	}
	open, err = newSealer(key, toSupervisor)
	if err != nil {
		t.Fatal(err)
	}
	return seal, open
}

// The supervisor's frame reader takes what the other end of a pipe wrote,
// and a command inside a container can write there too: any bytes are an
// error or a message, never a panic or an allocation past maxFrame;
// bytes not sealed with the key are errForged; and any body sealed with
// it is an error or a message, which is written back as the same message.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte(`{"op":"run","id":1,"argv":["sh","-c","true"],"dir":"/w"}`))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, open := testSealers(t)
		if _, err := readFrame(bytes.NewReader(data), open); err == nil {
			t.Fatalf("bytes not sealed with the key were read as a frame: %q", data)
		}

		seal, open := testSealers(t)
		if len(data) > maxFrame {
			return
		}
		var sealed bytes.Buffer
		if err := writeSealed(&sealed, seal, data); err != nil {
			t.Fatal(err)
		}
		m, err := readFrame(&sealed, open)
		if errors.Is(err, errForged) {
			t.Fatalf("a frame sealed with the key did not open: %v", err)
		}
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := writeFrame(&again, seal, m); err != nil {
			t.Fatalf("a message read could not be written back: %v", err)
		}
		back, err := readFrame(&again, open)
		// Compared as encoded: an empty list decodes as one, and is
		// written as none (omitempty).
		got, _ := json.Marshal(back)
		want, _ := json.Marshal(m)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %s, %v; want %s", got, err, want)
		}
	})
}

// A frame replayed, dropped or sent in the other direction does not
// open: each direction numbers its frames.
func TestFramesOpenOnlyInTheirOrderAndDirection(t *testing.T) {
	seal, open := testSealers(t)
	var first, second bytes.Buffer
	for _, w := range []*bytes.Buffer{&first, &second} {
		if err := writeFrame(w, seal, message{Op: opExit, ID: 1}); err != nil {
			t.Fatal(err)
		}
	}
	replay := bytes.Clone(first.Bytes())
	if _, err := readFrame(&second, open); !errors.Is(err, errForged) {
		t.Errorf("the second frame before the first: %v, want errForged", err)
	}
	_, open = testSealers(t)
	if m, err := readFrame(&first, open); err != nil || m.Op != opExit {
		t.Fatalf("the first frame: %+v %v", m, err)
	}
	if _, err := readFrame(bytes.NewReader(replay), open); !errors.Is(err, errForged) {
		t.Errorf("the first frame again: %v, want errForged", err)
	}
	key := bytes.Repeat([]byte{7}, keySize)
	other, err := newSealer(key, fromSupervisor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readFrame(bytes.NewReader(replay), other); !errors.Is(err, errForged) {
		t.Errorf("a frame to the supervisor read as one from it: %v, want errForged", err)
	}
}
