package codeassist_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
)

// The free tier's data-collection opt-in is read with a GET of
// getCodeAssistGlobalUserSetting (in when the server holds none, as
// Gemini CLI 0.61 defaults it) and set for the account's project.
func TestDataCollectionOptIn(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "free-tier"}, Project: "managed",
	})
	c := newClient(srv, "")
	ctx := context.Background()
	if user, err := c.Setup(ctx); err != nil || !user.FreeTier() {
		t.Fatalf("setup: %+v, %v", user, err)
	}
	if in, err := c.DataCollectionOptIn(ctx); err != nil || !in {
		t.Fatalf("opt-in with no setting held: %v, %v; want true", in, err)
	}
	if got, err := c.SetDataCollectionOptIn(ctx, false); err != nil || got {
		t.Fatalf("opting out: %v, %v", got, err)
	}
	if in, err := c.DataCollectionOptIn(ctx); err != nil || in {
		t.Fatalf("opt-in after opting out: %v, %v; want false", in, err)
	}
	sets := srv.RequestsFor("setCodeAssistGlobalUserSetting")
	if len(sets) != 1 || toJSON(decode(t, sets[0].Body)) != `{"cloudaicompanionProject":"managed","freeTierDataCollectionOptin":false}` {
		t.Errorf("set requests %+v", sets)
	}
	if gets := srv.RequestsFor("getCodeAssistGlobalUserSetting"); len(gets) != 2 || gets[0].Path != "/v1internal:getCodeAssistGlobalUserSetting" {
		t.Errorf("get requests %+v", gets)
	}
}

// A server that keeps no setting for the user answers 404, which 0.61
// reads as opted in; another error is reported.
func TestDataCollectionOptInNotFound(t *testing.T) {
	status := http.StatusNotFound
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": {"code": 0, "message": "no setting", "status": "X"}}`, status)
	}))
	t.Cleanup(srv.Close)
	c := codeassist.New(codeassist.Config{Endpoint: srv.URL, Tokens: staticToken("tok")})
	if in, err := c.DataCollectionOptIn(context.Background()); err != nil || !in {
		t.Errorf("opt-in on a 404: %v, %v; want true", in, err)
	}
	status = http.StatusForbidden
	if _, err := c.DataCollectionOptIn(context.Background()); err == nil {
		t.Error("a 403 was read as an opt-in")
	}
}
