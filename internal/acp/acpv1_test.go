package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// v1Conn is a connection served in this process to a client that
// declared caps; when the test ends, every message the agent wrote is
// checked against the pinned ACP schema (schema_test.go).
type v1Conn struct {
	t    *testing.T
	ctx  context.Context
	c    *acptest.Client
	init json.RawMessage // initialize's result, as the agent wrote it
	env  map[string]string
	ids  int
}

// v1Env is the environment of a served connection: a home of its own
// and the fake model at url.
func v1Env(t *testing.T, url string) map[string]string {
	return platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "test-key",
		"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_MODEL": "gemini-2.5-pro"}, t.TempDir())
}

func serveV1(t *testing.T, env map[string]string, caps sdk.ClientCapabilities, cfg acptest.Config) *v1Conn {
	t.Helper()
	return serveV1With(t, env, cfg, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps,
		ClientInfo: &sdk.Implementation{Name: "acpv1-test", Version: "1"}})
}

// serveV1With is serveV1 with initialize's params as given, for what the
// SDK's types cannot say.
func serveV1With(t *testing.T, env map[string]string, cfg acptest.Config, initialize any) *v1Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, serverIn, serverOut, Options{Getenv: func(k string) string { return env[k] }, Version: "test"})
	}()
	v := &v1Conn{t: t, ctx: ctx, env: env, c: acptest.New(t, clientOut, clientIn, cfg)}
	t.Cleanup(func() {
		_ = clientOut.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		cancel()
		checkAgainstSchema(t, v.c)
	})
	v.init = v.request("initialize", initialize)
	return v
}

// rpcAnswer is an answer the agent wrote to one of the test's requests.
type rpcAnswer struct {
	Result json.RawMessage   `json:"result"`
	Error  *sdk.RequestError `json:"error"`
}

func (a rpcAnswer) String() string {
	if a.Error != nil {
		return "error " + a.Error.Error()
	}
	return "result " + string(a.Result)
}

// call sends method with params as a request of the test's own (not the
// SDK's, which lacks some of ACP v1's methods) and returns its answer.
func (v *v1Conn) call(method string, params any) rpcAnswer {
	v.t.Helper()
	v.ids++
	id := fmt.Sprintf(`"v1-%d"`, v.ids)
	p, err := json.Marshal(params)
	if err != nil {
		v.t.Fatal(err)
	}
	if err := v.c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p)); err != nil {
		v.t.Fatal(err)
	}
	var a rpcAnswer
	v.c.Wait(v.ctx, "the answer to "+method, func(c *acptest.Client) bool {
		for _, line := range c.Received() {
			var m struct {
				ID json.RawMessage `json:"id"`
				rpcAnswer
			}
			if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == id && (m.Result != nil || m.Error != nil) {
				a = m.rpcAnswer
				return true
			}
		}
		return false
	})
	return a
}

// request is call's result; an error answer fails the test.
func (v *v1Conn) request(method string, params any) json.RawMessage {
	v.t.Helper()
	a := v.call(method, params)
	if a.Error != nil {
		v.t.Fatalf("%s: %v", method, a.Error)
	}
	return a.Result
}

// newSession opens a session in root and returns its id.
func (v *v1Conn) newSession(root string) sdk.SessionId {
	v.t.Helper()
	var res sdk.NewSessionResponse
	if err := json.Unmarshal(v.request("session/new", sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}}), &res); err != nil {
		v.t.Fatal(err)
	}
	return res.SessionId
}

// prompt sends text to session id and waits for the turn to end.
func (v *v1Conn) prompt(id sdk.SessionId, text string) sdk.PromptResponse {
	v.t.Helper()
	var res sdk.PromptResponse
	if err := json.Unmarshal(v.request("session/prompt", sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}), &res); err != nil {
		v.t.Fatal(err)
	}
	return res
}

// listed are the ids session/list lists.
func (v *v1Conn) listed() []string {
	v.t.Helper()
	var res sdk.ListSessionsResponse
	if err := json.Unmarshal(v.request("session/list", sdk.ListSessionsRequest{}), &res); err != nil {
		v.t.Fatal(err)
	}
	var ids []string
	for _, s := range res.Sessions {
		ids = append(ids, string(s.SessionId))
	}
	return ids
}

