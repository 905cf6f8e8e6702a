package jsonstring

import (
	"encoding/json"
	"strings"
	"testing"
)

// A string is encoded as encoding/json encodes it, at the size said.
func TestAsEncodingJSON(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "tab\there\nline\r\b\f\x00\x1f\x7f", "\\ back", "sep\u2028and\u2029para", "ünïcode — 日本", "\u2027\u202a", all.String()} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: %s, want %s", s, got[1:], want)
		}
		if n := Size(s); n != len(want) {
			t.Errorf("%q: size %d, want %d", s, n, len(want))
		}
	}
}

// Texts are put back in the places of their stand-ins, encoded; one enc
// does not hold is left out.
func TestPutBack(t *testing.T) {
	texts := map[string]string{`"s1"`: "<one>\n", `"s2"`: "two \u2028", `"s3"`: "absent"}
	got, err := PutBack([]byte(`{"a":["s2",{"b":"s1"}],"c":1}`), texts)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":["two \u2028",{"b":"\u003cone\u003e\n"}],"c":1}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
