package codeassist_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
)

// staticToken is a TokenSource with one token.
type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

func newClient(srv *codeassisttest.Server, project string) *codeassist.Client {
	return codeassist.New(codeassist.Config{
		Endpoint:     srv.URL,
		Project:      project,
		Tokens:       staticToken("tok"),
		UserAgent:    "gemini-ls/test",
		SessionID:    "session-1",
		PollInterval: time.Millisecond,
	})
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return m
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The stream request wraps the Gemini API request as converter.ts does and
// the answer is unwrapped chunk by chunk.
func TestStreamRequestShape(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "standard-tier", Name: "Standard"}, Project: "server-proj",
	}, geminitest.TextTurn("Hel", "lo"))
	c := newClient(srv, "my-proj")
	temp := float32(0.5)
	budget := int32(128)
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
		Temperature:       &temp,
		ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: &budget},
		Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "read_file", Description: "reads"}}}},
	}
	contents := []*genai.Content{
		genai.NewContentFromText("hi", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "pondering", Thought: true}, {Text: "answer"}}},
		genai.NewContentFromText("again", genai.RoleUser),
	}
	var text strings.Builder
	var ids []string
	for resp, err := range c.GenerateContentStream(context.Background(), "gemini-2.5-pro", contents, cfg) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(resp.Text())
		ids = append(ids, resp.ResponseID)
	}
	if text.String() != "Hello" {
		t.Errorf("streamed %q", text.String())
	}
	if len(ids) != 2 || !strings.HasPrefix(ids[0], "trace-") || ids[0] == ids[1] {
		t.Errorf("response ids (traceId) = %q", ids)
	}

	loads := srv.RequestsFor("loadCodeAssist")
	if len(loads) != 1 {
		t.Fatalf("%d loadCodeAssist requests", len(loads))
	}
	wantLoad := `{"cloudaicompanionProject":"my-proj","metadata":{"duetProject":"my-proj","ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`
	if got := toJSON(decode(t, loads[0].Body)); got != wantLoad {
		t.Errorf("loadCodeAssist body = %s\nwant %s", got, wantLoad)
	}

	reqs := srv.RequestsFor("streamGenerateContent")
	if len(reqs) != 1 {
		t.Fatalf("%d stream requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1internal:streamGenerateContent" || r.Query != "alt=sse" {
		t.Errorf("path %s?%s", r.Path, r.Query)
	}
	if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("User-Agent") != "gemini-ls/test" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	body := decode(t, r.Body)
	if body["model"] != "gemini-2.5-pro" || body["project"] != "server-proj" || body["user_prompt_id"] != "session-1########1" {
		t.Errorf("model/project/user_prompt_id = %v %v %v", body["model"], body["project"], body["user_prompt_id"])
	}
	for _, k := range []string{"contents", "systemInstruction", "generationConfig", "tools", "config"} {
		if _, ok := body[k]; ok {
			t.Errorf("top-level %q: the Gemini API request belongs under request", k)
		}
	}
	inner, _ := body["request"].(map[string]any)
	wantInner := `{"contents":[{"parts":[{"text":"hi"}],"role":"user"},{"parts":[{"text":"pondering\n[Thought: true]"},{"text":"answer"}],"role":"model"},{"parts":[{"text":"again"}],"role":"user"}],` +
		`"generationConfig":{"temperature":0.5,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":128}},` +
		`"session_id":"session-1","systemInstruction":{"parts":[{"text":"be brief"}],"role":"user"},` +
		`"tools":[{"functionDeclarations":[{"description":"reads","name":"read_file"}]}]}`
	if got := toJSON(inner); got != wantInner {
		t.Errorf("request = %s\nwant      %s", got, wantInner)
	}
	// The model fake saw it as a Gemini API request.
	if m := srv.Model.Requests(); len(m) != 1 || m[0].Model != "gemini-2.5-pro" || len(m[0].Contents) != 3 || m[0].GenerationConfig.ThinkingConfig == nil {
		t.Errorf("model requests = %s", toJSON(m))
	}
}

// generateContent is wrapped the same way; countTokens sends
// {request: {model: "models/<m>", contents}} and needs no setup.
func TestGenerateContentAndCountTokens(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p1",
	}, geminitest.TextTurn("one", " two"))
	c := newClient(srv, "")
	count, err := c.CountTokens(context.Background(), "gemini-x", genai.Text("12345678"), nil)
	if err != nil || count.TotalTokens != 2 {
		t.Fatalf("CountTokens = %v, %v", count, err)
	}
	if n := len(srv.RequestsFor("loadCodeAssist")); n != 0 {
		t.Errorf("countTokens set the project up (%d loadCodeAssist)", n)
	}
	ct := srv.RequestsFor("countTokens")[0]
	if got := toJSON(decode(t, ct.Body)); ct.Path != "/v1internal:countTokens" || got != `{"request":{"contents":[{"parts":[{"text":"12345678"}],"role":"user"}],"model":"models/gemini-x"}}` {
		t.Errorf("countTokens %s %s", ct.Path, got)
	}

	resp, err := c.GenerateContent(context.Background(), "gemini-x", genai.Text("hello"), nil)
	if err != nil || resp.Text() != "one two" || resp.UsageMetadata == nil || resp.ResponseID == "" {
		t.Fatalf("GenerateContent = %s, %v", toJSON(resp), err)
	}
	g := srv.RequestsFor("generateContent")[0]
	body := decode(t, g.Body)
	if g.Path != "/v1internal:generateContent" || body["project"] != "p1" || body["model"] != "gemini-x" {
		t.Errorf("generateContent %s %s", g.Path, g.Body)
	}
	if inner, _ := body["request"].(map[string]any); inner["contents"] == nil || inner["generationConfig"] != nil {
		t.Errorf("request = %s (no config given: no generationConfig)", toJSON(inner))
	}
}

