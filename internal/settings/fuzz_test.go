package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
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
// parses changes one stretch of it, the value set (or the member added,
// after what the object held; or the object a member is deleted from),
// every other byte kept, keeps every comment but those in the text it
// replaces or deletes, and leaves a file that parses as the old one did
// with the one member set (or deleted): a round trip.
//
//	go test -run '^$' -fuzz FuzzSettingsJSONC ./internal/settings/
func FuzzSettingsJSONC(f *testing.F) {
	for i, s := range jsoncSeeds {
		f.Add([]byte(s), "mcpServers", "a", "v<&>\u2028", uint8(i))
	}
	f.Add([]byte("{\"x\": {\"y\": 1} // keep\n}"), "x", "y", "2", uint8(3))
	f.Add([]byte("{\n  // servers\n  \"x\": {\n    // none yet\n  }\n}"), "x", "a", "v", uint8(1))
	f.Add([]byte("{\"x\": {/* only */ \"y\": 1, // y\n}}"), "x", "y", "", uint8(5))
	f.Add([]byte("{\"x\": {\"y\": 1 /* y */, \"z\": 2 // z\n}}"), "x", "", "v", uint8(2))
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
		region, doomed := editExtent(src, keys, raw, op&4 != 0)
		checkOneStretch(t, src, out, region, keys)
		if out, err = restringify(src, out); err != nil {
			t.Fatalf("restringify of an edit of %q: %v", src, err)
		}
		checkCommentsKept(t, src, out, doomed)
		after, err := parseObject("settings.json", out)
		if err != nil {
			t.Fatalf("the edit of %q (keys %q) does not parse: %v\n%s", src, keys, err, out)
		}
		checkRoundTrip(t, src, after, keys, want, op&4 != 0)
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

// span is a stretch of a file, [from, to).
type span struct{ from, to int }

// editExtent is where setRaw (or deleteMember, del) edits src at keys:
// the stretch it may change, and the stretches whose comments go with
// the text it replaces or deletes.
func editExtent(src []byte, keys []string, raw []byte, del bool) (region span, doomed []span) {
	clean := stripJSONC(src)
	open := skipSpace(clean, 0)
	if open == len(clean) {
		return span{0, len(src)}, nil
	}
	for i, key := range keys {
		ms, _ := members(clean, open)
		j, last := lastIndex(ms, key), i == len(keys)-1
		switch {
		case del && last:
			for _, m := range ms {
				if m.key == key {
					doomed = append(doomed, memberExtent(clean, m))
				}
			}
			return objectInside(clean, open), doomed
		case j < 0: // appended, after what the object holds
			inside := objectInside(clean, open)
			if len(ms) > 0 {
				return span{ms[len(ms)-1].valEnd, ms[len(ms)-1].valEnd}, nil
			}
			return inside, nil
		case clean[ms[j].valStart] == '{' && (!last || raw[0] == '{'):
			if !last {
				open = ms[j].valStart
				continue
			}
			return span{ms[j].valStart, ms[j].valEnd}, mergeDoomed(clean, ms[j].valStart, raw)
		}
		return span{ms[j].valStart, ms[j].valEnd}, []span{{ms[j].valStart, ms[j].valEnd}}
	}
	return span{}, nil
}

// mergeDoomed: merging raw into the object at open replaces the value of
// each member raw has (the last of its name) and deletes every other.
func mergeDoomed(clean []byte, open int, raw []byte) []span {
	next, _ := rawMembers(raw)
	ms, _ := members(clean, open)
	var doomed []span
	for i, m := range ms {
		replaced := slices.ContainsFunc(next, func(n rawMember) bool { return n.key == m.key })
		switch {
		case !replaced:
			doomed = append(doomed, memberExtent(clean, m))
		case lastIndex(ms, m.key) == i:
			doomed = append(doomed, span{m.valStart, m.valEnd})
		}
	}
	return doomed
}

// memberExtent is a member's text through the comma after it.
func memberExtent(clean []byte, m member) span {
	if comma := skipSpace(clean, m.valEnd); comma < len(clean) && clean[comma] == ',' {
		return span{m.keyStart, comma + 1}
	}
	return span{m.keyStart, m.valEnd}
}

// objectInside is what is between the braces of the object at open.
func objectInside(clean []byte, open int) span {
	end, _ := valueEnd(clean, open)
	return span{open + 1, end - 1}
}

// checkOneStretch: out is src but for region.
func checkOneStretch(t *testing.T, src, out []byte, region span, keys []string) {
	t.Helper()
	tail := len(src) - region.to
	if len(out) < region.from+tail || !bytes.Equal(out[:region.from], src[:region.from]) || !bytes.Equal(out[len(out)-tail:], src[region.to:]) {
		t.Fatalf("editing %q in %q changed more than %q:\n%s", keys, src, src[region.from:region.to], out)
	}
}

// checkCommentsKept: every comment of src outside doomed is in out, in
// order, and out has none src did not.
func checkCommentsKept(t *testing.T, src, out []byte, doomed []span) {
	t.Helper()
	var keep []string
	all := map[string]bool{}
	for _, c := range comments(src) {
		all[string(src[c.from:c.to])] = true
		if !slices.ContainsFunc(doomed, func(d span) bool { return d.from <= c.from && c.to <= d.to }) {
			keep = append(keep, string(src[c.from:c.to]))
		}
	}
	for _, c := range comments(out) {
		text := string(out[c.from:c.to])
		if !all[text] {
			t.Fatalf("the edit of %q wrote a comment %q\n%s", src, text, out)
		}
		if len(keep) > 0 && keep[0] == text {
			keep = keep[1:]
		}
	}
	if len(keep) > 0 {
		t.Fatalf("the edit of %q lost the comment %q\n%s", src, keep[0], out)
	}
}

// comments are the comments of src, where stripJSONC finds them.
func comments(src []byte) []span {
	clean := stripJSONC(src)
	var out []span
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '/' || clean[i] != ' ' {
			continue
		}
		end := len(src)
		switch src[i+1] {
		case '/':
			if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
				end = i + k
			}
		case '*':
			if k := bytes.Index(src[i+2:], []byte("*/")); k >= 0 {
				end = i + 2 + k + 2
			}
		}
		out = append(out, span{i, end})
		i = end - 1
	}
	return out
}

// checkRoundTrip: after is what src parses as, with keys set to want, the
// objects on the way made where missing, or deleted.
func checkRoundTrip(t *testing.T, src []byte, after map[string]any, keys []string, want any, del bool) {
	t.Helper()
	expect, err := parseObject("settings.json", src)
	if err != nil {
		t.Fatal(err)
	}
	obj := expect
	for _, key := range keys[:len(keys)-1] {
		inner, ok := obj[key].(map[string]any)
		if !ok {
			inner = map[string]any{}
			obj[key] = inner
		}
		obj = inner
	}
	if del {
		delete(obj, keys[len(keys)-1])
	} else {
		obj[keys[len(keys)-1]] = want
	}
	if !reflect.DeepEqual(after, expect) {
		t.Fatalf("editing %q in %q read back as %#v, want %#v", keys, src, after, expect)
	}
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
