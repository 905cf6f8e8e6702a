package settings

// stripJSONC turns JSON with comments into JSON, as Gemini CLI's
// strip-json-comments does, and also drops trailing commas. Comments and
// commas become spaces (line breaks stay), so offsets in the result are
// offsets in src and a parse error points at the user's own line. Text
// inside strings is never touched; an unterminated comment runs to the end.
func stripJSONC(src []byte) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	lastComma := -1 // a comma seen with only blanks after it, so far
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := i + 2
			for end < len(out) && out[end] != '\n' {
				end++
			}
			blank(i, end)
			i = end - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := i + 2
			for end+1 < len(out) && !(out[end] == '*' && out[end+1] == '/') {
				end++
			}
			end = min(end+2, len(out))
			blank(i, end)
			i = end - 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}

// position is the 1-based line and column of offset in src.
func position(src []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := 0; i < int(offset) && i < len(src); i++ {
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
