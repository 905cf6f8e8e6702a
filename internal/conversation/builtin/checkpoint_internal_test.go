package builtin

import "testing"

// Tags are file names as JavaScript's encodeURIComponent makes them, and
// read back as Gemini CLI's decodeTagName reads them.
func TestTagEncoding(t *testing.T) {
	for tag, want := range map[string]string{
		"ada":           "ada",
		"before lunch":  "before%20lunch",
		"a.b-c_d!~*'()": "a.b-c_d!~*'()",
		"größe":         "gr%C3%B6%C3%9Fe",
		"50%+?#&=":      "50%25%2B%3F%23%26%3D",
		"..":            "..",
	} {
		if got := encodeTag(tag); got != want {
			t.Errorf("encodeTag(%q) = %q, want %q", tag, got, want)
		}
		if got := decodeTag(want); got != tag {
			t.Errorf("decodeTag(%q) = %q, want %q", want, got, tag)
		}
	}
	// Not valid as a URI component: each %XX is the character of its code.
	if got := decodeTag("a%E9b%zz"); got != "a\u00e9b%zz" {
		t.Errorf("decodeTag of a malformed name = %q", got)
	}
}