// session/delete deletes a session live here and one only saved; each is
// gone from session/list and cannot be loaded; an id of none is
// resource_not_found. initialize declares it.
func TestSessionDelete(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	if !strings.Contains(string(v.init), `"sessionCapabilities":{`) || !strings.Contains(string(v.init), `"delete":{}`) {
		t.Errorf("initialize does not declare sessionCapabilities.delete: %s", v.init)
	}
	root := t.TempDir()
	live, saved := v.newSession(root), v.newSession(root)
	v.prompt(live, "first")
	v.prompt(saved, "second")
	v.request("session/close", sdk.CloseSessionRequest{SessionId: saved})
	if got := v.listed(); len(got) != 2 {
		t.Fatalf("before deleting, session/list lists %q", got)
	}
	for _, id := range []sdk.SessionId{live, saved} {
		if res := v.request("session/delete", map[string]any{"sessionId": id}); string(res) != "{}" {
			t.Errorf("session/delete answered %s, want {}", res)
		}
	}
	if got := v.listed(); len(got) != 0 {
		t.Errorf("after deleting both, session/list lists %q", got)
	}
	again := v.call("session/delete", map[string]any{"sessionId": live})
	if again.Error == nil || again.Error.Code != -32002 {
		t.Errorf("deleting a deleted session answered %+v, want resource_not_found (-32002)", again)
	}
	load := v.call("session/load", sdk.LoadSessionRequest{SessionId: saved, Cwd: root, McpServers: []sdk.McpServer{}})
	if load.Error == nil {
		t.Errorf("a deleted session loaded: %s", load.Result)
	}
	if a := v.call("session/delete", map[string]any{}); a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("session/delete without a sessionId answered %+v, want invalid params", a)
	}
}

// logout removes the cached Google login and the settings' choice of
// sign-in, as /auth signout does, and no session opens until
// authenticate, though a key is in the environment. initialize declares
// it.
func TestLogout(t *testing.T) {
	model := geminitest.NewTestServer(t)
	env := v1Env(t, model.URL)
	gemini := filepath.Join(env["HOME"], ".gemini")
	if err := os.MkdirAll(gemini, 0o700); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(gemini, "oauth_creds.json")
	settingsFile := filepath.Join(gemini, "settings.json")
	for path, text := range map[string]string{
		creds:        `{"access_token":"a","refresh_token":"r","token_type":"Bearer","expiry_date":1}`,
		settingsFile: `{"security":{"auth":{"selectedType":"gemini-api-key"}},"ui":{"theme":"x"}}`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	v := serveV1(t, env, sdk.ClientCapabilities{}, acptest.Config{})
	if !strings.Contains(string(v.init), `"auth":{"logout":{}`) {
		t.Errorf("initialize does not declare auth.logout: %s", v.init)
	}
	root := t.TempDir()
	v.newSession(root)
	if res := v.request("logout", map[string]any{}); string(res) != "{}" {
		t.Errorf("logout answered %s, want {}", res)
	}
	if _, err := os.Stat(creds); !os.IsNotExist(err) {
		t.Errorf("the cached Google login is still there after logout: %v", err)
	}
	if b, err := os.ReadFile(settingsFile); err != nil || strings.Contains(string(b), "selectedType") || !strings.Contains(string(b), `"theme"`) {
		t.Errorf("the user's settings after logout: %s, %v", b, err)
	}
	if a := v.call("session/new", sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}}); a.Error == nil || a.Error.Code != -32000 {
		t.Errorf("session/new after logout answered %+v, want auth_required (-32000)", a)
	}
	v.request("authenticate", sdk.AuthenticateRequest{MethodId: "gemini-api-key"})
	v.newSession(root)
}

// functionResponses is every function response in the model's last
// request, as JSON.
func functionResponses(t *testing.T, model *geminitest.Server) string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	var out []string
	for _, c := range reqs[len(reqs)-1].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				b, _ := json.Marshal(p.FunctionResponse.Response)
				out = append(out, string(b))
			}
		}
	}
	return strings.Join(out, "\n")
}

