package tools

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	files := demoFiles()
	tw := newTestWorkspace(t, files)
	tool := tw.tool(ReadFileName, Options{})

	res := run(t, tool, map[string]any{"path": "main.go"})
	wantOutput(t, res, files["main.go"])
	if len(res.Parts) != 0 {
		t.Errorf("text read has %d parts", len(res.Parts))
	}
	wantOutput(t, run(t, tool, map[string]any{"path": tw.abs("pkg/util/strings.go")}), files["pkg/util/strings.go"])
}

func TestReadFileEdgeContent(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"crlf.txt":    "one\r\ntwo\r\n",
		"noeol.txt":   "a\nb",
		"empty.txt":   "",
		"bom.txt":     "\uFEFFhello\n",
		"unicode.txt": "héllo 世界 ✓\n",
	})
	tool := tw.tool(ReadFileName, Options{})
	for name, want := range map[string]string{
		"crlf.txt":    "one\ntwo\n",
		"noeol.txt":   "a\nb",
		"empty.txt":   "",
		"bom.txt":     "hello\n",
		"unicode.txt": "héllo 世界 ✓\n",
	} {
		wantOutput(t, run(t, tool, map[string]any{"path": name}), want)
	}
}

func TestReadFileRanges(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"ten.txt": numberedLines(10), "big.txt": numberedLines(2500), "noeol.txt": "a\nb\nc", "one.txt": "only\n"})
	tool := tw.tool(ReadFileName, Options{})

	wantOutput(t, run(t, tool, map[string]any{"file_path": "ten.txt", "start_line": 3.0, "end_line": 5.0}),
		"[File content truncated: showing lines 3-5 of 10 total lines...]\nline 3\nline 4\nline 5\n")
	wantOutput(t, run(t, tool, map[string]any{"file_path": "ten.txt", "start_line": 9.0}),
		"[File content truncated: showing lines 9-10 of 10 total lines...]\nline 9\nline 10\n")
	wantOutput(t, run(t, tool, map[string]any{"file_path": "ten.txt", "start_line": 4.0, "end_line": 4.0}),
		"[File content truncated: showing lines 4-4 of 10 total lines...]\nline 4\n")
	// An end_line covering the whole file is no truncation.
	wantOutput(t, run(t, tool, map[string]any{"file_path": "ten.txt", "end_line": 10.0}), numberedLines(10))
	wantOutput(t, run(t, tool, map[string]any{"file_path": "noeol.txt", "start_line": 2.0, "end_line": 6.0}),
		"[File content truncated: showing lines 2-3 of 3 total lines...]\nb\nc")
	// The older 0-based offset and line count read the same lines.
	wantOutput(t, run(t, tool, map[string]any{"path": "ten.txt", "offset": 2.0, "limit": 3.0}),
		"[File content truncated: showing lines 3-5 of 10 total lines...]\nline 3\nline 4\nline 5\n")
	wantOutput(t, run(t, tool, map[string]any{"path": "ten.txt", "offset": 8.0}),
		"[File content truncated: showing lines 9-10 of 10 total lines...]\nline 9\nline 10\n")
	wantOutput(t, run(t, tool, map[string]any{"path": "ten.txt", "limit": 10.0}), numberedLines(10))

	res := run(t, tool, map[string]any{"path": "big.txt"})
	wantOutput(t, res, "[File content truncated: showing lines 1-2000 of 2500 total lines...]\n"+numberedLines(2000))
	if res.Display != "Read big.txt (showing lines 1-2000 of 2500 total lines)" {
		t.Errorf("Display = %q", res.Display)
	}

	wantError(t, run(t, tool, map[string]any{"file_path": "ten.txt", "start_line": 11.0}),
		"start_line 11 is beyond the end of the file: "+tw.abs("ten.txt")+" has 10 lines.")
	wantError(t, run(t, tool, map[string]any{"file_path": "one.txt", "start_line": 2.0}),
		"start_line 2 is beyond the end of the file: "+tw.abs("one.txt")+" has 1 line.")
}

func TestReadFileLongLines(t *testing.T) {
	long := strings.Repeat("é", 2500)
	tw := newTestWorkspace(t, map[string]string{"long.txt": "short\n" + long + "\nend\n"})
	wantOutput(t, run(t, tw.tool(ReadFileName, Options{}), map[string]any{"path": "long.txt"}),
		"[File content truncated: showing lines 1-3 of 3 total lines...]\nshort\n"+strings.Repeat("é", 2000)+"... [truncated]\nend\n")
}

