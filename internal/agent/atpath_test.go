package agent

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// refWorkspace is a workspace over a temp directory holding files.
func refWorkspace(t testing.TB, files map[string]string) (*workspace.Workspace, *workspace.Documents, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{root}, docs)
	if err != nil {
		t.Fatal(err)
	}
	return ws, docs, root
}

// texts is the text of each part; inline data shows as "<mime>".
func texts(parts []*genai.Part) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if p.InlineData != nil {
			out[i] = "<" + p.InlineData.MIMEType + ">"
		} else {
			out[i] = p.Text
		}
	}
	return out
}

func expand(t *testing.T, ws *workspace.Workspace, prompt string) []string {
	t.Helper()
	parts, err := ExpandReferences(context.Background(), ws, prompt)
	if err != nil {
		t.Fatalf("ExpandReferences(%q): %v", prompt, err)
	}
	return texts(parts)
}

func wantParts(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("parts:\n%q\nwant:\n%q", got, want)
	}
}

func TestExpandReferencesLayout(t *testing.T) {
	ws, docs, root := refWorkspace(t, map[string]string{
		"src/a.go":       "package a\n\nfunc A() {}\n",
		"src/b.go":       "package b\n",
		"my file.txt":    "with spaces\n",
		"img/logo.png":   "\x89PNG\r\n\x1a\n",
		"deep/widget.ts": "export const w = 1;\n",
	})

	wantParts(t, expand(t, ws, "explain @src/a.go please"), []string{
		"explain @src/a.go please",
		"\n--- Content from referenced files ---",
		"\nContent from @src/a.go:\n", "package a\n\nfunc A() {}",
		"\n--- End of content ---",
	})

	// The open buffer's unsaved text is what the model reads.
	docs.Open(workspace.Document{Path: filepath.Join(root, "src/a.go"), URI: "file://" + filepath.Join(root, "src/a.go"), Version: 2, Text: "package a // unsaved\n"})
	wantParts(t, expand(t, ws, "@src/a.go"), []string{
		"@src/a.go",
		"\n--- Content from referenced files ---",
		"\nContent from @src/a.go:\n", "package a // unsaved",
		"\n--- End of content ---",
	})

	// A directory reads everything below it; an escaped space (quoted on
	// Windows, where "\" is a separator: unescapePathOn); a name not found
	// is searched for; a trailing full stop ends the path.
	spaced := `@my\ file.txt`
	if runtime.GOOS == "windows" {
		spaced = `@"my file.txt"`
	}
	wantParts(t, expand(t, ws, `compare @src with `+spaced+` and @widget.`), []string{
		"compare @src/** with @my file.txt and @deep/widget.ts.",
		"\n--- Content from referenced files ---",
		"\nContent from @widget:\n", "export const w = 1;", // labelled as typed, as Gemini CLI does
		"\nContent from @my file.txt:\n", "with spaces",
		"\nContent from @src/a.go:\n", "package a // unsaved",
		"\nContent from @src/b.go:\n", "package b",
		"\n--- End of content ---",
	})

	// An image named explicitly comes as data.
	wantParts(t, expand(t, ws, "what is in @img/logo.png?"), []string{
		"what is in @img/logo.png?",
		"\n--- Content from referenced files ---",
		"<image/png>",
		"\n--- End of content ---",
	})
}

func TestExpandReferencesLeavesOtherTextAlone(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"example.com": "a file named like a domain\n", "a.go": "package a\n"})
	for _, prompt := range []string{
		"mail user@example.com about it",
		"no references here",
		"a lone @ sign",
		`an escaped \@a.go`,
	} {
		wantParts(t, expand(t, ws, prompt), []string{prompt})
	}
	// A reference that names nothing goes as typed, and the model is
	// told it was not attached: never dropped in silence.
	wantParts(t, expand(t, ws, "@nowhere.go is not a file"), []string{
		"@nowhere.go is not a file",
		"\nSkipped 1 item(s):\n- @nowhere.go (Reason: no file or directory in the workspace matches it)",
	})
	// Without a workspace, the text goes as it is.
	parts, err := ExpandReferences(context.Background(), nil, "explain @a.go")
	if err != nil || !slices.Equal(texts(parts), []string{"explain @a.go"}) {
		t.Errorf("nil workspace: %q, %v", texts(parts), err)
	}
}

