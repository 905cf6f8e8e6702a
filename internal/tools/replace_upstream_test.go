package tools

import (
	"cmp"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// The replacement cases of Gemini CLI's packages/core/src/tools/edit.test.ts
// (calculateReplacement, applyReplacement and the edit tool's execute),
// each named as upstream names it so the two stay comparable. Every case
// expects what upstream expects, which is what 0.61 produces: its bundled
// edit.ts replacement code is the code those tests run.

// upstreamReplacement is one case of edit.test.ts's calculateReplacement
// or applyReplacement blocks: the file after the replacement (the file
// unchanged when nothing was found) and how many occurrences were found.
type upstreamReplacement struct {
	name        string
	content     string
	old, new    string
	want        string
	occurrences int
	stage       matchStage // checked when not zero (exact)
}

// replaced is what calculateReplacement's counterpart, locate, does to
// content: the file with every occurrence replaced and how many there
// were, or content unchanged and 0 when nothing was found.
func replaced(content, old, new string) (string, int, matchStage) {
	loc, ok := locate(content, old, new)
	if !ok {
		return content, 0, stageExact
	}
	return loc.apply(content), len(loc.splices), loc.stage
}

func TestReplaceUpstreamCalculateReplacement(t *testing.T) {
	for _, tc := range []upstreamReplacement{
		{
			name:    "should perform an exact replacement",
			content: "hello world", old: "world", new: "moon",
			want: "hello moon", occurrences: 1,
		},
		{
			name:    "should perform a flexible, whitespace-insensitive replacement",
			content: "  hello\n    world\n", old: "hello\nworld", new: "goodbye\nmoon",
			want: "  goodbye\n  moon\n", occurrences: 1, stage: stageIndentation,
		},
		{
			name:    "should return 0 occurrences if no match is found",
			content: "hello world", old: "nomatch", new: "moon",
			want: "hello world", occurrences: 0,
		},
		{
			name:    "should perform a regex-based replacement for flexible intra-line whitespace",
			content: "  function  myFunc( a, b ) {\n    return a + b;\n  }",
			old:     "function myFunc(a, b) {", new: "const yourFunc = (a, b) => {",
			want: "  const yourFunc = (a, b) => {\n    return a + b;\n  }", occurrences: 1, stage: stageWhitespace,
		},
		{
			name:    "should perform a fuzzy replacement when exact match fails but similarity is high",
			content: "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};",
			old:     "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
			new:     "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
			want:    "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};", occurrences: 1, stage: stageFuzzy,
		},
		{
			name:    "should NOT perform a fuzzy replacement when similarity is below threshold",
			content: "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};",
			old:     "function somethingElse() {\n  return false;\n}",
			new:     "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
			want:    "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};", occurrences: 0,
		},
		{
			// 200 lines of 2000 characters: 200 × 2001² comparisons is
			// past the bound, so the fuzzy stage does not look.
			name:    "should NOT perform a fuzzy replacement when the complexity (length * size) is too high",
			content: strings.Join(repeated(strings.Repeat("a", 2000), 200), "\n"),
			old:     strings.Repeat("a", 2000) + "c", new: "replacement",
			want: strings.Join(repeated(strings.Repeat("a", 2000), 200), "\n"), occurrences: 0,
		},
		{
			name:    "should perform multiple fuzzy replacements if multiple valid matches are found",
			content: "\nfunction doIt() {\n  console.log(\"hello\");\n}\n\nfunction doIt() {\n  console.log(\"hello\");\n}\n",
			old:     "function doIt() {\n  console.log('hello');\n}",
			new:     "function doIt() {\n  console.log(\"bye\");\n}",
			want:    "\nfunction doIt() {\n  console.log(\"bye\");\n}\n\nfunction doIt() {\n  console.log(\"bye\");\n}\n", occurrences: 2, stage: stageFuzzy,
		},
		{
			name:    "should preserve trailing newlines in flexible replacement (regression)",
			content: "  line1\n  line2\n  line3\n", old: "line1\nline2", new: "line1-replaced\nline2-replaced",
			want: "  line1-replaced\n  line2-replaced\n  line3\n", occurrences: 1, stage: stageIndentation,
		},
		{
			// Upstream passes allow_multiple; locate finds every occurrence.
			name:    "should correctly increment loop index in flexible replacement when allow_multiple is true (regression)",
			content: "  match1\n  match2\n  match1\n  match2\n", old: "match1\nmatch2", new: "replaced1\nreplaced2\nreplaced3",
			want: "  replaced1\n  replaced2\n  replaced3\n  replaced1\n  replaced2\n  replaced3\n", occurrences: 2, stage: stageIndentation,
		},
		{
			name:    "should correctly rebase indentation in flexible replacement without double-indenting",
			content: "    if (a) {\n        foo();\n    }\n", old: "if (a) {\n    foo();\n}", new: "if (a) {\n    bar();\n}",
			want: "    if (a) {\n        bar();\n    }\n", occurrences: 1, stage: stageIndentation,
		},
		{
			name:    "should correctly rebase indentation in fuzzy replacement without double-indenting",
			content: "    const myConfig = {\n      enableFeature: true,\n      retries: 3\n    };",
			old:     "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
			new:     "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
			want:    "    const myConfig = {\n      enableFeature: false,\n      retries: 5\n    };", occurrences: 1, stage: stageFuzzy,
		},
		{
			// old_string starts at the text of its first line, after the
			// indentation, and keeps the file's indentation on the
			// others; new_string is indented relative to its first line.
			// 0.61 matches it with its regex strategy, this with the
			// whitespace stage; both give every line of new_string the
			// block's indentation on top of its own.
			name:    "should NOT insert extra newlines when replacing a block preceded by a blank line (regression)",
			content: "\n  function oldFunc() {\n    // some code\n  }",
			old:     "function  oldFunc() {\n    // some code\n  }",
			new:     "function newFunc() {\n  // new code\n}",
			want:    "\n  function newFunc() {\n    // new code\n  }", occurrences: 1, stage: stageWhitespace,
		},
		{
			name:    "should NOT insert extra newlines in flexible replacement when old_string starts with a blank line (regression)",
			content: "  // some comment\n\n  function oldFunc() {}",
			old:     "\nfunction oldFunc() {}",
			new:     "\n  function newFunc() {}",
			want:    "  // some comment\n\n  function newFunc() {}", occurrences: 1, stage: stageIndentation,
		},
		// applyReplacement: the literal replacement of every occurrence
		// ($ in new_string is never a JavaScript replacement pattern).
		// Its isNewFile and null-content cases have no file to edit here:
		// creating a file is TestReplaceUpstreamExecute's.
		{
			name:    "should replace oldString with newString in currentContent",
			content: "hello old world old", old: "old", new: "new",
			want: "hello new world new", occurrences: 2,
		},
		{
			name:    "should return currentContent if oldString is empty and not a new file",
			content: "hello world", old: "", new: "new",
			want: "hello world", occurrences: 0,
		},
		{name: "should handle $ literal", content: "price is $100 and pattern end is ' '", old: "price is $100", new: "price is $200", want: "price is $200 and pattern end is ' '", occurrences: 1},
		{name: "should handle $' literal", content: "foo", old: "foo", new: "bar$'baz", want: "bar$'baz", occurrences: 1},
		{name: "should handle $& literal", content: "hello world", old: "hello", new: "$&-replacement", want: "$&-replacement world", occurrences: 1},
		{name: "should handle $` literal", content: "prefix-middle-suffix", old: "middle", new: "new$`content", want: "prefix-new$`content-suffix", occurrences: 1},
		{name: "should handle $1, $2 capture groups literal", content: "test string", old: "test", new: "$1$2replacement", want: "$1$2replacement string", occurrences: 1},
		{name: "should handle normal strings without problematic $", content: "normal text replacement", old: "text", new: "string", want: "normal string replacement", occurrences: 1},
		{name: "should handle multiple occurrences with $ sequences", content: "foo bar foo baz", old: "foo", new: "test$'end", want: "test$'end bar test$'end baz", occurrences: 2},
		{name: "should handle complex regex patterns with $ at end", content: "| select('match', '^[sv]d[a-z]$')", old: "'^[sv]d[a-z]$'", new: "'^[sv]d[a-z]$' # updated", want: "| select('match', '^[sv]d[a-z]$' # updated)", occurrences: 1},
		{name: "should handle empty replacement with problematic $", content: "test content", old: "nothing", new: "replacement$'text", want: "test content", occurrences: 0},
		{name: "should handle $$ (escaped dollar)", content: "price value", old: "value", new: "$$100", want: "price $$100", occurrences: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n, stage := replaced(tc.content, tc.old, tc.new)
			if got != tc.want || n != tc.occurrences {
				t.Errorf("result %q, %d occurrences\nwant   %q, %d", got, n, tc.want, tc.occurrences)
			}
			if tc.stage != stageExact && stage != tc.stage {
				t.Errorf("decided by stage %s, want %s", stage, tc.stage)
			}
		})
	}
}

