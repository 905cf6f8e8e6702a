package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth/login/logintest"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// signInBuild is gemini-ls built with the gemini_ls_e2e tag, whose
// sign-in can be pointed at a fake authorization server (signin_e2e.go);
// built once, beside the binary TestMain built.
var signInBuild struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

func signInBinary(t *testing.T) string {
	t.Helper()
	signInBuild.once.Do(func() {
		signInBuild.path = filepath.Join(filepath.Dir(binary), "gemini-ls-e2e")
		build := exec.Command("go", "build", "-tags", "gemini_ls_e2e", "-o", signInBuild.path, "github.com/gemini-ls/gemini-ls/cmd/gemini-ls")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		signInBuild.out, signInBuild.err = build.CombinedOutput()
	})
	if signInBuild.err != nil {
		t.Fatalf("building gemini-ls with the sign-in seam: %v\n%s", signInBuild.err, signInBuild.out)
	}
	return signInBuild.path
}

// signInEnv points the test build's sign-in at fake.
func signInEnv(fake *logintest.Server) []string {
	e := fake.Endpoints()
	return []string{"GEMINI_LS_E2E_OAUTH_AUTH_URL=" + e.AuthURL, "GEMINI_LS_E2E_OAUTH_TOKEN_URL=" + e.TokenURL, "GEMINI_LS_E2E_OAUTH_USERINFO_URL=" + e.UserInfoURL}
}

// loginResult is gemini/login's result.
type loginResult struct {
	Email           string `json:"email"`
	CredentialsFile string `json:"credentialsFile"`
	Auth            struct {
		Type   string `json:"type"`
		Usable bool   `json:"usable"`
	} `json:"auth"`
}

// The browser the server asks the editor to open: the URL of the first
// window/showDocument with external: true.
func (h *harness) signInPage() string {
	h.t.Helper()
	var p struct {
		URI      string `json:"uri"`
		External bool   `json:"external"`
	}
	m, err := h.client.WaitMessage(h.ctx, "window/showDocument", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &p) == nil && p.External
	})
	if err != nil {
		h.t.Fatalf("no sign-in page was opened: %v", err)
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.URI
}

// A user with no login at all signs in from the editor: gemini/login has
// the editor open Google's page (window/showDocument, external), the
// browser comes back to gemini-ls's loopback port, the login is cached as
// Gemini CLI caches it (0600), and the next prompt goes through Code
// Assist with it, onboarding the account first, without a restart.
func TestLSPSignInWithGoogle(t *testing.T) {
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "signed-in", Project: "onboarded-project"},
		geminitest.TextTurn("hello after signing in"))
	fake := logintest.NewTestServer(t, logintest.Options{AccessToken: "signed-in", Email: "ada@example.com"})
	home := t.TempDir()
	env := append([]string{"HOME=" + home, "CODE_ASSIST_ENDPOINT=" + ca.URL}, signInEnv(fake)...)
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: env, bin: signInBinary(t)})

	var before struct{ Usable bool }
	if err := h.client.Call(h.ctx, "gemini/authStatus", nil, &before); err != nil || before.Usable {
		t.Fatalf("before signing in: %+v, %v", before, err)
	}

	visited := make(chan logintest.Visit, 1)
	go func() {
		v, err := logintest.Browse(h.ctx, h.signInPage())
		if err != nil {
			v.Body = err.Error()
		}
		visited <- v
	}()
	var res loginResult
	if err := h.client.Call(h.ctx, "gemini/login", nil, &res); err != nil {
		t.Fatalf("gemini/login: %v", err)
	}
	credsPath := filepath.Join(home, ".gemini", "oauth_creds.json")
	if res.Email != "ada@example.com" || res.CredentialsFile != credsPath || res.Auth.Type != "oauth-personal" || !res.Auth.Usable {
		t.Errorf("gemini/login = %+v", res)
	}
	if v := <-visited; !strings.Contains(v.Location, "auth_success_gemini") {
		t.Errorf("the browser ended at %+v", v)
	}
	info, err := os.Stat(credsPath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the cached login: %v, %v", info, err)
	}
	if !strings.Contains(strings.Join(h.showMessages(), "\n"), "signed in with Google as ada@example.com.") {
		t.Errorf("messages: %q", h.showMessages())
	}

	if r := h.prompt(map[string]any{"prompt": "hi"}); r.StopReason != "end_turn" || r.Text != "hello after signing in" {
		t.Fatalf("prompt after signing in: %+v", r)
	}
	if len(ca.RequestsFor("onboardUser")) != 1 {
		t.Errorf("the account was not onboarded: %d onboardUser", len(ca.RequestsFor("onboardUser")))
	}
	for _, r := range ca.RequestsFor("streamGenerateContent") {
		if r.Header.Get("Authorization") != "Bearer signed-in" {
			t.Errorf("the prompt was sent with %q", r.Header.Get("Authorization"))
		}
	}
}