func TestExpandReferencesSkipsIgnoredAndUnreadable(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{
		".gitignore": "secret.env\n",
		"secret.env": "TOKEN=x\n",
		"a.go":       "package a\n",
		"lib.zip":    "PK",
	})
	got := expand(t, ws, "use @secret.env and @a.go")
	wantParts(t, got, []string{
		"use @secret.env and @a.go",
		"\n--- Content from referenced files ---",
		"\nContent from @a.go:\n", "package a",
		"\nSkipped 1 item(s):\n- @secret.env (Reason: ignored by .gitignore or .geminiignore)",
		"\n--- End of content ---",
	})
	if strings.Contains(strings.Join(got, ""), "TOKEN") {
		t.Error("an ignored file was read")
	}
	wantParts(t, expand(t, ws, "use @secret.env"), []string{
		"use @secret.env",
		"\nSkipped 1 item(s):\n- @secret.env (Reason: ignored by .gitignore or .geminiignore)",
	})
	// A default exclude: found, but not read, and the model is told so.
	wantParts(t, expand(t, ws, "unpack @lib.zip"), []string{
		"unpack @lib.zip",
		"\n--- Content from referenced files ---",
		noReferencedFiles,
		"\nSkipped 1 item(s):\n- 1 file(s) (Reason: excluded by the exclude patterns or the default excludes)",
	})
}

