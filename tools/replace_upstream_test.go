package tools

import "testing"

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
