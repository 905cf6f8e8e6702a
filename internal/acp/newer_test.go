package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// ownUpdates are the session/updates of kind (notice, compaction_update,
// tool_call) for id the agent wrote, as JSON objects.
func ownUpdates(t *testing.T, c *acptest.Client, id sdk.SessionId, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range c.Received() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != "session/update" || m.Params.SessionID != string(id) {
			continue
		}
		if m.Params.Update["sessionUpdate"] == kind {
			out = append(out, m.Params.Update)
		}
	}
	return out
}

// agentText is everything the agent said to session id as its message.
func agentText(c *acptest.Client, id sdk.SessionId) string {
	var b strings.Builder
	for _, u := range updatesWritten(c, id) {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// withSettings writes the user's settings.json in env's home.
func withSettings(t *testing.T, env map[string]string, text string) {
	t.Helper()
	dir := filepath.Join(env["HOME"], ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A warning of gemini-ls's own (a settings key nothing reads) is a
// session notice for a client that declared session.notices, and no
// note in the conversation; a client that did not is sent no notice,
// and is told it in the agent's message as before.
func TestNoticesOnlyAfterOptIn(t *testing.T) {
	model := geminitest.NewTestServer(t)
	for _, opted := range []bool{true, false} {
		env := v1Env(t, model.URL)
		withSettings(t, env, `{"notASettingOfAnyone": true}`)
		v := serveV1Raw(t, env, opted, false)
		id := v.newSession(t.TempDir())
		v.c.Wait(v.ctx, "the session's announcement", func(c *acptest.Client) bool {
			return len(ownUpdates(t, c, id, "notice")) > 0 || strings.Contains(agentText(c, id), "notASettingOfAnyone")
		})
		notices := ownUpdates(t, v.c, id, "notice")
		said := agentText(v.c, id)
		if opted {
			if len(notices) != 1 || notices[0]["severity"] != "warning" || !strings.Contains(toJSON(notices[0]), "notASettingOfAnyone") || notices[0]["title"] == "" {
				t.Errorf("a client taking notices was sent the notices %s", toJSON(notices))
			}
			if strings.Contains(said, "notASettingOfAnyone") {
				t.Errorf("a client taking notices was told the warning in the conversation too: %q", said)
			}
		} else {
			if len(notices) != 0 {
				t.Errorf("a client that did not declare session.notices was sent %s", toJSON(notices))
			}
			if !strings.Contains(said, "notASettingOfAnyone") {
				t.Errorf("a client without notices was not told of the unread setting: %q", said)
			}
		}
	}
}

// serveV1Raw serves a connection whose client declares
// clientCapabilities.session's notices and compaction as asked, which
// the SDK's types cannot say.
func serveV1Raw(t *testing.T, env map[string]string, notices, compaction bool) *v1Conn {
	t.Helper()
	session := map[string]any{}
	if notices {
		session["notices"] = map[string]any{}
	}
	if compaction {
		session["compaction"] = map[string]any{}
	}
	return serveV1With(t, env, acptest.Config{}, map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"session": session}})
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// varied is n different sentences about what (repeated text would be
// stopped as a loop).
func varied(what string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "The %s number %d is worth %d words. ", what, i, i*7+3)
	}
	return b.String()
}

// answerUsing is the model's text answer reporting a prompt of tokens.
func answerUsing(text string, tokens int32) geminitest.Turn {
	t := geminitest.TextTurn(text)
	t.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: tokens, TotalTokenCount: tokens}
	return t
}