// A user without a tier is onboarded to the default allowed tier, the
// operation polled until done, and its project used; all once per client.
func TestOnboarding(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", Project: "managed-proj", PendingPolls: 2,
		AllowedTiers: []codeassisttest.Tier{{ID: "legacy-tier"}, {ID: "standard-tier", IsDefault: true}},
	}, geminitest.TextTurn("a"), geminitest.TextTurn("b"))
	c := newClient(srv, "")
	for range 2 {
		if _, err := c.GenerateContent(context.Background(), "m", genai.Text("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	onboard := srv.RequestsFor("onboardUser")
	if len(onboard) != 1 {
		t.Fatalf("%d onboardUser requests", len(onboard))
	}
	if got := toJSON(decode(t, onboard[0].Body)); got != `{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"},"tierId":"standard-tier"}` {
		t.Errorf("onboardUser body = %s", got)
	}
	if polls := srv.RequestsFor("getOperation"); len(polls) != 3 || polls[0].Path != "/v1internal/operations/onboard-1" {
		t.Errorf("polls = %d", len(polls))
	}
	if n := len(srv.RequestsFor("loadCodeAssist")); n != 1 {
		t.Errorf("%d loadCodeAssist requests for two calls", n)
	}
	for _, g := range srv.RequestsFor("generateContent") {
		if p := decode(t, g.Body)["project"]; p != "managed-proj" {
			t.Errorf("project = %v, want the onboarded one", p)
		}
	}
	user, err := c.Setup(context.Background())
	if err != nil || user != (codeassist.UserData{ProjectID: "managed-proj", TierID: "standard-tier"}) {
		t.Errorf("Setup = %+v, %v", user, err)
	}
}

func TestSetupErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    codeassisttest.Options
		project string
		want    string
	}{
		{"a tier without a project", codeassisttest.Options{CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}}, "",
			"setting up Code Assist: This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca"},
		{"ineligible", codeassisttest.Options{CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, IneligibleReasons: []string{"Not in a supported region", "Too young"}}, "",
			"setting up Code Assist: Not in a supported region, Too young"},
		{"onboarding without a project", codeassisttest.Options{}, "",
			"setting up Code Assist: This account requires setting the GOOGLE_CLOUD_PROJECT or GOOGLE_CLOUD_PROJECT_ID env var. See https://goo.gle/gemini-cli-auth-docs#workspace-gca"},
		{"an individual account, no longer served", codeassisttest.Options{UnsupportedClient: true}, "",
			"setting up Code Assist: " + codeassist.IndividualSignInEnded + " (The Code Assist server said: " + codeassisttest.UnsupportedClientMessage + ")"},
		{"numeric project", codeassisttest.Options{}, "12345",
			`setting up Code Assist: Invalid Google Cloud Project ID: "12345". The GOOGLE_CLOUD_PROJECT (or GOOGLE_CLOUD_PROJECT_ID) environment variable must be set to your string-based Project ID (e.g., "my-project-123"), not your numeric Project Number. Please update your environment variables.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.AccessToken = "tok"
			srv := codeassisttest.NewTestServer(t, tc.opts)
			_, err := newClient(srv, tc.project).GenerateContent(context.Background(), "m", genai.Text("x"), nil)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

// The refusal of an individual account is a typed error front ends can
// tell; a user naming a project is onboarded to Standard, not refused.
func TestIndividualAccountRefused(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "tok", UnsupportedClient: true})
	_, err := newClient(srv, "").GenerateContent(context.Background(), "m", genai.Text("x"), nil)
	var refused *codeassist.IndividualRefusedError
	if !errors.As(err, &refused) || refused.ServerMessage != codeassisttest.UnsupportedClientMessage {
		t.Fatalf("err = %v, want an IndividualRefusedError with the server's message", err)
	}
	if got := len(srv.RequestsFor("onboardUser")); got != 0 {
		t.Errorf("onboardUser called %d times after the refusal", got)
	}
	if _, err := newClient(srv, "my-project").Setup(context.Background()); errors.As(err, &refused) {
		t.Errorf("a user naming a project was refused as an individual: %v", err)
	}
}

// A setup that waits for its operation ends with the caller's context.
func TestOnboardingPollEndsWithContext(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "tok", Project: "p", PendingPolls: 1 << 30})
	c := codeassist.New(codeassist.Config{Endpoint: srv.URL, Tokens: staticToken("tok"), PollInterval: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.GenerateContent(ctx, "m", genai.Text("x"), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the setup did not end with its context")
	}
}

// Errors are genai.APIErrors with the server's details, before a stream
// and within one; a bad token is the server's 401.
func TestErrorsAreAPIErrors(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p",
	},
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "quota", RetryDelay: 2 * time.Second}},
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "partial"}}, Err: &geminitest.APIError{Code: 503, Message: "overloaded"}},
	)
	c := newClient(srv, "")
	var apiErr genai.APIError
	_, err := c.GenerateContent(context.Background(), "m", genai.Text("x"), nil)
	if !errors.As(err, &apiErr) || apiErr.Code != 429 || apiErr.Status != "RESOURCE_EXHAUSTED" || apiErr.Message != "quota" ||
		len(apiErr.Details) != 1 || apiErr.Details[0]["retryDelay"] != "2s" {
		t.Errorf("err = %#v", err)
	}
	var got []string
	var streamErr error
	for resp, err := range c.GenerateContentStream(context.Background(), "m", genai.Text("x"), nil) {
		if err != nil {
			streamErr = err
			break
		}
		got = append(got, resp.Text())
	}
	if !errors.As(streamErr, &apiErr) || apiErr.Code != 503 || len(got) != 1 || got[0] != "partial" {
		t.Errorf("stream = %q then %#v", got, streamErr)
	}

	bad := codeassist.New(codeassist.Config{Endpoint: srv.URL, Tokens: staticToken("wrong")})
	_, err = bad.CountTokens(context.Background(), "m", genai.Text("x"), nil)
	if !errors.As(err, &apiErr) || apiErr.Code != 401 || apiErr.Status != "UNAUTHENTICATED" {
		t.Errorf("bad token: %#v", err)
	}
}

// writeCreds writes a cached login as Gemini CLI does.
func writeCreds(t *testing.T, dir string, creds map[string]any) string {
	t.Helper()
	path := filepath.Join(dir, "oauth_creds.json")
	data, _ := json.MarshalIndent(creds, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An expired token is refreshed with Gemini CLI's client and the refresh
// token, used, and written back with the file's other fields kept.
func TestLoginRefreshesExpiredToken(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p"},
		geminitest.TextTurn("hi"))
	dir := t.TempDir()
	expired := time.Now().Add(-time.Hour).UnixMilli()
	path := writeCreds(t, dir, map[string]any{
		"access_token": "old", "refresh_token": "refresh", "token_type": "Bearer",
		"expiry_date": expired, "scope": "old-scope", "id_token": "old-id", "gemini_cli_extra": map[string]any{"kept": true},
	})
	login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL()})
	c := codeassist.New(codeassist.Config{Endpoint: srv.URL, Tokens: login})
	resp, err := c.GenerateContent(context.Background(), "m", genai.Text("x"), nil)
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("GenerateContent = %v, %v", resp, err)
	}
	if g := srv.Grants(); g != 1 {
		t.Errorf("%d grants, want one refresh", g)
	}
	for _, r := range srv.Requests() {
		if r.Method != "token" && r.Header.Get("Authorization") != "Bearer granted-1" {
			t.Errorf("%s sent %q", r.Method, r.Header.Get("Authorization"))
		}
	}
	info, err := os.Stat(path)
	// Windows keeps no permission bits: the file is only to be there.
	if err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Fatalf("file after refresh: %v %v", info.Mode(), err)
	}
	data, _ := os.ReadFile(path)
	file := decode(t, data)
	exp, _ := file["expiry_date"].(float64)
	if file["access_token"] != "granted-1" || file["refresh_token"] != "refresh" || file["id_token"] != "id-granted-1" ||
		file["token_type"] != "Bearer" || toJSON(file["gemini_cli_extra"]) != `{"kept":true}` ||
		time.UnixMilli(int64(exp)).Before(time.Now().Add(50*time.Minute)) {
		t.Errorf("file after refresh = %s", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}

	// A second login (a new process) uses the written token, no refresh.
	again := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL()})
	if tok, err := again.Token(context.Background()); err != nil || tok != "granted-1" || srv.Grants() != 1 {
		t.Errorf("second login token %q, %v after %d grants", tok, err, srv.Grants())
	}
}

// Two clients refreshing the same file at once leave it whole.
func TestConcurrentRefreshKeepsFileWhole(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{})
	dir := t.TempDir()
	path := writeCreds(t, dir, map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1, "other": "x"})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for range 8 {
		login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL()})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := login.Token(context.Background()); err != nil {
				errs <- err
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := codeassist.CheckLogin(path); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, _ := os.ReadFile(path)
	file := decode(t, data)
	if tok, _ := file["access_token"].(string); !strings.HasPrefix(tok, "granted-") || file["other"] != "x" || file["refresh_token"] != "refresh" {
		t.Errorf("file = %s", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
}

func TestLoginErrors(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{RefreshToken: "the-real-one"})
	dir := t.TempDir()
	missing := filepath.Join(dir, "oauth_creds.json")
	_, err := codeassist.NewLogin(codeassist.LoginConfig{Path: missing, TokenURL: srv.TokenURL()}).Token(context.Background())
	var noLogin *codeassist.NoLoginError
	if !errors.As(err, &noLogin) || !strings.Contains(err.Error(), "run `gemini-ls login`") {
		t.Errorf("missing file: %v", err)
	}

	revoked := writeCreds(t, dir, map[string]any{"access_token": "old", "refresh_token": "revoked", "expiry_date": 1})
	_, err = codeassist.NewLogin(codeassist.LoginConfig{Path: revoked, TokenURL: srv.TokenURL()}).Token(context.Background())
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "Sign in with Google") {
		t.Errorf("revoked login: %v", err)
	}
	if data, _ := os.ReadFile(revoked); !strings.Contains(string(data), `"old"`) {
		t.Errorf("a failed refresh changed the file: %s", data)
	}

	noRefresh := filepath.Join(dir, "x.json")
	os.WriteFile(noRefresh, []byte(`{"access_token":"old","expiry_date":1}`), 0o600)
	_, err = codeassist.NewLogin(codeassist.LoginConfig{Path: noRefresh, TokenURL: srv.TokenURL()}).Token(context.Background())
	if !errors.As(err, &noLogin) || !strings.Contains(err.Error(), "expired and it holds no refresh token") {
		t.Errorf("no refresh token: %v", err)
	}
}

// The onboarding request as setup.ts makes it: the user's project for a
// paid tier, none for the free tier (whose project is Google-managed).
func TestOnboardRequest(t *testing.T) {
	for _, tc := range []struct {
		tier, project, wantLoad, wantOnboard string
	}{
		{"standard-tier", "user-proj",
			`{"cloudaicompanionProject":"user-proj","metadata":{"duetProject":"user-proj","ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`,
			`{"cloudaicompanionProject":"user-proj","metadata":{"duetProject":"user-proj","ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"},"tierId":"standard-tier"}`},
		{"free-tier", "user-proj",
			`{"cloudaicompanionProject":"user-proj","metadata":{"duetProject":"user-proj","ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`,
			`{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"},"tierId":"free-tier"}`},
		{"standard-tier", "",
			`{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`,
			`{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"},"tierId":"standard-tier"}`},
	} {
		t.Run(tc.tier+" "+tc.project, func(t *testing.T) {
			srv := codeassisttest.NewTestServer(t, codeassisttest.Options{
				AccessToken: "tok", Project: "assigned", AllowedTiers: []codeassisttest.Tier{{ID: tc.tier, IsDefault: true}},
			})
			user, err := newClient(srv, tc.project).Setup(context.Background())
			if err != nil || user.ProjectID != "assigned" || user.TierID != tc.tier {
				t.Fatalf("Setup = %+v, %v", user, err)
			}
			if got := toJSON(decode(t, srv.RequestsFor("loadCodeAssist")[0].Body)); got != tc.wantLoad {
				t.Errorf("loadCodeAssist = %s\nwant %s", got, tc.wantLoad)
			}
			if got := toJSON(decode(t, srv.RequestsFor("onboardUser")[0].Body)); got != tc.wantOnboard {
				t.Errorf("onboardUser = %s\nwant %s", got, tc.wantOnboard)
			}
		})
	}
}

// A rotated refresh token is written back; a token that expires in use is
// refreshed again, not kept.
func TestLoginRotationAndExpiry(t *testing.T) {
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{NewRefreshToken: "rotated", ExpiresIn: 1})
	path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "old", "refresh_token": "refresh", "expiry_date": 1})
	login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL()})
	for i := 1; i <= 2; i++ {
		// A token for a second is already within oauth2's early-expiry margin.
		if _, err := login.Token(context.Background()); err != nil {
			t.Fatal(err)
		}
		if srv.Grants() != i {
			t.Fatalf("after call %d: %d grants, want a refresh per call", i, srv.Grants())
		}
	}
	data, _ := os.ReadFile(path)
	if file := decode(t, data); file["refresh_token"] != "rotated" || file["access_token"] != "granted-2" {
		t.Errorf("file = %s", data)
	}
}