func TestReadFileMedia(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	pdf := []byte("%PDF-1.4\n\x00\x01binary")
	tw := newTestWorkspace(t, map[string]string{"img/x.png": string(png), "doc.PDF": string(pdf), "a.mp3": "ID3\x00"})
	tool := tw.tool(ReadFileName, Options{})
	for _, tc := range []struct {
		path, mime, note string
		data             []byte
	}{
		{"img/x.png", "image/png", "Read image file: img/x.png", png},
		{"doc.PDF", "application/pdf", "Read pdf file: doc.PDF", pdf},
		{"a.mp3", "audio/mpeg", "Read audio file: a.mp3", []byte("ID3\x00")},
	} {
		res := run(t, tool, map[string]any{"path": tc.path})
		wantOutput(t, res, tc.note)
		if len(res.Parts) != 1 || res.Parts[0].InlineData == nil {
			t.Fatalf("%s: parts %v", tc.path, res.Parts)
		}
		blob := res.Parts[0].InlineData
		if blob.MIMEType != tc.mime || !bytes.Equal(blob.Data, tc.data) {
			t.Errorf("%s: inline data %q %q", tc.path, blob.MIMEType, blob.Data)
		}
	}
}

func TestReadFileBinary(t *testing.T) {
	invalid := bytes.Repeat([]byte{0xff, 0xfe, 0x80, 'a'}, 100)
	control := bytes.Repeat([]byte{0x01, 0x02, 'a'}, 100)
	tw := newTestWorkspace(t, map[string]string{
		"data.bin":    "abc\x00def",
		"late.bin":    strings.Repeat("abcdefghi\n", 500) + "\x00", // NUL past the sniffed prefix: text
		"invalid.dat": string(invalid),
		"control.dat": string(control),
	})
	tool := tw.tool(ReadFileName, Options{})
	for _, name := range []string{"data.bin", "invalid.dat", "control.dat"} {
		wantOutput(t, run(t, tool, map[string]any{"path": name}), "Cannot display content of binary file: "+tw.abs(name))
	}
	wantOutput(t, run(t, tool, map[string]any{"path": "late.bin"}), strings.Repeat("abcdefghi\n", 500)+"\x00")
}

func TestIsBinaryIgnoresCharacterCutBySample(t *testing.T) {
	// A multi-byte character straddling the 4 KiB sample boundary is text.
	text := []byte(strings.Repeat("a", sniffLen-1) + "世界")
	if isBinary(text) {
		t.Error("text with a character cut by the sample is binary")
	}
	if !isBinary(bytes.Repeat([]byte{0xc3}, 100)) {
		t.Error("truncated sequences throughout are not binary")
	}
}

// The control characters text holds (tabs, form feeds, a coloured log's
// escapes) do not make it binary; others, past 30% of the sample, do.
func TestIsBinaryCountsOnlyOddControls(t *testing.T) {
	coloured := []byte(strings.Repeat("\x1b[31m\tred\x1b[0m\r\n\f\v\b", 50))
	if isBinary(coloured) {
		t.Error("a coloured log is binary")
	}
	odd := []byte(strings.Repeat("ab\x01\x02\x03", 50))
	if !isBinary(odd) {
		t.Error("text 60% control characters is not binary")
	}
	if isBinary([]byte(strings.Repeat("abcdefgh\x01\x02", 50))) {
		t.Error("text 20% control characters is binary")
	}
}

func TestReadFileOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"main.go": "package main // disk\n"})
	tw.open("main.go", "package main // unsaved buffer\n")
	tw.open("new.go", "package main // never saved\n")
	tool := tw.tool(ReadFileName, Options{})
	wantOutput(t, run(t, tool, map[string]any{"path": "main.go"}), "package main // unsaved buffer\n")
	wantOutput(t, run(t, tool, map[string]any{"path": "new.go"}), "package main // never saved\n")
}

