package main

import (
	"io"
	"strings"
	"testing"
)

// A bare gemini-ls whose stdin starts with an LSP header serves LSP.
func TestBarePeeksForAnLSPClient(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Content-Length: 10\r\n\r\n", true},
		{"content-type: x\r\n", true},
		{"Content", false},
		{"explain this", false},
		{"", false},
	} {
		r, isLSP := peekLSP(strings.NewReader(tc.in))
		all, _ := io.ReadAll(r)
		if isLSP != tc.want || string(all) != tc.in {
			t.Errorf("%q: LSP %v, read %q", tc.in, isLSP, all)
		}
	} // serve's flags keep a bare gemini-ls a server; --stdio (VS Code's)
	// makes it one whatever stdin holds; any other flag is a headless run.
	for _, tc := range []struct {
		args          []string
		serves, stdio bool
	}{
		{nil, true, false},
		{[]string{"--stdio"}, true, true},
		{[]string{"-stdio=true", "--log-level", "debug"}, true, true},
		{[]string{"--log-file", "x.log"}, true, false},
		{[]string{"-p", "hi"}, false, false},
		{[]string{"--log-file", "x.log", "word"}, false, false},
	} {
		if serves, stdio := servesFlags(tc.args); serves != tc.serves || stdio != tc.stdio {
			t.Errorf("%q: serves %v, stdio %v; want %v, %v", tc.args, serves, stdio, tc.serves, tc.stdio)
		}
	}
}
