package shellquote

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// FuzzQuote: whatever the value (but NUL, which no command line holds),
// bash and sh reading Quote(value) read one word that is the value byte
// for byte (none for ""), in the C locale and in a UTF-8 one, invalid
// UTF-8 and control bytes too: printf prints it back between brackets.
//
//	go test -run '^$' -fuzz FuzzQuote ./internal/shellquote/
func FuzzQuote(f *testing.F) {
	for _, v := range hostile {
		f.Add(v)
	}
	var shells []string
	for _, name := range []string{"bash", "sh"} {
		if path, err := exec.LookPath(name); err == nil {
			shells = append(shells, path)
		}
	}
	if len(shells) == 0 {
		f.Skip("needs bash or sh on PATH")
	}
	f.Fuzz(func(t *testing.T, value string) {
		if strings.IndexByte(value, 0) >= 0 {
			return
		}
		command := "printf '[%s]' " + Quote(value)
		for _, shell := range shells {
			for _, locale := range []string{"C", "C.UTF-8"} {
				cmd := exec.Command(shell, "-c", command)
				cmd.Env = []string{"LC_ALL=" + locale, "PATH=/usr/bin:/bin"}
				out, err := cmd.Output()
				if err != nil || !bytes.Equal(out, []byte("["+value+"]")) {
					t.Fatalf("%s -c %q (LC_ALL=%s) printed %q, %v; want [%q]", shell, command, locale, out, err, value)
				}
			}
		}
	})
}
