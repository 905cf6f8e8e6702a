package sessionstore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzMessageRecordDecodesAsTheGeneralPath: a line the one-pass decoding
// takes (decodeMessageLine) is a message to apply's general path too,
// and decodes to the same message, content and parts.
//
//	go test -run '^$' -fuzz FuzzMessageRecordDecodesAsTheGeneralPath ./internal/agent/sessionstore/
func FuzzMessageRecordDecodesAsTheGeneralPath(f *testing.F) {
	for _, line := range []string{
		`{"id":"m1","timestamp":"2026-11-22T10:00:01.000Z","type":"user","content":[{"text":"hi"}]}`,
		`{"id":"m2","type":"gemini","content":[{"functionCall":{"id":"c1","name":"grep","args":{"p":"x"}}}],"tokens":{"input":1},"model":"m","$geminiLs":{"v":3}}`,
		`{"id":"m3","type":"user","content":[{"functionResponse":{"id":"c1","name":"grep","response":{"output":"a\nb"}}}],"$geminiLs":{"v":3}}`,
		`{"id":"m4","type":"gemini","content":"text","toolCalls":[{"id":"c1","name":"read_file","args":{}}]}`,
		`{"id":"m5","type":"user","content":[null,{"text":"x"},null]}`,
		`{"id":"m6","type":"user","content":[]}`,
		`{"id":"m7","type":"user","content":null}`,
		`{"id":"m8","type":"user","content":[[{"text":"nested"}],"string item"]}`,
		`{"id":"m9","type":"user","content":{"text":"one part"}}`,
		`{"id":"m10","$rewindTo":"m1"}`,
		`{"id":"m11","$REWINDTO":"m1","type":"user"}`,
		`{"id":"m12","id":7,"type":"user"}`,
		`{"id":"m13","ID":"other","Type":"gemini","content":[{"text":"x"}]}`,
		`{"id":"","type":"user","content":[{"text":"x"}]}`,
		`{"id":"m14","type":"user","content":[{"text":5}]}`,
		`{"id":"m15","thoughts":"not a list"}`,
		`{"id":"m16"} trailing`,
		`{"id":"m17","type":"user","content":[{"text":"x","thought":true,"thoughtSignature":"c2ln"}]}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, ok := decodeMessageLine(line)
		if !ok {
			return
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("%s: decoded as a message, but is not a record to the general path: %v", line, err)
		}
		if _, ok := recordString(rec, "$rewindTo"); ok {
			t.Fatalf("%s: decoded as a message, but is a rewind to the general path", line)
		}
		if _, ok := recordString(rec, "id"); !ok {
			t.Fatalf("%s: decoded as a message, but has no string id to the general path", line)
		}
		general, reason := decodeMessage(line)
		if reason != "" {
			t.Fatalf("%s: decoded as a message, but not by the general path: %s", line, reason)
		}
		general.Content = nil // the one-pass decoding keeps only its parts
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("%s: decoded in one pass as\n%s\nby the general path as\n%s", line, jsonOf(t, fast.parts), jsonOf(t, general.parts))
		}
	})
}

// The lines the one-pass decoding leaves to the general path: those it
// could not decode as that path does.
func TestMessageRecordLeavesOddLinesToTheGeneralPath(t *testing.T) {
	for _, line := range []string{
		`{"type":"user","id":"m1","content":[{"text":"id not first"}]}`,
		`{"id":"m4","type":"gemini","content":"text"}`,
		`{"id":"m8","type":"user","content":[[{"text":"nested"}]]}`,
		`{"id":"m9","type":"user","content":{"text":"one part"}}`,
		`{"id":"m10","$rewindTo":"m1"}`,
		`{"id":"m11","$REWINDTO":"m1"}`,
		`{"id":"m12","id":7}`,
		`{"id":"m16"} trailing`,
	} {
		if m, ok := decodeMessageLine([]byte(line)); ok {
			t.Errorf("%s: decoded in one pass as %+v", line, m)
		}
	}
	m, ok := decodeMessageLine([]byte(`{"id":"m5","type":"user","content":[null,{"text":"x"}]}`))
	if !ok || len(m.parts) != 1 || m.parts[0].Text != "x" || !bytes.Equal([]byte(m.ID), []byte("m5")) {
		t.Errorf("a list of parts with a null: %+v, %v", m, ok)
	}
}