// A login written over the file (a new sign-in) is used from the next
// request on, though the token read before has not expired.
func TestLoginUsesANewSignInAtOnce(t *testing.T) {
	dir := t.TempDir()
	later := time.Now().Add(time.Hour).UnixMilli()
	path := writeCreds(t, dir, map[string]any{"access_token": "first", "refresh_token": "r", "expiry_date": later})
	login := codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: "http://127.0.0.1:1/token"})
	if tok, err := login.Token(context.Background()); err != nil || tok != "first" {
		t.Fatalf("token = %q, %v", tok, err)
	}
	if err := codeassist.SaveLogin(context.Background(), path, (&oauth2.Token{AccessToken: "second-sign-in", RefreshToken: "r2", Expiry: time.Now().Add(time.Hour)})); err != nil {
		t.Fatal(err)
	}
	if tok, err := login.Token(context.Background()); err != nil || tok != "second-sign-in" {
		t.Errorf("after a new sign-in, token = %q, %v", tok, err)
	}
}

// A new sign-in (another refresh token in the file: possibly another
// account) sets Code Assist up again before the next request, so that
// request goes to the new account's project, not the first one's.
func TestANewSignInIsSetUpAgain(t *testing.T) {
	// The first sign-in's token is refreshed (granted-1); the second's is
	// the one the fake accepts from the start.
	srv := codeassisttest.NewTestServer(t, codeassisttest.Options{CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p", AccessToken: "second"},
		geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	expired := time.Now().Add(-time.Hour)
	path := writeCreds(t, t.TempDir(), map[string]any{"access_token": "first", "refresh_token": "refresh", "expiry_date": expired.UnixMilli()})
	c := codeassist.New(codeassist.Config{Endpoint: srv.URL, Tokens: codeassist.NewLogin(codeassist.LoginConfig{Path: path, TokenURL: srv.TokenURL()})})
	ask := func() {
		t.Helper()
		if _, err := c.GenerateContent(context.Background(), "m", genai.Text("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	ask()
	ask()
	if n := len(srv.RequestsFor("loadCodeAssist")); n != 1 {
		t.Fatalf("%d setups for two requests of one sign-in, want 1", n)
	}
	if err := codeassist.SaveLogin(context.Background(), path, &oauth2.Token{AccessToken: "second", RefreshToken: "r2", Expiry: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ask()
	loads := srv.RequestsFor("loadCodeAssist")
	if len(loads) != 2 || loads[1].Header.Get("Authorization") != "Bearer second" {
		t.Errorf("after a new sign-in: %d setups (the last with %q), want a second one with the new token", len(loads), loads[len(loads)-1].Header.Get("Authorization"))
	}
}
