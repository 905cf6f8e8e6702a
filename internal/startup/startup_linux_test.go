package startup

import (
	"bytes"
	"compress/flate"
	"crypto/sha512"
	"encoding/binary"
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"testing"
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
func TestReleaseCodePages(t *testing.T) {
	if traced() {
		t.Skip("a debugger is attached: nothing is released")
	}
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer pagemap.Close()
	work(t)
	code := workCode()
	for _, pc := range code {
		if !resident(t, pagemap, pc) {
			t.Fatalf("code at %#x just ran and is not resident", pc)
		}
	}
	ReleaseCodePages()
	released := 0
	for _, pc := range code {
		if !resident(t, pagemap, pc) {
			released++
		}
	}
	if released < len(code)/2+1 {
		t.Errorf("%d of %d functions' code released", released, len(code))
	}
	work(t)
	for _, pc := range code {
		if !resident(t, pagemap, pc) {
			t.Errorf("code at %#x ran again and is not resident", pc)
		}
	}
}