func TestReadFileErrors(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "a\n", "dir/": ""})
	tool := tw.tool(ReadFileName, Options{})

	wantError(t, run(t, tool, map[string]any{"path": "missing.txt"}), "File not found: "+tw.abs("missing.txt"))
	wantError(t, run(t, tool, map[string]any{"path": "dir"}), "Path is a directory, not a file: "+tw.abs("dir"))

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'file_path'"},
		{map[string]any{"file_path": true}, "params/file_path must be string"},
		{map[string]any{"file_path": "  "}, "The 'file_path' parameter must be non-empty."},
		{map[string]any{"path": true}, "params/file_path must be string"},
		{map[string]any{"file_path": "a.txt", "start_line": 0.0}, "params/start_line must be >= 1"},
		{map[string]any{"file_path": "a.txt", "end_line": 0.0}, "params/end_line must be >= 1"},
		{map[string]any{"file_path": "a.txt", "start_line": 5.0, "end_line": 4.0}, "start_line cannot be greater than end_line"},
		{map[string]any{"file_path": "a.txt", "start_line": 1.5}, "params/start_line must be integer"},
		// Older and newer names of one argument: refused unless they agree.
		{map[string]any{"file_path": "a.txt", "path": "b.txt"}, "params/file_path and params/path (its older name) were both given, with different values: give only file_path"},
		{map[string]any{"file_path": "a.txt", "start_line": 2.0, "offset": 1.0}, "offset and limit are older names for start_line and end_line: give only start_line and end_line"},
		{map[string]any{"path": "a.txt", "offset": -1.0}, "Offset must be a non-negative number"},
		{map[string]any{"path": "a.txt", "offset": 1.5}, "params/offset must be integer"},
		{map[string]any{"path": "a.txt", "offset": "2"}, "params/offset must be integer"},
		{map[string]any{"path": "a.txt", "limit": 0.0}, "Limit must be a positive number"},
		{map[string]any{"path": "a.txt", "limit": 2.5}, "params/limit must be integer"},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestReadFileTitle(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"main.go": ""})
	tool := tw.tool(ReadFileName, Options{})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "main.go"}, "ReadFile main.go"},
		{map[string]any{"path": tw.abs("main.go")}, "ReadFile main.go"},
		{map[string]any{"path": "main.go", "offset": 10.0, "limit": 20.0}, "ReadFile main.go (lines 11-30)"},
		{map[string]any{"file_path": "main.go", "start_line": 11.0, "end_line": 30.0}, "ReadFile main.go (lines 11-30)"},
		{map[string]any{"file_path": "main.go", "path": "main.go"}, "ReadFile main.go"},
	} {
		call := build(t, tool, tc.args)
		if call.Title() != tc.want || kindOf(tool) != dialog.KindRead || call.Confirmation() != nil {
			t.Errorf("%v: Title %q Kind %q", tc.args, call.Title(), kindOf(tool))
		}
	}
}

// A file .geminiignore or .gitignore ignores is not read, as Gemini CLI's
// read_file refuses it (its own path or where it leads), in its words;
// glob, grep_search, list_directory and @paths leave it out
// too. An unsaved buffer of it is refused alike, and so is a file in
// .git, which Gemini CLI's ignore rules always hold.
func TestReadFileRefusesIgnored(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		".geminiignore":   "secret.env\nprivate/\n",
		".gitignore":      "build/\n",
		"secret.env":      "TOKEN=1\n",
		"private/notes":   "mine\n",
		"build/out.txt":   "built\n",
		"public.txt":      "hello\n",
		"sub/.gitignore":  "*.log\n",
		"sub/debug.log":   "log\n",
		"sub/keep.txt":    "kept\n",
		"private/buf.txt": "",
		".git/config":     "[remote]\n",
	})
	for link, target := range map[string]string{"alias.txt": "secret.env", "private/public-link.txt": "../public.txt"} {
		platformtest.Symlink(t, target, tw.abs(link))
	}
	tw.open("private/buf.txt", "unsaved\n")
	tool := tw.tool(ReadFileName, Options{})
	for name, real := range map[string]string{
		"secret.env": "secret.env", "private/notes": "private/notes", "build/out.txt": "build/out.txt", "sub/debug.log": "sub/debug.log",
		"alias.txt": "secret.env", "private/public-link.txt": "public.txt", "private/buf.txt": "private/buf.txt",
		".git/config": ".git/config",
	} {
		wantError(t, run(t, tool, map[string]any{"path": name}), "File path '"+tw.abs(real)+"' is ignored by configured ignore patterns.")
	}
	wantOutput(t, run(t, tool, map[string]any{"path": "public.txt"}), "hello\n")
	wantOutput(t, run(t, tool, map[string]any{"path": "sub/keep.txt"}), "kept\n")
}
