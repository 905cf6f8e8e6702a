package tools

// MaxFunctionNameLength is the longest function name the Gemini API takes.
const MaxFunctionNameLength = 64

// FunctionNameChar reports whether r may appear in a function name the
// Gemini API accepts: letters, digits, _ . : and -.
func FunctionNameChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '.' || r == ':' || r == '-'
}

// ValidFunctionName reports whether the Gemini API accepts name: a letter
// or _, then up to 63 name characters. A tool with any other name would
// make every request fail. (Checked by hand: a regexp with that bound
// would be compiled at every start of gemini-ls.)
func ValidFunctionName(name string) bool {
	if name == "" || len(name) > MaxFunctionNameLength || !startsName(name[0]) {
		return false
	}
	for _, r := range name {
		if !FunctionNameChar(r) {
			return false
		}
	}
	return true
}

// startsName reports whether a name may begin with b: a letter or _.
func startsName(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