// A client that takes forms gets ask_user's questions as
// elicitation/create, tied to the call: several options and the user's
// own words, which a permission request cannot take, reach the model.
// A client without the capability gets the permission request still.
func TestAskUserByElicitation(t *testing.T) {
	questions := []any{
		map[string]any{"question": "Which databases?", "header": "DB", "type": "choice", "multiSelect": true,
			"options": []any{map[string]any{"label": "Postgres", "description": "SQL"}, map[string]any{"label": "Redis", "description": "a cache"}}},
		map[string]any{"question": "What should the service be called?", "header": "Name", "type": "text"},
	}
	ask := geminitest.CallTurn(&genai.FunctionCall{Name: "ask_user", Args: map[string]any{"questions": questions}})
	model := geminitest.NewTestServer(t, ask, geminitest.TextTurn("Noted."))
	var forms []json.RawMessage
	answers := []string{`{"action":"accept","content":{"choices":["0","1"]}}`, `{"action":"accept","content":{"answer":"  ledger  "}}`}
	cfg := acptest.Config{Rewrite: func(method string, id json.RawMessage, line []byte) []byte {
		if method != methodElicitationCreate {
			return line
		}
		n := len(forms)
		forms = append(forms, id)
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, answers[min(n, len(answers)-1)])
	}}
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}}, cfg)
	id := v.newSession(t.TempDir())
	if res := v.prompt(id, "set up the service"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt ended %q", res.StopReason)
	}
	if len(forms) != 2 {
		t.Fatalf("%d elicitation/create requests, want one per question", len(forms))
	}
	if len(v.c.Permissions()) != 0 {
		t.Errorf("a client that takes forms was asked by permission request too: %+v", v.c.Permissions())
	}
	var created []elicitRequest
	for _, line := range v.c.Received() {
		var m struct {
			Method string        `json:"method"`
			Params elicitRequest `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == methodElicitationCreate {
			created = append(created, m.Params)
		}
	}
	if len(created) != 2 || created[0].SessionID != string(id) || created[0].ToolCallID == "" || !strings.Contains(created[0].Message, "Which databases?") {
		t.Errorf("the forms asked: %+v", created)
	}
	got := functionResponses(t, model)
	for _, want := range []string{"Postgres", "Redis", "ledger"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model was not told %q: %s", want, got)
		}
	}
	if strings.Contains(got, "could offer") {
		t.Errorf("the model was told the editor could not offer something: %s", got)
	}
}

// A client that declares terminal authentication is offered the Google
// sign-in in a terminal (the agent run with --login); one that does not
// is not, as the protocol asks; authenticate refuses it.
func TestTerminalSignInOffered(t *testing.T) {
	model := geminitest.NewTestServer(t)
	terminalMethod := func(init json.RawMessage) json.RawMessage {
		var res struct {
			AuthMethods []json.RawMessage `json:"authMethods"`
		}
		if err := json.Unmarshal(init, &res); err != nil {
			t.Fatal(err)
		}
		for _, m := range res.AuthMethods {
			if strings.Contains(string(m), `"type":"terminal"`) {
				return m
			}
		}
		return nil
	}
	without := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	if m := terminalMethod(without.init); m != nil {
		t.Errorf("a client without terminal authentication was offered %s", m)
	}
	with := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{Auth: sdk.AuthCapabilities{Terminal: true}}, acptest.Config{})
	m := terminalMethod(with.init)
	var method struct {
		ID   string   `json:"id"`
		Args []string `json:"args"`
	}
	if err := json.Unmarshal(m, &method); err != nil || method.ID != TerminalSignInMethod || !slices.Equal(method.Args, []string{"--login"}) {
		t.Errorf("the terminal sign-in offered: %s (%v)", m, err)
	}
	if a := with.call("authenticate", sdk.AuthenticateRequest{MethodId: TerminalSignInMethod}); a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("authenticate with the terminal method answered %v, want invalid params", a)
	}
}

// The topic the model names (update_topic) is the session's title, sent
// as session_info_update with the time; each turn's end sends the time
// the session was last active.
func TestSessionInfoUpdate(t *testing.T) {
	topic := geminitest.CallTurn(&genai.FunctionCall{Name: "update_topic", Args: map[string]any{
		"title": "Fix the login bug", "summary": "Start on the login bug.", "strategic_intent": "Read the login code."}})
	model := geminitest.NewTestServer(t, topic, geminitest.TextTurn("Done."), geminitest.TextTurn("Again."))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	id := v.newSession(t.TempDir())
	before := time.Now().UTC().Add(-time.Second)
	v.prompt(id, "fix the login")
	infos := infosWritten(t, v.c, id)
	if len(infos) != 2 || infos[0].Title == nil || *infos[0].Title != "Fix the login bug" {
		t.Fatalf("after a turn that named a topic, the session infos: %s", showInfos(infos))
	}
	if infos[1].Title != nil || infos[1].UpdatedAt == nil {
		t.Errorf("the turn's end sent %s, want the time alone", showInfos(infos[1:]))
	}
	for _, info := range infos {
		at, err := time.Parse(time.RFC3339, *info.UpdatedAt)
		if err != nil || at.Before(before.Truncate(time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("updatedAt %q is not the time now: %v", *info.UpdatedAt, err)
		}
	}
	v.prompt(id, "again")
	if infos := infosWritten(t, v.c, id); len(infos) != 3 || infos[2].Title != nil {
		t.Errorf("a turn that named no topic sent %s, want one more with the time alone", showInfos(infos))
	}
}

// A session is listed by the last topic the model named, not its first
// prompt, and a client that loads or resumes it is told, before the
// answer, that title and the time it was last active, as session/list
// gives them (session_info_update, checked against the schema).
func TestSessionInfoShownOnLoad(t *testing.T) {
	model := geminitest.NewTestServer(t,
		topicTurn("Fix the login bug"), geminitest.TextTurn("Fixed."),
		topicTurn("Write the tests"), geminitest.TextTurn("Written."))
	env := v1Env(t, model.URL)
	root := t.TempDir()
	first := serveV1(t, env, sdk.ClientCapabilities{}, acptest.Config{})
	id := first.newSession(root)
	first.prompt(id, "fix the login\nit fails")
	first.prompt(id, "now the tests")
	var list sdk.ListSessionsResponse
	if err := json.Unmarshal(first.request("session/list", sdk.ListSessionsRequest{}), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "Write the tests" || list.Sessions[0].UpdatedAt == nil {
		t.Fatalf("session/list: %+v; want the session titled by its last topic", list.Sessions)
	}
	saved := list.Sessions[0]
	for _, method := range []string{"session/load", "session/resume"} {
		v := serveV1(t, env, sdk.ClientCapabilities{}, acptest.Config{})
		v.request(method, sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
		infos := infosWritten(t, v.c, id)
		if len(infos) != 1 || infos[0].Title == nil || *infos[0].Title != *saved.Title || infos[0].UpdatedAt == nil || *infos[0].UpdatedAt != *saved.UpdatedAt {
			t.Errorf("%s sent the session infos %s; want one, the saved title %q and time %s", method, showInfos(infos), *saved.Title, *saved.UpdatedAt)
		}
	}
}

// infosWritten are the session_info_updates for id among the lines the
// agent wrote so far, in order.
func infosWritten(t *testing.T, c *acptest.Client, id sdk.SessionId) []*sdk.SessionSessionInfoUpdate {
	t.Helper()
	var out []*sdk.SessionSessionInfoUpdate
	for _, u := range updatesWritten(c, id) {
		if u.SessionInfoUpdate != nil {
			out = append(out, u.SessionInfoUpdate)
		}
	}
	return out
}

// updatesWritten are the session/updates for id among the lines the
// agent wrote so far, in order: those written before an answer are read
// once the answer is (the client's handler may not have seen them yet).
func updatesWritten(c *acptest.Client, id sdk.SessionId) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, line := range c.Received() {
		var m struct {
			Method string                  `json:"method"`
			Params sdk.SessionNotification `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != "session/update" {
			continue
		}
		if m.Params.SessionId == id {
			out = append(out, m.Params.Update)
		}
	}
	return out
}