func TestParseReferences(t *testing.T) {
	for prompt, want := range map[string][]string{
		"@a.go":                   {"a.go"},
		"see @a.go, @b.go; @c.go": {"a.go", "b.go", "c.go"},
		"(@src/x.go)":             {"src/x.go"},
		`@my\ file\ 2.txt now`:    {"my file 2.txt"},
		`@"quoted name.txt"`:      {"quoted name.txt"},
		"@file.test.go.":          {"file.test.go"},
		"a@b.c x@y":               nil,
		"@":                       nil,
		"line\n@dir/ rest":        {"dir/"},
		"@a.go#L3-5, @b.go#L7":    {"a.go", "b.go"},
		"@a#b.go#L2-L4":           {"a#b.go"},
		"@a.go#L3x @#L4 @a.go#L":  {"a.go#L3x", "#L4", "a.go#L"},
	} {
		var got []string
		for _, r := range parseReferencesOn("linux", prompt) {
			got = append(got, r.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("parseReferencesOn(linux, %q) = %q, want %q", prompt, got, want)
		}
	}
}

// On Windows a backslash in a reference is a separator, kept as typed,
// and a name with a space is quoted, as 0.61 reads them there.
func TestParseReferencesWindows(t *testing.T) {
	for prompt, want := range map[string][]string{
		`@src\main.go`:                  {`src\main.go`},
		`see @src\main.go, @docs/a.md`:  {`src\main.go`, "docs/a.md"},
		`@"My Documents\notes.txt" now`: {`My Documents\notes.txt`},
		`@C:\repo\a.go#L3-5`:            {`C:\repo\a.go`},
		`@dir\`:                         {`dir\`},
	} {
		var got []string
		for _, r := range parseReferencesOn("windows", prompt) {
			got = append(got, r.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("parseReferencesOn(windows, %q) = %q, want %q", prompt, got, want)
		}
	}
}

// @sub/file attaches everywhere, and @sub\file on Windows too: the same
// file, labelled as typed.
func TestExpandReferencesEitherSeparator(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"sub/file.txt": "the file"})
	typed := []string{"sub/file.txt"}
	if runtime.GOOS == "windows" {
		typed = append(typed, `sub\file.txt`)
	}
	for _, name := range typed {
		got := expand(t, ws, "look at @"+name)
		if !slices.Contains(got, "\nContent from @"+name+":\n") || !slices.Contains(got, "the file") {
			t.Errorf("@%s: got %q, want the file attached", name, got)
		}
	}
}

// "@path#L10-20" sends those lines only, saying which lines of how many
// they are; a range past the end stops there, and one starting after it
// is not read, with the reason.
func TestExpandReferencesLineRanges(t *testing.T) {
	ws, docs, root := refWorkspace(t, map[string]string{
		"src/a.go":     "package a\n\nfunc A() {\n\treturn\n}\n",
		".gitignore":   "secret.env\n",
		"secret.env":   "TOKEN=x\nMORE=y\n",
		"crlf.txt":     "one\r\ntwo\r\nthree",
		"dir/b.go":     "package b\n",
		"img/logo.png": "\x89PNG\r\n\x1a\n",
	})

	wantParts(t, expand(t, ws, "what does @src/a.go#L3-4 do?"), []string{
		"what does @src/a.go#L3-4 do?",
		"\n--- Content from referenced files ---",
		"\nContent from @src/a.go#L3-4 (lines 3-4 of 5):\n", "func A() {\n\treturn",
		"\n--- End of content ---",
	})

	// One line; GitHub's "#L1-L2"; the file's last line without a break;
	// the open buffer's text; a range after the whole file.
	docs.Open(workspace.Document{Path: filepath.Join(root, "src/a.go"), URI: "file://" + filepath.Join(root, "src/a.go"), Version: 2, Text: "package a // unsaved\n\nfunc A() {}\n"})
	wantParts(t, expand(t, ws, "@src/a.go#L1 and @crlf.txt#L2-L3 and @src/a.go"), []string{
		"@src/a.go#L1 and @crlf.txt#L2-3 and @src/a.go",
		"\n--- Content from referenced files ---",
		"\nContent from @src/a.go:\n", "package a // unsaved\n\nfunc A() {}",
		"\nContent from @src/a.go#L1 (line 1 of 3):\n", "package a // unsaved",
		"\nContent from @crlf.txt#L2-3 (lines 2-3 of 3):\n", "two\nthree",
		"\n--- End of content ---",
	})

	// Past the end: what there is, and the model is told where the file
	// ends; starting after the end, nothing, and why.
	wantParts(t, expand(t, ws, "@crlf.txt#L2-9 @crlf.txt#L7-9"), []string{
		"@crlf.txt#L2-9 @crlf.txt#L7-9",
		"\n--- Content from referenced files ---",
		"\nContent from @crlf.txt#L2-9 (lines 2-3 of 3; lines 2-9 were asked for, and the file ends at line 3):\n", "two\nthree",
		"\nSkipped 1 item(s):\n- @crlf.txt#L7-9 (Reason: line 7 is past the end of the file, which has 3 lines)",
		"\n--- End of content ---",
	})

	// Nothing read: the prompt goes as typed, with the reasons.
	wantParts(t, expand(t, ws, "@dir#L1-2 @img/logo.png#L1 @secret.env#L1 @crlf.txt#L3-1 @crlf.txt#L0"), []string{
		"@dir#L1-2 @img/logo.png#L1 @secret.env#L1 @crlf.txt#L3-1 @crlf.txt#L0",
		"\nSkipped 5 item(s):" +
			"\n- @secret.env#L1 (Reason: ignored by .gitignore or .geminiignore)" +
			"\n- @dir#L1-2 (Reason: a line range needs a file, and this is a directory)" +
			"\n- @img/logo.png#L1 (Reason: a line range needs a text file, and this is image/png)" +
			"\n- @crlf.txt#L3-1 (Reason: the line range 3-1 ends before it starts)" +
			"\n- @crlf.txt#L0 (Reason: lines are numbered from 1)",
	})
}

// "@path#L…" keeps from the model what "@path" keeps: a file in .git,
// and a link to an ignored file that the reference's search finds, are
// not read, and the model is told so in the whole file's words.
func TestExpandReferencesLineRangesOfHiddenFiles(t *testing.T) {
	ws, _, root := refWorkspace(t, map[string]string{
		".geminiignore": "secret.txt\n",
		"secret.txt":    "hunter2 in secret\n",
		".git/config":   "# hunter2 in git\n",
		"plain.txt":     "visible\n",
	})
	platformtest.Symlink(t, "secret.txt", filepath.Join(root, "alias.txt"))
	got := expand(t, ws, "@.git/config#L1 @alia#L1 @alias.txt#L1 @plain.txt#L1")
	if text := strings.Join(got, ""); strings.Contains(text, "hunter2") || !strings.Contains(text, "visible") {
		t.Errorf("a line range of a hidden file was read, or the plain one was not:\n%q", got)
	}
	wantContains := func(want string) {
		t.Helper()
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("%q not in %q", want, got)
		}
	}
	wantContains("- @.git/config#L1 (Reason: ignored by .gitignore or .geminiignore)")
	wantContains("- @alia#L1 (Reason: no file or directory in the workspace matches it)")
	wantContains("- @alias.txt#L1 (Reason: ignored by .gitignore or .geminiignore)")
}

// A range is read 2,000 lines at most, as read_file reads, and the model
// is told it got fewer than it asked for.
func TestExpandReferencesLongLineRange(t *testing.T) {
	ws, _, _ := refWorkspace(t, map[string]string{"long.txt": strings.Repeat("x\n", 2500)})
	got := expand(t, ws, "@long.txt#L2-2500")
	if want := "\nContent from @long.txt#L2-2500 (lines 2-2001 of 2500; lines 2-2500 were asked for, and a range is read 2000 lines at most):\n"; got[2] != want {
		t.Errorf("label = %q, want %q", got[2], want)
	}
	if n := strings.Count(got[3], "x"); n != 2000 {
		t.Errorf("%d lines sent, want 2000", n)
	}
}