func repeated(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// upstreamCall is one case of edit.test.ts's execute, Error Scenarios,
// allow_multiple, multiple file edits and disableLLMCorrection blocks, run
// through the tool: the file it leaves (nil when it must not be created or
// changed), or the error it must give.
type upstreamCall struct {
	name    string
	path    string // the file's name, f.txt when empty
	file    string // its content; "" for no file
	args    map[string]any
	llm     *llmEdit // the LLM fix's answer; nil: no fix available
	want    *string  // the file after the edit
	wantErr string   // part of the error, for a failure
	wantFix bool     // the LLM fix must have been asked (else it must not)
	fixOff  bool     // tools.disableLLMCorrection
}

func ptr(s string) *string { return &s }

func TestReplaceUpstreamExecute(t *testing.T) {
	const notFound = "0 occurrences found for old_string"
	const mismatch = "expected 1 occurrence(s) but found"
	// What upstream's mocked fix answers unless a case scripts another.
	failedFix := llmEdit{Explanation: "LLM fix failed"}
	cases := []upstreamCall{
		{
			name: "should edit an existing file and return diff with fileName",
			file: "This is some old text.", args: map[string]any{"old_string": "old", "new_string": "new"},
			want: ptr("This is some new text."),
		},
		{
			name: "should return error if old_string is not found in file",
			file: "Some content.", args: map[string]any{"old_string": "nonexistent", "new_string": "replacement"},
			llm:     &failedFix,
			wantErr: notFound, wantFix: true,
		},
		{
			// LLM-based: the fix (FixLLMEditWithInstruction) corrects
			// old_string; here a scripted utility model answers as
			// upstream's mock does.
			name: "should succeed if FixLLMEditWithInstruction corrects the params",
			file: "This is some original text.", args: map[string]any{"old_string": "wrong text", "new_string": "brand new text"},
			llm:  &llmEdit{Search: "original text", Replace: "brand new text", Explanation: "Corrected the search string to match the file content."},
			want: ptr("This is some brand new text."), wantFix: true,
		},
		{
			name: "should preserve CRLF line endings when editing a file",
			file: "line one\r\nline two\r\n", args: map[string]any{"old_string": "line two", "new_string": "line three"},
			want: ptr("line one\r\nline three\r\n"),
		},
		{
			name: "should create a new file with CRLF line endings if new_string has them",
			args: map[string]any{"old_string": "", "new_string": "new line one\r\nnew line two\r\n"},
			want: ptr("new line one\r\nnew line two\r\n"),
		},
		{
			// LLM-based: the fix judges that no change is needed.
			name: "should return NO_CHANGE if FixLLMEditWithInstruction determines no changes are needed",
			file: "The price is $100.", args: map[string]any{"old_string": "price is $50", "new_string": "price is $100", "instruction": "Ensure the price is $100"},
			llm:     &llmEdit{NoChangesRequired: true, Explanation: "The price is already correctly set to $100."},
			wantErr: "No changes required", wantFix: true,
		},
		// Error Scenarios.
		{name: "should return FILE_NOT_FOUND error", args: map[string]any{"old_string": "any", "new_string": "new"}, wantErr: "File not found"},
		{name: "should return ATTEMPT_TO_CREATE_EXISTING_FILE error", file: "existing content", args: map[string]any{"old_string": "", "new_string": "new content"}, wantErr: "Attempted to create a file that already exists"},
		{name: "should return NO_OCCURRENCE_FOUND error", file: "content", args: map[string]any{"old_string": "not-found", "new_string": "new"}, wantErr: notFound},
		{name: "should return EXPECTED_OCCURRENCE_MISMATCH error", file: "one one two", args: map[string]any{"old_string": "one", "new_string": "new"}, wantErr: mismatch},
		// allow_multiple.
		{name: "should succeed when allow_multiple is true and there are multiple occurrences", file: "foo foo foo", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": true}, want: ptr("bar bar bar")},
		{name: "should succeed when allow_multiple is true and there is exactly 1 occurrence", file: "foo", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": true}, want: ptr("bar")},
		{name: "should fail when allow_multiple is false and there are multiple occurrences", file: "foo foo foo", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": false}, wantErr: mismatch},
		{name: "should default to 1 expected replacement if allow_multiple not specified", file: "foo foo", args: map[string]any{"old_string": "foo", "new_string": "bar"}, wantErr: mismatch},
		{name: "should succeed when allow_multiple is false and there is exactly 1 occurrence", file: "foo", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": false}, want: ptr("bar")},
		{name: "should fail when allow_multiple is true but there are 0 occurrences", file: "baz", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": true}, wantErr: notFound},
		{name: "should fail when allow_multiple is false but there are 0 occurrences", file: "baz", args: map[string]any{"old_string": "foo", "new_string": "bar", "allow_multiple": false}, wantErr: notFound},
		// disableLLMCorrection.
		{
			name: "should NOT call FixLLMEditWithInstruction when disableLLMCorrection is true",
			file: "Some content.", args: map[string]any{"old_string": "nonexistent", "new_string": "replacement"},
			llm: &llmEdit{Search: "Some", Replace: "replacement"}, fixOff: true, wantErr: notFound,
		},
		{
			name: "should call FixLLMEditWithInstruction when disableLLMCorrection is false",
			file: "Some content.", args: map[string]any{"old_string": "nonexistent", "new_string": "replacement"},
			llm: &failedFix, wantErr: notFound, wantFix: true,
		},
		{
			name: "should NOT call FixLLMEditWithInstruction for .json files even when disableLLMCorrection is false",
			path: "test.json", file: `{"key": "value"}`, args: map[string]any{"old_string": "nonexistent", "new_string": "replacement"},
			llm: &failedFix, wantErr: "No LLM correction was tried: it is not made for JSON files and notebooks",
		},
		{
			name: "should NOT call FixLLMEditWithInstruction for .ipynb files even when disableLLMCorrection is false",
			path: "notebook.ipynb", file: `{"cells": []}`, args: map[string]any{"old_string": "nonexistent", "new_string": "replacement"},
			llm: &failedFix, wantErr: "No LLM correction was tried: it is not made for JSON files and notebooks",
		},
	}
	// multiple file edits: removing two or three lines from the second
	// on, new_string empty (upstream draws the sizes at random).
	for i := range 10 {
		lines := make([]string, 5+i%6)
		for j := range lines {
			lines[j] = fmt.Sprintf("File %d, Line %d", i, j+1)
		}
		content := strings.Join(lines, "\n") + "\n"
		remove := strings.Join(lines[1:1+2+i%2], "\n") + "\n"
		cases = append(cases, upstreamCall{
			name: fmt.Sprintf("should perform multiple removals and report correct diff stats/file %d", i),
			file: content, args: map[string]any{"old_string": remove, "new_string": ""},
			want: ptr(strings.Replace(content, remove, "", 1)),
		})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := cmp.Or(tc.path, "f.txt")
			files := map[string]string{}
			if tc.file != "" {
				files[path] = tc.file
			}
			tw := newTestWorkspace(t, files)
			var opts Options
			var u *fakeUtility
			if tc.llm != nil {
				u = &fakeUtility{answer: tc.llm}
				opts.Utility = u
				opts.DisableLLMCorrection = tc.fixOff
			}
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			args := map[string]any{"file_path": path, "instruction": "test"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := run(t, tw.proposing(p, ReplaceName, opts), args)
			if tc.want != nil {
				if res.Error != "" {
					t.Fatalf("error %q, want the file %q", res.Error, *tc.want)
				}
				if c := p.only(t); c.After != *tc.want {
					t.Errorf("file %q, want %q", c.After, *tc.want)
				}
			} else {
				if res.Error == "" || len(p.changes) != 0 {
					t.Fatalf("output %q and %d changes, want an error containing %q", res.Output, len(p.changes), tc.wantErr)
				}
				wantContains(t, res.Error, tc.wantErr)
			}
			if asked := u != nil && u.count() > 0; asked != tc.wantFix {
				t.Errorf("LLM fix asked: %v, want %v", asked, tc.wantFix)
			}
		})
	}
}

// The fuzzy stage through the tool: the model is told which lines were
// taken for old_string. A window's line break is kept once, as Gemini
// CLI's flexible strategy keeps it: its fuzzy one doubles it after a
// new_string ending with a line break ("A line one\nB line two\n\nc…")
// and leaves an empty line for an empty one ("\nc line three\n").
func TestReplaceFuzzy(t *testing.T) {
	const file = "a line one\nb line two\nc line three\n"
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{name: "new_string ending with a line break", file: file, old: "a line one\nb line twoo\n", new: "A line one\nB line two\n", want: "A line one\nB line two\nc line three\n"},
		{name: "an empty new_string deletes the lines", file: file, old: "a line one\nb line twoo\n", new: "", want: "c line three\n"},
		{name: "without line breaks at the end", file: file, old: "a line one\nb line twoo", new: "A\nB", want: "A\nB\nc line three\n"},
		{name: "a CRLF file", file: strings.ReplaceAll(file, "\n", "\r\n"), old: "a line one\nb line twoo", new: "A\nB", want: "A\r\nB\r\nc line three\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"f.txt": tc.file})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "f.txt", "old_string": tc.old, "new_string": tc.new})
			wantOutput(t, res, "Successfully modified file: "+tw.abs("f.txt")+" (1 replacements). old_string matched after "+stageFuzzy.what()+
				". The lines replaced, which differ from old_string: 1-2.")
			if c := p.only(t); c.After != tc.want {
				t.Errorf("file %q, want %q", c.After, tc.want)
			}
		})
	}
}

// The fuzzy stage's limits, as 0.61 draws them (each checked against its
// bundled code): a tenth of old_string's length is still close enough,
// whitespace differences count a tenth, old_string needs ten UTF-16 code
// units (an emoji is two), and distances count code units.
func TestFuzzyLimits(t *testing.T) {
	for _, tc := range []struct {
		name, file, old string
		found           bool
	}{
		{name: "one difference in ten", file: "x\nabcdefghiX\ny\n", old: "abcdefghij", found: true},
		{name: "two differences in ten", file: "abcdefghXY\n", old: "abcdefghij"},
		{name: "whitespace differences count a tenth", file: "abcdef\n", old: "a b c d e f", found: true}, // 0.61's regex strategy finds it first
		{name: "nine characters are too few", file: "abcdefghX\n", old: "abcdefghi"},
		{name: "five emoji are ten code units, one of them different", file: "😀😀😀😀😁\n", old: "😀😀😀😀😀", found: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc, ok := locate(tc.file, tc.old, "NEW")
			if found := ok && loc.stage == stageFuzzy; found != tc.found {
				t.Errorf("fuzzy match %v (found %v by stage %s), want %v", found, ok, loc.stage, tc.found)
			}
		})
	}
}
