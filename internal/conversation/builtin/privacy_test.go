package builtin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
)

// signedInWithGoogle makes h's conversations sign in with Google through a
// fake Code Assist server whose user is on tier.
func signedInWithGoogle(h *harness, tier codeassisttest.Tier) *codeassisttest.Server {
	h.t.Helper()
	ca := codeassisttest.NewTestServer(h.t, codeassisttest.Options{AccessToken: "tok", CurrentTier: &tier, Project: "managed-project"})
	h.write("~/.gemini/oauth_creds.json", fmt.Sprintf(`{"access_token": "tok", "refresh_token": "refresh", "expiry_date": %d}`, time.Now().Add(time.Hour).UnixMilli()))
	delete(h.env, "GEMINI_API_KEY")
	h.env["GOOGLE_GENAI_USE_GCA"] = "true"
	h.env["CODE_ASSIST_ENDPOINT"] = ca.URL
	return ca
}

// With a Gemini API key, /privacy is 0.61's Gemini API notice; there is
// no opt-in to change, and /upgrade is refused in 0.61's words.
func TestPrivacyAndUpgradeWithAnAPIKey(t *testing.T) {
	h := newHarness(t)
	env := h.conversation()
	got := h.answer(env, "/privacy")
	if !strings.HasPrefix(got, "**Gemini API Key Notice**\n\nBy using the Gemini API[1], Google AI Studio[2],") || !strings.Contains(got, "- [4] https://ai.google.dev/gemini-api/terms") {
		t.Errorf("/privacy said %q", got)
	}
	if err := h.fails(env, "/privacy optout"); !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "gemini-api-key, not Code Assist") {
		t.Errorf("/privacy optout: %v", err)
	}
	if err := h.fails(env, "/upgrade"); err.Error() != "The /upgrade command is only available when logged in with Google." {
		t.Errorf("/upgrade: %v", err)
	}
}

// On Vertex AI, /privacy is 0.61's Vertex AI notice; /upgrade is refused.
func TestPrivacyAndUpgradeOnVertexAI(t *testing.T) {
	h := newHarness(t)
	h.env["GOOGLE_GENAI_USE_VERTEXAI"] = "true"
	h.env["GOOGLE_API_KEY"] = "vertex-key"
	env := h.conversation()
	got := h.answer(env, "/privacy")
	if !strings.HasPrefix(got, "**Vertex AI Notice**\n\nService Specific Terms[1] are incorporated") || !strings.Contains(got, "- [2] https://cloud.google.com/terms/services") {
		t.Errorf("/privacy said %q", got)
	}
	if err := h.fails(env, "/upgrade"); err.Error() != "The /upgrade command is only available when logged in with Google." {
		t.Errorf("/upgrade: %v", err)
	}
}

// On Code Assist's free tier, /privacy shows the opt-in as the server
// holds it (in, when it holds none, as 0.61 defaults it); /privacy optout
// and optin change it there, for the account's project; /upgrade gives
// the page to change tier.
func TestPrivacyOptInOnTheCodeAssistFreeTier(t *testing.T) {
	h := newHarness(t)
	ca := signedInWithGoogle(h, codeassisttest.Tier{ID: "free-tier", Name: "Gemini Code Assist for individuals"})
	env := h.conversation()

	got := h.answer(env, "/privacy")
	if !strings.HasPrefix(got, "**Gemini Code Assist for Individuals Privacy Notice**") ||
		!strings.Contains(got, "you can opt out with `/privacy optout`") ||
		!strings.Contains(got, "- **Yes, grant permission to use my data for product improvement (Opt-in)**: chosen now\n- No, deny permission to use my data for product improvement (Opt-out): `/privacy optout`\n") {
		t.Errorf("/privacy said %q", got)
	}

	if got := h.answer(env, "/privacy optout"); got != "Saved on the Code Assist server: No, deny permission to use my data for product improvement (Opt-out)." {
		t.Errorf("/privacy optout said %q", got)
	}
	if held := ca.DataCollectionOptIn(); held == nil || *held {
		t.Fatalf("the server holds %v after /privacy optout", held)
	}
	sets := ca.RequestsFor("setCodeAssistGlobalUserSetting")
	var body map[string]any
	if len(sets) != 1 || json.Unmarshal(sets[0].Body, &body) != nil || body["cloudaicompanionProject"] != "managed-project" || body["freeTierDataCollectionOptin"] != false {
		t.Errorf("set requests %+v", sets)
	}
	if got := h.answer(env, "/privacy"); !strings.Contains(got, "- Yes, grant permission to use my data for product improvement (Opt-in): `/privacy optin`\n- **No, deny permission to use my data for product improvement (Opt-out)**: chosen now\n") {
		t.Errorf("/privacy after opting out said %q", got)
	}
	h.answer(env, "/privacy optin")
	if held := ca.DataCollectionOptIn(); held == nil || !*held {
		t.Errorf("the server holds %v after /privacy optin", held)
	}

	if got := h.answer(env, "/upgrade"); got != "Please open this URL in a browser: https://goo.gle/set-up-gemini-code-assist" {
		t.Errorf("/upgrade said %q", got)
	}
}

// On a paid Code Assist tier, /privacy is the link to the notices, and
// there is no opt-in to change; on an Ultra tier there is none to
// upgrade to.
func TestPrivacyAndUpgradeOnAPaidCodeAssistTier(t *testing.T) {
	h := newHarness(t)
	ca := signedInWithGoogle(h, codeassisttest.Tier{ID: "g1-ultra-tier", Name: "Gemini Code Assist in Google AI Ultra"})
	env := h.conversation()
	if got := h.answer(env, "/privacy"); got != "**Gemini Code Assist Privacy Notice**\n\nhttps://developers.google.com/gemini-code-assist/resources/privacy-notices" {
		t.Errorf("/privacy said %q", got)
	}
	if err := h.fails(env, "/privacy optin"); !strings.Contains(err.Error(), "nothing was changed: the data collection opt-in is only for Gemini Code Assist for Individuals") {
		t.Errorf("/privacy optin: %v", err)
	}
	if sets := ca.RequestsFor("setCodeAssistGlobalUserSetting"); len(sets) != 0 {
		t.Errorf("set requests %+v", sets)
	}
	if got := h.answer(env, "/upgrade"); got != "You are already on the highest tier: Gemini Code Assist in Google AI Ultra." {
		t.Errorf("/upgrade said %q", got)
	}
}
