package sandbox

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// indexOf is an index of version 2 or 4 holding paths, each a gitlink,
// with 20-byte object names and no checksum checked.
func indexOf(version uint32, paths ...string) []byte {
	var b bytes.Buffer
	b.WriteString(indexSignature)
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := b.Len()
		var stat [indexStatBytes]byte
		binary.BigEndian.PutUint32(stat[indexModeAt:], gitlinkMode)
		b.Write(stat[:])
		b.Write(make([]byte, 20))
		binary.Write(&b, binary.BigEndian, uint16(min(len(p), 0xfff)))
		if version == 4 {
			b.Write(gitVarint(uint64(len(prev)))) // drop all of it
			b.WriteString(p)
			b.WriteByte(0)
		} else {
			b.WriteString(p)
			b.Write(make([]byte, 8-(b.Len()-start)%8))
		}
		prev = p
	}
	b.Write(make([]byte, 20))
	return b.Bytes()
}

// A command writes the index the watch reads: any bytes are read to an
// error or to gitlinks, never a panic nor a path kept past maxIndexPath,
// nor more entries than the bytes could hold.
func FuzzParseIndex(f *testing.F) {
	f.Add(indexOf(2, "a/sub", "b/c/d/e/f/g/h/i/sub"), 20)
	f.Add(indexOf(4, "a/sub", "b/sub"), 20)
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"), 32)
	f.Fuzz(func(t *testing.T, data []byte, hashSize int) {
		if hashSize != 20 && hashSize != 32 {
			hashSize = 20
		}
		links, _, _ := parseIndex(bytes.NewReader(data), int64(len(data)), hashSize)
		if len(links) > len(data)/(indexStatBytes+hashSize+2) {
			t.Fatalf("%d gitlinks from %d bytes", len(links), len(data))
		}
		for _, l := range links {
			if len(l) > maxIndexPath || l == "" {
				t.Fatalf("a gitlink of %d bytes kept", len(l))
			}
		}
	})
}

// The indexes built by hand read back as written, in both versions.
func TestParseIndexOfTheFuzzSeeds(t *testing.T) {
	for _, version := range []uint32{2, 4} {
		links, _, err := parseIndex(bytes.NewReader(indexOf(version, "a/sub", "b/c/sub")), int64(len(indexOf(version, "a/sub", "b/c/sub"))), 20)
		if err != nil || len(links) != 2 || links[0] != "a/sub" || links[1] != "b/c/sub" {
			t.Errorf("version %d: %q, %v", version, links, err)
		}
	}
}

// gitVarint is git's encoding of v (varint.c's encode_varint).
func gitVarint(v uint64) []byte {
	out := []byte{byte(v & 127)}
	for v >>= 7; v != 0; v >>= 7 {
		v--
		out = append([]byte{byte(128 | v&127)}, out...)
	}
	return out
}

// In version 4 a path longer than maxIndexPath is not kept, but the
// paths after it, which start from it, are read whole: one keeping its
// first two bytes, then one keeping nearly all of it (too long again),
// then one keeping the first byte of that.
func TestParseIndexReadsThePathsAfterOneTooLong(t *testing.T) {
	long := "x/" + strings.Repeat("a", maxIndexPath+10)
	var b bytes.Buffer
	b.WriteString(indexSignature)
	binary.Write(&b, binary.BigEndian, uint32(4))
	binary.Write(&b, binary.BigEndian, uint32(4))
	for _, e := range []struct {
		drop int
		rest string
	}{{0, long}, {len(long) - 2, "sub"}, {1, strings.Repeat("b", maxIndexPath)}, {maxIndexPath + 3, "/deep"}} {
		var stat [indexStatBytes]byte
		binary.BigEndian.PutUint32(stat[indexModeAt:], gitlinkMode)
		b.Write(stat[:])
		b.Write(make([]byte, 20))
		binary.Write(&b, binary.BigEndian, uint16(0xfff))
		b.Write(gitVarint(uint64(e.drop)))
		b.WriteString(e.rest)
		b.WriteByte(0)
	}
	b.Write(make([]byte, 20))
	links, _, err := parseIndex(bytes.NewReader(b.Bytes()), int64(b.Len()), 20)
	if err != nil || !slices.Equal(links, []string{"x/sub", "x/deep"}) {
		t.Errorf("parseIndex = %q, %v", links, err)
	}
}
