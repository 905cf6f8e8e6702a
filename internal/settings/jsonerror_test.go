package settings

import (
	"errors"
	"strings"
	"testing"
)

// Each syntax mistake encoding/json finds in a settings file is said in
// plain words: where, what was expected there, what was found.
func TestJSONMistakesInPlainWords(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // the FileError's text after the path
	}{
		{"{\n  \"model\": {\"name\": \"x\"}\n  \"general\": {}\n}", `:3:3: expected a comma or } after the value (a comma missing?), found '"'`},
		{`{'model': 1}`, `:1:2: expected a key in double quotes, found '\''`},
		{`{"model" 1}`, `:1:10: expected a colon after the key, found '1'`},
		{`{"a": [1 2]}`, `:1:10: expected a comma or ] after the array's element (a comma missing?), found '2'`},
		{"{\"a\": 1}\n}", `:2:1: expected the end of the file after the object's closing } (a } too many?), found '}'`},
		{"{\"a\": \"x\ny\"}", `:1:9: expected the string to go on or end with a double quote; a line break or tab in a string is written \n or \t, found a line break`},
		{`{"a": "\q"}`, `:1:9: expected an escape JSON has after the \ (\" \\ \/ \b \f \n \r \t or \u and four hexadecimal digits), found 'q'`},
		{`{"a": "\u12g4"}`, `:1:12: expected four hexadecimal digits after \u, found 'g'`},
		{`{"a": tru}`, `:1:10: expected true, false or null, written in lower case, found '}'`},
		{`{"a": True}`, `:1:7: expected a value (a string in double quotes, a number, an object, an array, true, false or null), found 'T'`},
		{`{"a": 1.}`, `:1:9: expected a number as JSON writes them (digits, a point and digits, an exponent), found '}'`},
		{`{"a": }`, `:1:7: expected a value (a string in double quotes, a number, an object, an array, true, false or null), found '}'`},
		{`{"a": {"b": 1}`, `:1:14: expected more: the file ends before its object does (a } or ] missing?)`},
	} {
		_, err := parseObject("settings.json", []byte(tc.src))
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("%q: error %v, want a *FileError", tc.src, err)
			continue
		}
		if got := strings.TrimPrefix(err.Error(), "settings file settings.json"); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	// Words it does not know are kept as encoding/json said them.
	if got := jsonMistake("invalid character 'x' somewhere new"); got != "invalid character 'x' somewhere new" {
		t.Errorf("an unknown message became %q", got)
	}
}
