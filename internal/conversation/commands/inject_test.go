package commands

import (
	"strings"
	"testing"
)

// Gemini CLI's injectionParser.test.ts, case for case.
func TestExtractInjections(t *testing.T) {
	tests := []struct {
		name, prompt, trigger string
		want                  []injection
	}{
		{"no trigger", "This is a simple prompt without injections.", shellTrigger, nil},
		{"single", "Run this command: !{ls -la}", shellTrigger, []injection{{"ls -la", 18, 27}}},
		{"multiple", "First: !{cmd1}, Second: !{cmd2}", shellTrigger, []injection{{"cmd1", 7, 14}, {"cmd2", 24, 31}}},
		{"@ trigger", "Read this file: @{path/to/file.txt}", fileTrigger, []injection{{"path/to/file.txt", 16, 35}}},
		{"start and end", "!{start} middle text !{end}", shellTrigger, []injection{{"start", 0, 8}, {"end", 21, 27}}},
		{"adjacent", "!{A}!{B}", shellTrigger, []injection{{"A", 0, 4}, {"B", 4, 8}}},
		{"empty", "Empty: !{}", shellTrigger, []injection{{"", 7, 10}}},
		{"trimmed", "!{  \n command with space  \t }", shellTrigger, []injection{{"command with space", 0, 29}}},
		{"not the trigger", "Not a trigger: !(cmd) or {cmd} or ! {cmd}", shellTrigger, nil},
		{"closing brace before", "Ignore this } then !{run}", shellTrigger, []injection{{"run", 19, 25}}},
		{"non-greedy", "Run !{ls -l}} extra braces", shellTrigger, []injection{{"ls -l", 4, 12}}},
		{"JSON", `Send JSON: !{curl -d '{"key": "value"}'}`, shellTrigger, []injection{{`curl -d '{"key": "value"}'`, 11, 40}}},
		{"awk", `Process text: !{awk '{print $1}' file.txt}`, shellTrigger, []injection{{`awk '{print $1}' file.txt`, 14, 42}}},
		{"nested levels", "!{level1 {level2 {level3}} suffix}", shellTrigger, []injection{{"level1 {level2 {level3}} suffix", 0, 34}}},
		{"path with braces", "Analyze @{path/with/{braces}/file.txt}", fileTrigger, []injection{{"path/with/{braces}/file.txt", 8, 38}}},
		{"trigger inside", `!{echo "The trigger is !{ confusing }"}`, shellTrigger, []injection{{`echo "The trigger is !{ confusing }"`, 0, 39}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractInjections(tt.prompt, tt.trigger, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("injection %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestExtractInjectionsUnclosed(t *testing.T) {
	tests := []struct {
		prompt, trigger, command string
		want                     []string
	}{
		{"This prompt has !{an unclosed trigger", shellTrigger, "", []string{"invalid syntax: unclosed injection starting at index 16 ('!{')"}},
		{"This fails: !{outer {inner", shellTrigger, "", []string{"starting at index 12 ('!{')"}},
		{"Failing !{command", shellTrigger, "test-command", []string{"invalid syntax in command 'test-command': unclosed injection starting at index 8"}},
		{"Analyze @{path/with/braces{example.txt}", fileTrigger, "", []string{"starting at index 8 ('@{')", "unbalanced braces are not supported directly"}},
	}
	for _, tt := range tests {
		_, err := extractInjections(tt.prompt, tt.trigger, tt.command)
		if err == nil {
			t.Errorf("%q: no error", tt.prompt)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", tt.prompt, err, w)
			}
		}
	}
}
