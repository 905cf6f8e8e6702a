package dialog

import "testing"

// A fence outlasts every backtick run of its body, so the body cannot
// close it early, and ends on a line of its own.
func TestFence(t *testing.T) {
	for _, c := range []struct{ lang, body, want string }{
		{"", "hi", "```\nhi\n```"},
		{"sh", "ls\n", "```sh\nls\n```"},
		{"markdown", "a ``` b", "````markdown\na ``` b\n````"},
		{"", "`x` ````` y", "``````\n`x` ````` y\n``````"},
	} {
		if got := Fence(c.lang, c.body); got != c.want {
			t.Errorf("Fence(%q, %q) = %q, want %q", c.lang, c.body, got, c.want)
		}
	}
}
