package lsp

import (
	"runtime"
	"testing"
)

// A file URI is the path the system writes: on Windows with its drive
// letter upper case, whichever case the editor sent (VS Code sends it
// lower), so that the document and the file on disk are one path.
func TestURIToPath(t *testing.T) {
	cases := map[string]string{"file:///home/u/a.go": "/home/u/a.go", "file:///home/u/my%20file.go": "/home/u/my file.go"}
	if runtime.GOOS == "windows" {
		cases = map[string]string{
			"file:///c%3A/Users/u/a.go": `C:\Users\u\a.go`,
			"file:///C:/Users/u/a.go":   `C:\Users\u\a.go`,
			"file:///d:/my%20file.go":   `D:\my file.go`,
		}
	}
	for u, want := range cases {
		if got, err := uriToPath(u); err != nil || got != want {
			t.Errorf("uriToPath(%q) = %q, %v; want %q", u, got, err, want)
		}
	}
	if _, err := uriToPath("untitled:Untitled-1"); err == nil {
		t.Error("an untitled: URI was read as a path")
	}
}