// The history past the settings' compression threshold is compressed
// before the next prompt: a client that declared
// session.compaction is sent a completed compaction_update whose summary
// says by how much, and no thought of it; one that did not, the thought
// alone.
func TestCompactionUpdateWhenHistoryIsCompressed(t *testing.T) {
	for _, opted := range []bool{true, false} {
		snapshot := "<state_snapshot>the user asked twice</state_snapshot>"
		model := geminitest.NewTestServer(t, answerUsing("first answer: "+varied("fact", 50), 100), answerUsing("second answer: "+varied("result", 5), 300),
			answerUsing("third answer", 5000), geminitest.TextTurn(snapshot), geminitest.TextTurn(snapshot), geminitest.TextTurn("fourth answer"))
		env := v1Env(t, model.URL)
		withSettings(t, env, `{"model":{"compressionThreshold":0.001}}`)
		v := serveV1Raw(t, env, false, opted)
		id := v.newSession(t.TempDir())
		for _, p := range []string{"first: " + varied("question", 40), "second: " + varied("test", 5), "third", "fourth"} {
			v.prompt(id, p)
		}
		updates := ownUpdates(t, v.c, id, "compaction_update")
		var thought strings.Builder
		for _, u := range updatesWritten(v.c, id) {
			if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
				thought.WriteString(u.AgentThoughtChunk.Content.Text.Text)
			}
		}
		compressedThought := strings.Contains(thought.String(), "The history was compressed")
		if opted {
			if len(updates) != 1 || updates[0]["status"] != "completed" || updates[0]["compactionId"] == "" || !strings.Contains(toJSON(updates[0]["summary"]), "compressed from") {
				t.Errorf("a client taking compaction was sent %s", toJSON(updates))
			}
			if compressedThought {
				t.Error("a client taking compaction was sent the thought too")
			}
		} else if len(updates) != 0 || !compressedThought {
			t.Errorf("a client without compaction was sent %s, the thought %v", toJSON(updates), compressedThought)
		}
	}
}

// A tool_call names the tool itself (name) beside its title.
func TestToolCallName(t *testing.T) {
	read := geminitest.CallTurn(&genai.FunctionCall{Name: "list_directory", Args: map[string]any{"dir_path": "."}})
	model := geminitest.NewTestServer(t, read, geminitest.TextTurn("Listed."))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	id := v.newSession(t.TempDir())
	v.prompt(id, "list the folder")
	calls := ownUpdates(t, v.c, id, "tool_call")
	if len(calls) != 1 || calls[0]["name"] != "list_directory" || calls[0]["title"] == "" {
		t.Errorf("the tool_calls sent: %s; want one named list_directory with its title", toJSON(calls))
	}
}

// systemOf is the system instruction of the model's last request.
func systemOf(t *testing.T, model *geminitest.Server) string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].SystemInstruction == nil {
		t.Fatal("the model was asked without a system instruction")
	}
	var b strings.Builder
	for _, p := range reqs[len(reqs)-1].SystemInstruction.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// The client's system prompt reaches the model's request: appended to
// gemini-ls's own, or in override in its place, the rules about
// approvals kept. It is declared in initialize, with override; a mode
// not offered, or content that is not text, is refused and no session
// made.
func TestClientSystemPrompt(t *testing.T) {
	const rule = "Never assume a rejected change was applied"
	const client = "Answer in the voice of a ship's captain."
	model := geminitest.NewTestServer(t, geminitest.TextTurn("Aye."), geminitest.TextTurn("Aye."))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	if !strings.Contains(string(v.init), `"systemPrompt":{"mode":{"override":{}}}`) {
		t.Errorf("initialize does not declare systemPrompt with override: %s", v.init)
	}
	for _, mode := range []string{"append", "override"} {
		res := v.request("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
			"systemPrompt": map[string]any{"mode": mode, "content": []any{map[string]any{"type": "text", "text": client}}}})
		var made sdk.NewSessionResponse
		if err := json.Unmarshal(res, &made); err != nil {
			t.Fatal(err)
		}
		v.prompt(made.SessionId, "hello")
		system := systemOf(t, model)
		builtIn := strings.Contains(system, "You are a coding agent working inside the user's code editor")
		if !strings.Contains(system, client) || !strings.Contains(system, rule) {
			t.Errorf("%s: the model's system instruction lacks the client's prompt or the approval rules:\n%s", mode, system)
		}
		if builtIn != (mode == "append") {
			t.Errorf("%s: the built-in prompt is there: %v, want %v", mode, builtIn, mode == "append")
		}
	}
	for _, bad := range []map[string]any{
		{"mode": "replace_everything", "content": []any{map[string]any{"type": "text", "text": client}}},
		{"mode": "append", "content": []any{}},
		{"mode": "append", "content": []any{map[string]any{"type": "image", "data": "AA==", "mimeType": "image/png"}}},
	} {
		a := v.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}, "systemPrompt": bad})
		if a.Error == nil || a.Error.Code != -32602 {
			t.Errorf("session/new with systemPrompt %v answered %v, want invalid params", bad, a)
		}
	}
}