// topicTurn is the model naming a topic with update_topic.
func topicTurn(title string) geminitest.Turn {
	return geminitest.CallTurn(&genai.FunctionCall{Name: "update_topic", Args: map[string]any{
		"title": title, "summary": "Start on it.", "strategic_intent": "Read the code."}})
}

func showInfos(infos []*sdk.SessionSessionInfoUpdate) string {
	b, _ := json.Marshal(infos)
	return string(b)
}

// After each of the model's answers the client is told how full the
// window is: the tokens the request took and the model's window, as
// usage_update; the second answer's request held more (the call and its
// result). Loaded or resumed, the session is told the last one again.
func TestUsageUpdateAfterEachAnswer(t *testing.T) {
	read := geminitest.CallTurn(&genai.FunctionCall{Name: "list_directory", Args: map[string]any{"dir_path": "."}})
	model := geminitest.NewTestServer(t, read, geminitest.TextTurn("Listed."))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	root := t.TempDir()
	id := v.newSession(root)
	if res := v.prompt(id, "list the folder"); res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt ended %q", res.StopReason)
	}
	var usages []*sdk.SessionUsageUpdate
	for _, u := range updatesWritten(v.c, id) {
		if u.UsageUpdate != nil {
			usages = append(usages, u.UsageUpdate)
		}
	}
	if len(usages) != 2 {
		t.Fatalf("%d usage_updates for two answers: %+v", len(usages), usages)
	}
	for _, u := range usages {
		if u.Size != 1_048_576 || u.Used <= 0 || u.Cost != nil {
			t.Errorf("usage_update %+v, want the tokens used of gemini-2.5-pro's 1048576 and no cost", *u)
		}
	}
	if usages[1].Used <= usages[0].Used {
		t.Errorf("the second request used %d tokens, the first %d: the call and its result count for nothing", usages[1].Used, usages[0].Used)
	}

	// Loaded or resumed in another connection, the session's meter shows
	// the last answer's fill again at once, before any answer.
	for _, method := range []string{"session/load", "session/resume"} {
		w := serveV1(t, v.env, sdk.ClientCapabilities{}, acptest.Config{})
		w.request(method, sdk.LoadSessionRequest{SessionId: id, Cwd: root, McpServers: []sdk.McpServer{}})
		var shown []*sdk.SessionUsageUpdate
		for _, u := range updatesWritten(w.c, id) {
			if u.UsageUpdate != nil {
				shown = append(shown, u.UsageUpdate)
			}
		}
		if len(shown) != 1 || shown[0].Used != usages[1].Used || shown[0].Size != usages[1].Size {
			t.Errorf("%s sent the usage_updates %+v; want the last answer's %+v", method, shown, *usages[1])
		}
	}
}
