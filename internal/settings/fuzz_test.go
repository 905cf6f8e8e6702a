package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// jsoncSeeds are settings files as users write them: comments of both
// kinds, trailing commas, comment markers and escapes inside strings,
// unterminated comments and strings.
var jsoncSeeds = []string{
	"",
	"{}",
	"{\"a\": 1 // one\n}",
	"{/* x\ny */\"a\": 1}",
	`{"url": "http://x/*y*/"}`,
	`{"a": "say \"//hi\""}`,
	`{"a": 1,}`,
	"[1, 2, // end\n]",
	`{"a": ",}"}`,
	"{} /* open",
	"{\n  // c1\n  \"x\": 1, /* c2 */\n  \"mcpServers\": {\"q\": {\"command\": \"z\"}}\n}\n",
	"{\"b\": true, \"mcpServers\": {\"q\": {\"env\": {\"A\": \"1\"}, \"command\": \"z\"}}}\n",
	"{\n  \"skills\": {\n    \"disabled\": [\n      \"a\"\n    ],\n    \"enabled\": true\n  }\n}",
	"{\"a\": 1, \"a\": {\"b\": 2}}",
	"{\"a\": \"\\",
	"{\"a\": [1, {\"b\": null},],}",
	"\ufeff{}",
}

// FuzzSettingsJSONC: stripping comments keeps every offset (same length,
// line breaks in place, only comment and comma bytes blanked), leaves
// plain JSON (its own output too) as it is; and an edit of a file that
// parses leaves a file that parses, holding the value set (or no longer
// the member deleted) and every other top-level member as it was.
//
//	go test -run '^$' -fuzz FuzzSettingsJSONC ./internal/settings/
func FuzzSettingsJSONC(f *testing.F) {
	for i, s := range jsoncSeeds {
		f.Add([]byte(s), "mcpServers", "a", "v<&>\u2028", uint8(i))
	}
	f.Add([]byte("{\"x\": {\"y\": 1} // keep\n}"), "x", "y", "2", uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, key1, key2, value string, op uint8) {
		clean := stripJSONC(src)
		checkStripped(t, src, clean)

		obj, err := parseObject("settings.json", src)
		if err != nil {
			return
		}
		keys := []string{key1, key2}[:1+int(op%2)]
		var v any = value
		if op&2 != 0 {
			v = map[string]any{"k": value, "n": len(value)}
		}
		raw, err := marshalPlain(v)
		if err != nil {
			t.Fatal(err)
		}
		var want any // what raw reads back as: invalid UTF-8 is U+FFFD
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		var out []byte
		if op&4 == 0 {
			out, err = setRaw(src, keys, raw)
		} else {
			_, had := lookupKeys(obj, keys...)
			if !had {
				return
			}
			out, err = deleteMember(src, keys)
		}
		if err != nil {
			return // refused, and nothing written
		}
		if out, err = restringify(src, out); err != nil {
			t.Fatalf("restringify of an edit of %q: %v", src, err)
		}
		after, err := parseObject("settings.json", out)
		if err != nil {
			t.Fatalf("the edit of %q (keys %q) does not parse: %v\n%s", src, keys, err, out)
		}
		got, has := lookupKeys(after, keys...)
		if op&4 == 0 && (!has || !reflect.DeepEqual(got, want)) {
			t.Fatalf("after setting %q to %s in %q: got %#v\n%s", keys, raw, src, got, out)
		}
		if op&4 != 0 && has {
			t.Fatalf("after deleting %q from %q it is still %#v\n%s", keys, src, got, out)
		}
		for k, v := range obj {
			if k != keys[0] && !reflect.DeepEqual(after[k], v) {
				t.Fatalf("editing %q changed %q: %#v → %#v\n%s", keys, k, v, after[k], out)
			}
		}
		for k := range after {
			if _, ok := obj[k]; !ok && k != keys[0] {
				t.Fatalf("editing %q added %q\n%s", keys, k, out)
			}
		}
	})
}

func checkStripped(t *testing.T, src, clean []byte) {
	t.Helper()
	if len(clean) != len(src) {
		t.Fatalf("stripJSONC(%q) changed the length: %d → %d", src, len(src), len(clean))
	}
	for i := range src {
		if clean[i] != src[i] && (clean[i] != ' ' || src[i] == '\n' || src[i] == '\r') {
			t.Fatalf("stripJSONC(%q) wrote %q at %d over %q", src, clean[i], i, src[i])
		}
	}
	if json.Valid(src) && !bytes.Equal(clean, src) {
		t.Fatalf("stripJSONC changed valid JSON %q to %q", src, clean)
	}
	// What it makes of a file is final: stripped again, it stays.
	if again := stripJSONC(clean); json.Valid(clean) && !bytes.Equal(again, clean) {
		t.Fatalf("stripJSONC(%q) = %q, then %q", src, clean, again)
	}
}

// FuzzDotenv: whatever a .env holds, every key read is a dotenv name,
// each value comes from the file, and a plain KEY=value line after it
// (a later line wins) or alone is read as written, quoted or not.
//
//	go test -run '^$' -fuzz FuzzDotenv ./internal/settings/
func FuzzDotenv(f *testing.F) {
	for _, s := range []string{
		"# a comment\nPLAIN=value\nSPACED = spaced value  \nexport EXPORTED=yes\n",
		"COMMENTED=before # after\nHASH_IN_QUOTES='a # b'\n",
		"DOUBLE=\"line1\\nline2\"\nSINGLE='raw\\n'\nBACKTICK=`it's \"quoted\"`\n",
		"MULTI=\"first\nsecond\" # comment\nCOLON: colon value\nEMPTY=\nEMPTY_COMMENT= # nothing\n",
		"not a line\nTRAILING=\"a\" b\nDOTTED.KEY-1=ok\nPLAIN=later wins\r\n",
		"OPEN=\"never closed\n",
		"ESC=\"a\\\"b\"\n",
		"\r\rA=1\r",
	} {
		f.Add([]byte(s), "GEMINI_API_KEY", "abc def")
	}
	name := regexp.MustCompile(`^[\w.-]+$`)
	f.Fuzz(func(t *testing.T, src []byte, key, value string) {
		got := parseDotenv(src)
		for k := range got {
			if !name.MatchString(k) {
				t.Fatalf("parseDotenv(%q) read key %q", src, k)
			}
		}
		if !name.MatchString(key) || key == "export" || strings.ContainsAny(value, "\r\n") {
			return
		}
		plain := strings.TrimSpace(value)
		if !strings.ContainsAny(value, "#'\"`") {
			line := "\n" + key + "=" + value + "\n"
			if v := parseDotenv(append(bytes.Clone(src), line...))[key]; v != plain {
				t.Fatalf("%q after %q read as %q", line, src, v)
			}
		}
		if !strings.Contains(value, "'") {
			if v, ok := parseDotenv([]byte(key + "='" + value + "'"))[key]; !ok || v != value {
				t.Fatalf("%s='%s' read as %q, %v", key, value, v, ok)
			}
		}
		if !strings.ContainsAny(value, `"\`) {
			if v, ok := parseDotenv([]byte(key + `="` + value + `"`))[key]; !ok || v != value {
				t.Fatalf(`%s="%s" read as %q, %v`, key, value, v, ok)
			}
		}
	})
}
