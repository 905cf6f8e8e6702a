package tools

import (
	"syscall"
	"testing"
)

// Windows's unreadable file is one another program holds open sharing
// nothing (file modes make one on Unix, TestGrepSearchSkipsUnreadableFiles):
// it is skipped and counted, and the search goes on.
func TestGrepSearchSkipsAFileHeldOpen(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"locked.txt": "needle\n", "ok.txt": "needle\n"})
	name, err := syscall.UTF16PtrFromString(tw.abs("locked.txt"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ, 0, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.CloseHandle(h)
	res := run(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
	wantContains(t, res.Output, "File: ok.txt\nL1: needle\n---\n\n(skipped 1 unreadable file)")
}
