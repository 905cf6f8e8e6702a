package dialog

import "strings"

// Fence wraps body in a Markdown code fence longer than any backtick run
// inside it (for tool displays, and front ends showing a tool's details).
func Fence(lang, body string) string {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return f + lang + "\n" + body + f
}
