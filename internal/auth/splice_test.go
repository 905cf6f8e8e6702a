package auth

import (
	"bytes"
	"strings"
	"testing"
)

// A body is sent with each part in its placeholder's place, in the order
// the body holds them; one without placeholders (a token request made with
// the request's context) as it is; one that lost a placeholder, or holds
// one twice, is not sent.
func TestSpliceInto(t *testing.T) {
	s := splice{tag: newSpliceTag()}
	body := `{"contents":` + string(s.hold(slotContents, []byte(`[{"role":"user"}]`))) +
		`,"systemInstruction":` + string(s.hold(slotSystem, []byte(`{"parts":[{"text":"be brief"}]}`))) +
		`,"tools":` + string(s.hold(slotTools, []byte(`[{"functionDeclarations":[]}]`))) + "}\n"
	segments, err := s.into([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.Join(segments, nil)
	want := `{"contents":[{"role":"user"}],"systemInstruction":{"parts":[{"text":"be brief"}]},"tools":[{"functionDeclarations":[]}]}` + "\n"
	if string(got) != want {
		t.Errorf("spliced body\n%s\nwant\n%s", got, want)
	}

	token := "grant_type=refresh_token&refresh_token=x"
	if got, err := s.into([]byte(token)); err != nil || string(bytes.Join(got, nil)) != token {
		t.Errorf("a body without placeholders became %q, %v", got, err)
	}

	lost := strings.Replace(body, string(s.placeholder(slotSystem)), `{}`, 1)
	if _, err := s.into([]byte(lost)); err == nil {
		t.Error("a body without its system instruction's placeholder was sent")
	}
	twice := strings.Replace(body, `"tools":`, `"tools":`+string(s.placeholder(slotTools))+`,"x":`, 1)
	if _, err := s.into([]byte(twice)); err == nil {
		t.Error("a body holding a placeholder twice was sent")
	}
	standIn := strings.Replace(body, `{"contents":`, `{"text":`+s.textStandIn()+`0-1","contents":`, 1)
	if _, err := s.into([]byte(standIn)); err == nil {
		t.Error("a body holding a long text's stand-in was sent")
	}
}