// A redirect with another state than the one sent fails gemini/login with
// Gemini CLI's words, and nothing is cached.
func TestLSPSignInRefusesAWrongState(t *testing.T) {
	fake := logintest.NewTestServer(t, logintest.Options{})
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: append([]string{"HOME=" + home}, signInEnv(fake)...), bin: signInBinary(t)})
	go func() {
		page, _ := url.Parse(h.signInPage())
		forged := logintest.WithParams(page.Query().Get("redirect_uri"), url.Values{"code": {"x"}, "state": {"forged"}})
		_, _ = logintest.Browse(context.WithoutCancel(h.ctx), forged)
	}()
	err := h.client.Call(h.ctx, "gemini/login", nil, &loginResult{})
	if err == nil || !strings.Contains(err.Error(), "OAuth state mismatch") {
		t.Fatalf("gemini/login = %v, want the state mismatch", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "oauth_creds.json")); !os.IsNotExist(err) {
		t.Errorf("a login was cached: %v", err)
	}
}

// fakeBrowser is a BROWSER command that writes the URL it is given to a
// file, and that file: the test then plays the browser on it.
func fakeBrowser(t *testing.T) (command, opened string) {
	t.Helper()
	dir := t.TempDir()
	opened = filepath.Join(dir, "opened-url")
	command = filepath.Join(dir, "browser")
	script := "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + ".tmp && mv " + opened + ".tmp " + opened + "\n"
	if err := os.WriteFile(command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return command, opened
}

// waitFile waits for path to exist and returns what it holds.
func waitFile(ctx context.Context, t *testing.T, path string) string {
	t.Helper()
	for {
		if data, err := os.ReadFile(path); err == nil {
			return string(data)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never appeared", path)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// ACP's authenticate with oauth-personal and no cached login signs in as
// Gemini CLI's does: the browser (BROWSER) opened on Google's page, the
// loopback redirect, the login cached (0600); then a session prompts
// through Code Assist with it. The URL is on stderr too, in words, for a
// user whose browser did not open: started without log flags, as editors
// start it.
func TestACPAuthenticateSignsInWithGoogle(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake browser is a shell script")
	}
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{AccessToken: "signed-in", Project: "p"},
		geminitest.TextTurn("hello over ACP"))
	fake := logintest.NewTestServer(t, logintest.Options{AccessToken: "signed-in", Email: "ada@example.com"})
	browser, opened := fakeBrowser(t)
	home := t.TempDir()
	env := append([]string{"GEMINI_API_KEY=", "BROWSER=" + browser, "CODE_ASSIST_ENDPOINT=" + ca.URL}, signInEnv(fake)...)
	h := startACP(t, acpSetup{noSession: true, home: home, env: env, bin: signInBinary(t), noLogFlags: true})

	visited := make(chan logintest.Visit, 1)
	go func() {
		v, err := logintest.Browse(h.ctx, waitFile(h.ctx, t, opened))
		if err != nil {
			v.Body = err.Error()
		}
		visited <- v
	}()
	if _, err := h.client.Conn.Authenticate(h.ctx, sdk.AuthenticateRequest{MethodId: "oauth-personal"}); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	if v := <-visited; !strings.Contains(v.Location, "auth_success_gemini") {
		t.Errorf("the browser ended at %+v", v)
	}
	stderr, _ := os.ReadFile(h.log + ".stderr")
	if want := "gemini-ls: Sign in with Google: attempting to open the authentication page in your browser; otherwise navigate to: " + fake.Endpoints().AuthURL + "?"; !strings.Contains(string(stderr), want) {
		t.Errorf("stderr does not give the sign-in URL (%q):\n%s", want, stderr)
	}
	info, err := os.Stat(filepath.Join(home, ".gemini", "oauth_creds.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the cached login: %v, %v", info, err)
	}
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new after signing in: %v", err)
	}
	h.session = res.SessionId
	h.mustPrompt("hi", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); got != "hello over ACP" {
		t.Errorf("answer = %q", got)
	}
	if n := len(ca.RequestsFor("streamGenerateContent")); n != 1 {
		t.Errorf("%d prompts reached Code Assist", n)
	}
}

// `gemini-ls login -no-browser`: Gemini CLI's pasted-code sign-in in a
// terminal. The URL is printed, the code Google's page shows is read from
// stdin, and the login is cached (0600) for the next prompt.
func TestLoginCommandWithAPastedCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fake := logintest.NewTestServer(t, logintest.Options{AccessToken: "pasted", Email: "ada@example.com"})
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, signInBinary(t), "login", "-no-browser")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}, signInEnv(fake)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	var printed strings.Builder
	var authURL string
	for authURL == "" {
		line, err := out.ReadString('\n')
		printed.WriteString(line)
		if err != nil {
			t.Fatalf("no URL was printed: %v\n%s\n%s", err, printed.String(), stderr.String())
		}
		if strings.HasPrefix(line, fake.URL) {
			authURL = strings.TrimSpace(line)
		}
	}
	if !strings.Contains(printed.String(), "Please visit the following URL to authorize the application:") {
		t.Errorf("printed %q", printed.String())
	}
	code, err := fake.Code(authURL)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, code+"\n")
	rest, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gemini-ls login: %v\n%s\n%s", err, rest, stderr.String())
	}
	credsPath := filepath.Join(home, ".gemini", "oauth_creds.json")
	if want := "Signed in with Google as ada@example.com. The login is cached in " + credsPath; !strings.Contains(string(rest), want) {
		t.Errorf("printed %q, want %q", rest, want)
	}
	info, err := os.Stat(credsPath)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the cached login: %v, %v", info, err)
	}
}

