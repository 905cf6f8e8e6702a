package auth

import (
	"encoding/json"
	"strings"
	"testing"
)

// A string is encoded as encoding/json encodes it, at the size said.
func TestJSONStringAsEncodingJSON(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "tab\there\nline\r\b\f\x00\x1f\x7f", "\\ back", "sep\u2028and\u2029para", "ünïcode — 日本", "\u2027\u202a", all.String()} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: %s, want %s", s, got[1:], want)
		}
		if n := jsonStringSize(s); n != len(want) {
			t.Errorf("%q: size %d, want %d", s, n, len(want))
		}
	}
}
