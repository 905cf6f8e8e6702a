package codeassist

import (
	"strings"
	"testing"
)

func TestSSEData(t *testing.T) {
	stream := ": keep-alive comment\r\n\r\n" +
		"data: {\"a\":\r\n" +
		"data: 1}\r\n" +
		"\r\n\r\n\r\n" + // blank keep-alives between events
		"id: 7\n" +
		"event: message\n" +
		"data:{\"b\":2}\n" +
		"\n" +
		"data: {\"c\":3}" // the stream ends without a blank line
	var got []string
	for data, err := range sseData(strings.NewReader(stream)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	want := []string{"{\"a\":\n1}", `{"b":2}`, `{"c":3}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func TestSSELineTooLong(t *testing.T) {
	stream := "data: " + strings.Repeat("x", maxEventSize+10) + "\n\n"
	var err error
	for _, e := range sseData(strings.NewReader(stream)) {
		err = e
	}
	if err == nil || !strings.Contains(err.Error(), "longer than 16 MiB") {
		t.Errorf("err = %v", err)
	}
}

func TestSSEEventTooLarge(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<20) + "\n"
	stream := strings.Repeat(line, 17) + "\n"
	var err error
	for _, e := range sseData(strings.NewReader(stream)) {
		err = e
	}
	if err == nil || !strings.Contains(err.Error(), "an event larger than 16 MiB") {
		t.Errorf("err = %v", err)
	}
}
