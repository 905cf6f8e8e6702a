package startup

import (
	"bytes"
	"compress/flate"
	"crypto/sha512"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"unsafe"
)

// resident reports whether the page holding address pc is mapped in this
// process (/proc/self/pagemap: bit 63 of the page's entry).
func resident(t *testing.T, pagemap *os.File, pc uintptr) bool {
	t.Helper()
	page := uintptr(os.Getpagesize())
	var entry [8]byte
	if _, err := pagemap.ReadAt(entry[:], int64(pc/page*8)); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(entry[:])&(1<<63) != 0
}

// workCode is where some of the code work runs starts, in packages far
// apart in the binary.
func workCode() []uintptr {
	var pcs []uintptr
	for _, f := range []any{flate.NewWriter, json.Marshal, regexp.MustCompile, sha512.Sum512, (*big.Int).Exp} {
		pcs = append(pcs, reflect.ValueOf(f).Pointer())
	}
	return pcs
}

// work runs code of packages the test links for nothing else, as
// start-up runs code a process does not run again.
func work(t *testing.T) {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	enc, _ := json.Marshal(map[string]any{"a": []int{1, 2}, "b": regexp.MustCompile(`^(\w+)@(\w+)$`).FindStringSubmatch("x@y")})
	w.Write(enc)
	w.Close()
	sum := sha512.Sum512(buf.Bytes())
	if new(big.Int).Exp(big.NewInt(int64(sum[0])+2), big.NewInt(65537), big.NewInt(1000003)).Sign() < 0 {
		t.Fatal("unreachable")
	}
}

// Code start-up ran is no longer resident once released, and runs as
// before. (Code run after the release, here the test's own, is mapped
// again with the 64 KiB around it, which may hold one of the functions
// looked at; not most of them.)
func TestReleaseExecutablePages(t *testing.T) {
	if traced() {
		t.Skip("a debugger is attached: nothing is released")
	}
	pagemap := openPagemap(t)
	work(t)
	code := workCode()
	if released := release(t, pagemap, code, "code"); released < len(code)/2+1 {
		t.Errorf("%d of %d functions' code released", released, len(code))
	}
	work(t)
	for _, pc := range code {
		if !resident(t, pagemap, pc) {
			t.Errorf("code at %#x ran again and is not resident", pc)
		}
	}
}

func openPagemap(t *testing.T) *os.File {
	t.Helper()
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pagemap.Close() })
	return pagemap
}

// release checks that the pages at addrs (what they hold, for the
// message) are resident, releases the executable's pages, and returns
// how many of addrs no longer are.
func release(t *testing.T, pagemap *os.File, addrs []uintptr, what string) (released int) {
	t.Helper()
	for _, a := range addrs {
		if !resident(t, pagemap, a) {
			t.Fatalf("the %s at %#x was just used and is not resident", what, a)
		}
	}
	ReleaseExecutablePages()
	for _, a := range addrs {
		if !resident(t, pagemap, a) {
			released++
		}
	}
	return released
}

// workData is where some of the read-only data work reads lies: the type
// descriptors of types in packages far apart in the binary.
func workData() []uintptr {
	var addrs []uintptr
	for _, v := range []any{flate.Writer{}, json.Decoder{}, regexp.Regexp{}, big.Int{}, sha512.Size} {
		// An interface's first word is its type descriptor, in the
		// executable's read-only data.
		addrs = append(addrs, (*[2]uintptr)(unsafe.Pointer(&v))[0])
	}
	return addrs
}

// The read-only data start-up read is no longer resident once released,
// and reads as before.
func TestReleaseExecutablePagesReleasesReadOnlyData(t *testing.T) {
	if traced() {
		t.Skip("a debugger is attached: nothing is released")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if positionIndependent(exe) {
		t.Skip("the test binary is position-independent: its read-only data is kept")
	}
	data := workData()
	if released := release(t, openPagemap(t), data, "type descriptor"); released < len(data)/2+1 {
		t.Errorf("%d of %d type descriptors' pages released", released, len(data))
	}
	work(t)
	if got := reflect.TypeOf(regexp.Regexp{}).Name(); got != "Regexp" {
		t.Errorf("a released type descriptor reads %q", got)
	}
}

// An executable that is not ET_EXEC (a PIE, whose loader relocated part
// of its read-only data) or not ELF is taken as position-independent.
func TestPositionIndependent(t *testing.T) {
	dir := t.TempDir()
	header := func(kind uint16) []byte {
		h := make([]byte, 64)
		copy(h, "\x7fELF\x02\x01\x01")
		binary.LittleEndian.PutUint16(h[16:], kind)
		return h
	}
	for name, c := range map[string]struct {
		content []byte
		want    bool
	}{
		"exec":    {header(2), false},
		"pie":     {header(3), true},
		"script":  {[]byte("#!/bin/sh\n"), true},
		"empty":   {nil, true},
		"missing": {nil, true},
	} {
		path := filepath.Join(dir, name)
		if name != "missing" {
			if err := os.WriteFile(path, c.content, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if got := positionIndependent(path); got != c.want {
			t.Errorf("%s: positionIndependent = %v, want %v", name, got, c.want)
		}
	}
}