// session/set_title titles a session: the answer gives the title as
// kept, session/list lists it by it, and the model's topics no longer
// change it. session/archive takes a session out of session/list, which
// lists it, marked, when asked for archived ones; unarchive brings it
// back. An unknown id is resource_not_found.
func TestSetTitleAndArchive(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"), topicTurn("The model's topic"), geminitest.TextTurn("three"))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	for _, cap := range []string{`"title":{}`, `"archive":{}`, `"status":{}`} {
		if !strings.Contains(string(v.init), cap) {
			t.Errorf("initialize does not declare sessionCapabilities %s: %s", cap, v.init)
		}
	}
	root := t.TempDir()
	id, other := v.newSession(root), v.newSession(root)
	v.prompt(id, "first")
	v.prompt(other, "second")
	res := v.request("session/set_title", map[string]any{"sessionId": id, "title": "  Release\nnotes  "})
	if string(res) != `{"title":"Release notes"}` {
		t.Errorf("session/set_title answered %s", res)
	}
	v.prompt(id, "again") // names a topic of the model's
	list := func(filter string) map[string]sessionInfo {
		params := map[string]any{}
		if filter != "" {
			params["archived"] = filter
		}
		var l listSessionsResponse
		if err := json.Unmarshal(v.request("session/list", params), &l); err != nil {
			t.Fatal(err)
		}
		out := map[string]sessionInfo{}
		for _, s := range l.Sessions {
			out[string(s.SessionID)] = s
		}
		return out
	}
	if got := list(""); got[string(id)].Title == nil || *got[string(id)].Title != "Release notes" {
		t.Errorf("session/list after set_title and a topic: %s", toJSON(got))
	}
	if a := v.call("session/set_title", map[string]any{"sessionId": id, "title": " \n "}); a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("an empty title answered %v, want invalid params", a)
	}
	if res := v.request("session/archive", map[string]any{"sessionId": id}); string(res) != "{}" {
		t.Errorf("session/archive answered %s", res)
	}
	var st sessionStatusResponse
	if err := json.Unmarshal(v.request("session/status", map[string]any{"sessionId": id}), &st); err != nil || st.Status != "saved" {
		t.Errorf("the archived session's status: %+v (%v); want it closed, saved", st, err)
	}
	if got := list(""); len(got) != 1 || got[string(other)].Archived {
		t.Errorf("session/list after archiving one: %s; want the other alone, not archived", toJSON(got))
	}
	if got := list("only"); len(got) != 1 || !got[string(id)].Archived {
		t.Errorf("session/list of the archived: %s", toJSON(got))
	}
	if got := list("include"); len(got) != 2 {
		t.Errorf("session/list including the archived: %s", toJSON(got))
	}
	if a := v.call("session/list", map[string]any{"archived": "sometimes"}); a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("an unknown archive filter answered %v, want invalid params", a)
	}
	v.request("session/unarchive", map[string]any{"sessionId": id})
	if got := list(""); len(got) != 2 || got[string(id)].Archived {
		t.Errorf("session/list after unarchiving: %s", toJSON(got))
	}
	for _, method := range []string{"session/set_title", "session/archive", "session/unarchive"} {
		if a := v.call(method, map[string]any{"sessionId": "no-such-session", "title": "x"}); a.Error == nil || a.Error.Code != -32002 {
			t.Errorf("%s of an unknown session answered %v, want resource_not_found", method, a)
		}
	}
}