// `gemini-ls login` opens the browser (BROWSER) and waits for it to come
// back; a wrong state there fails the command and caches nothing.
func TestLoginCommandInTheBrowser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake browser is a shell script")
	}
	for _, tc := range []struct {
		name   string
		forge  bool
		exit   int
		output string
	}{
		{name: "signed in", output: "Signed in with Google as ada@example.com."},
		{name: "wrong state", forge: true, exit: 1, output: "OAuth state mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			fake := logintest.NewTestServer(t, logintest.Options{Email: "ada@example.com"})
			browser, opened := fakeBrowser(t)
			home := t.TempDir()
			cmd := exec.CommandContext(ctx, signInBinary(t), "login")
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "BROWSER=" + browser}, signInEnv(fake)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			page := waitFile(ctx, t, opened)
			if tc.forge {
				u, _ := url.Parse(page)
				page = logintest.WithParams(u.Query().Get("redirect_uri"), url.Values{"code": {"x"}, "state": {"forged"}})
			}
			if _, err := logintest.Browse(ctx, page); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if (err == nil && tc.exit != 0) || (err != nil && (!errors.As(err, &exit) || exit.ExitCode() != tc.exit)) {
				t.Fatalf("exit: %v, want %d\n%s\n%s", err, tc.exit, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String()+stderr.String(), tc.output) || !strings.Contains(stdout.String(), "Otherwise navigate to:\n\n"+fake.URL) {
				t.Errorf("output:\n%s\n%s\nwant %q", stdout.String(), stderr.String(), tc.output)
			}
			_, statErr := os.Stat(filepath.Join(home, ".gemini", "oauth_creds.json"))
			if tc.forge != os.IsNotExist(statErr) {
				t.Errorf("cached login: %v", statErr)
			}
		})
	}
}

// gemini/login with manual: the server asks for the code with gemini/ask
// (the URL in its text, the user's own words only), and the code pasted
// back signs in.
func TestLSPSignInWithAPastedCode(t *testing.T) {
	fake := logintest.NewTestServer(t, logintest.Options{AccessToken: "pasted", Email: "ada@example.com"})
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: append([]string{"HOME=" + home}, signInEnv(fake)...), bin: signInBinary(t)})
	var asked struct {
		Kind     string `json:"kind"`
		Text     string `json:"text"`
		FreeText bool   `json:"freeText"`
	}
	h.client.OnAsk = func(_ context.Context, raw json.RawMessage) any {
		if err := json.Unmarshal(raw, &asked); err != nil {
			return map[string]any{"declined": true}
		}
		i := strings.Index(asked.Text, fake.URL)
		if i < 0 {
			return map[string]any{"declined": true}
		}
		code, err := fake.Code(strings.Fields(asked.Text[i:])[0])
		if err != nil {
			return map[string]any{"declined": true}
		}
		return map[string]any{"chosen": []string{}, "text": code}
	}
	var res loginResult
	if err := h.client.Call(h.ctx, "gemini/login", map[string]any{"manual": true}, &res); err != nil {
		t.Fatalf("gemini/login: %v (asked %+v)", err, asked)
	}
	if asked.Kind != "login" || !asked.FreeText || !strings.Contains(asked.Text, "redirect_uri=https%3A%2F%2Fcodeassist.google.com%2Fauthcode") {
		t.Errorf("asked %+v", asked)
	}
	if res.Email != "ada@example.com" || !res.Auth.Usable {
		t.Errorf("gemini/login = %+v", res)
	}
}

// $/cancelRequest ends a gemini/login that waits for the browser:
// RequestCancelled, and its loopback port closes.
func TestLSPSignInCancelled(t *testing.T) {
	fake := logintest.NewTestServer(t, logintest.Options{})
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: signInEnv(fake), bin: signInBinary(t)})
	if err := h.client.RawCall("login", "gemini/login", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	page, _ := url.Parse(h.signInPage())
	redirect, _ := url.Parse(page.Query().Get("redirect_uri"))
	if err := h.client.Notify(h.ctx, "$/cancelRequest", map[string]any{"id": "raw-login"}); err != nil {
		t.Fatal(err)
	}
	raw, err := h.client.RawResponse(h.ctx, "login")
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &resp) != nil || resp.Error.Code != -32800 {
		t.Fatalf("answer = %s, want RequestCancelled", raw)
	}
	if conn, err := net.Dial("tcp", redirect.Host); err == nil {
		conn.Close()
		t.Errorf("the sign-in still listens on %s", redirect.Host)
	}
}
