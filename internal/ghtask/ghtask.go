package ghtask

import "strings"

// Mention is what a comment must name to start the agent.
const Mention = "@gemini-ls"

// MaxSlug bounds a branch's slug.
const MaxSlug = 40

// Name is the name of a task from its prompt: a slug of its first
// line, then "-" and suffix (the editor gives a few random hex digits,
// so that two tasks of one prompt get two branches); a dispatch's task
// input, its branch gemini/<Name>.
func Name(prompt, suffix string) string {
	name := Slug(FirstLine(prompt))
	if suffix = strings.TrimSpace(suffix); suffix != "" {
		name += "-" + Slug(suffix)
	}
	return name
}

// FirstLine is s's first line that is not blank, cut to 72 runes.
func FirstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return Cut(line, 72)
		}
	}
	return ""
}

func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// Slug is s as a branch name's part: lower-case ASCII letters and
// digits, runs of anything else one dash, at most MaxSlug bytes; "task"
// when nothing is left.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= MaxSlug {
				break
			}
			continue
		}
		dash = true
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "task"
	}
	return out
}