// session/status says open for a session open here, saved for one on
// disk alone, without opening it; auth/status says authenticated with
// the key, and unauthenticated after logout, never auth_required.
func TestSessionStatusAndAuthStatus(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("one"))
	v := serveV1(t, v1Env(t, model.URL), sdk.ClientCapabilities{}, acptest.Config{})
	if !strings.Contains(string(v.init), `"status":{}`) || !strings.Contains(string(v.init), `"auth":{"logout":{},"status":{}}`) {
		t.Errorf("initialize does not declare session/status and auth/status: %s", v.init)
	}
	id := v.newSession(t.TempDir())
	v.prompt(id, "first")
	status := func() string {
		var r sessionStatusResponse
		if err := json.Unmarshal(v.request("session/status", map[string]any{"sessionId": id}), &r); err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	if got := status(); got != "open" {
		t.Errorf("the status of an open session is %q", got)
	}
	v.request("session/close", sdk.CloseSessionRequest{SessionId: id})
	if got := status(); got != "saved" {
		t.Errorf("the status of a closed, saved session is %q", got)
	}
	if got := status(); got != "saved" {
		t.Errorf("session/status opened the session: %q", got)
	}
	if a := v.call("session/status", map[string]any{"sessionId": "no-such-session"}); a.Error == nil || a.Error.Code != -32002 || !strings.Contains(toJSON(a.Error.Data), "no-such-session") {
		t.Errorf("the status of an unknown session answered %v", a)
	}
	var auth authStatusResponse
	if err := json.Unmarshal(v.request("auth/status", map[string]any{}), &auth); err != nil {
		t.Fatal(err)
	}
	if auth.State != "authenticated" || len(auth.Accounts) != 1 || auth.Accounts[0].Label != "Gemini API key" {
		t.Errorf("auth/status with a key: %s", toJSON(auth))
	}
	v.request("logout", map[string]any{})
	if err := json.Unmarshal(v.request("auth/status", map[string]any{}), &auth); err != nil || auth.State != "unauthenticated" {
		t.Errorf("auth/status after logout: %s (%v)", toJSON(auth), err)
	}
}

// Each Go type of a message the SDK's types lack has its schema
// definition's members, no more and no fewer, and none the schema
// requires is left out when empty.
func TestNewerTypesMatchTheSchema(t *testing.T) {
	s := loadACPSchema(t)
	for _, c := range []struct {
		v    any
		def  string
		file *schemaFile
	}{
		{noticeUpdate{}, "Notice", s.stable},
		{compactionUpdate{}, "CompactionUpdate", s.stable},
		{clientSessionCapabilities{}, "ClientSessionCapabilities", s.stable},
		{systemPromptParam{}, "SystemPrompt", s.unstable},
		{setSessionTitleRequest{}, "SetSessionTitleRequest", s.unstable},
		{setSessionTitleResponse{}, "SetSessionTitleResponse", s.unstable},
		{sessionRequest{}, "ArchiveSessionRequest", s.unstable},
		{sessionRequest{}, "UnarchiveSessionRequest", s.unstable},
		{sessionRequest{}, "SessionStatusRequest", s.unstable},
		{emptyResponse{}, "ArchiveSessionResponse", s.unstable},
		{emptyResponse{}, "UnarchiveSessionResponse", s.unstable},
		{sessionStatusResponse{}, "SessionStatusResponse", s.unstable},
		{authStatusRequest{}, "AuthStatusRequest", s.unstable},
		{authStatusResponse{}, "AuthStatusResponse", s.unstable},
		{authAccount{}, "AuthAccount", s.unstable},
		{listSessionsRequest{}, "ListSessionsRequest", s.unstable},
		{listSessionsResponse{}, "ListSessionsResponse", s.unstable},
		{sessionInfo{}, "SessionInfo", s.unstable},
		{sessionSystemPromptCapabilities{}, "SessionSystemPromptCapabilities", s.unstable},
		{systemPromptModeCapabilities{}, "SessionSystemPromptModeCapabilities", s.unstable},
	} {
		var def struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(c.file.defs[c.def], &def); err != nil {
			t.Fatalf("%s: %v", c.def, err)
		}
		var want []string
		for name := range def.Properties {
			want = append(want, name)
		}
		got, omitted := jsonMembers(reflect.TypeOf(c.v))
		got = slices.DeleteFunc(got, func(n string) bool { return n == "sessionUpdate" }) // the union's tag
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T has the members %q; %s of %s has %q", c.v, got, c.def, c.file.name, want)
		}
		for _, r := range def.Required {
			if omitted[r] {
				t.Errorf("%T leaves out %s when empty, which %s requires", c.v, r, c.def)
			}
		}
	}
}

// jsonMembers are the JSON member names of struct type t, and which are
// left out when empty.
func jsonMembers(t reflect.Type) (names []string, omitted map[string]bool) {
	omitted = map[string]bool{}
	for f := range t.Fields() {
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		names = append(names, name)
		omitted[name] = strings.Contains(opts, "omitempty")
	}
	return names, omitted
}
