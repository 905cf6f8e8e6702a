package oauth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// saveEnv, set in a test binary's environment, makes it a process that
// saves a token for that server in the token file tokenFileEnv names,
// and exits (locktest.Processes).
const (
	saveEnv      = "GEMINI_LS_TEST_SAVE_MCP_TOKEN"
	tokenFileEnv = "GEMINI_LS_TEST_MCP_TOKEN_FILE"
)

func TestMain(m *testing.M) {
	locktest.Writer(saveEnv, func(server string) error {
		return NewStore(os.Getenv(tokenFileEnv)).Save(context.Background(), Credentials{ServerName: server, Token: Token{AccessToken: "a-" + server, TokenType: "Bearer"}})
	})
	os.Exit(m.Run())
}

// 20 processes each saving its own server's token at once: every token
// is kept.
func TestConcurrentSavesKeepEveryServer(t *testing.T) {
	const n = 20
	path := filepath.Join(t.TempDir(), FileName)
	server := func(i int) string { return fmt.Sprintf("server-%02d", i) }
	locktest.Processes(t, n, func(i int) []string {
		return []string{saveEnv + "=" + server(i), tokenFileEnv + "=" + path}
	})
	s := NewStore(path)
	var lost []string
	for i := range n {
		if c, err := s.Get(server(i)); err != nil || c == nil || c.Token.AccessToken != "a-"+server(i) {
			lost = append(lost, server(i))
		}
	}
	if len(lost) > 0 {
		data, _ := os.ReadFile(path)
		t.Errorf("the tokens of %d of %d servers were lost: %v\n%s", len(lost), n, lost, data)
	}
}

// A save and a delete wait for a fresh lock on the token file, and a save
// gives up, the file unchanged, on one never released.
func TestStoreHonoursTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := NewStore(path)
	if err := s.Save(t.Context(), Credentials{ServerName: "other", Token: Token{AccessToken: "x", TokenType: "Bearer"}}); err != nil {
		t.Fatal(err)
	}
	locktest.Waits(t, path, func(ctx context.Context) error {
		return s.Save(ctx, Credentials{ServerName: "ls", Token: Token{AccessToken: "a1", TokenType: "Bearer"}})
	})
	if c, err := s.Get("ls"); err != nil || c == nil || c.Token.AccessToken != "a1" {
		t.Errorf("after the wait to save: %+v, %v", c, err)
	}
	locktest.Waits(t, path, func(ctx context.Context) error { return s.Delete(ctx, "ls") })
	if c, err := s.Get("ls"); err != nil || c != nil {
		t.Errorf("after the wait to delete: %+v, %v", c, err)
	}
	if c, err := s.Get("other"); err != nil || c == nil {
		t.Errorf("the other server's token: %+v, %v", c, err)
	}
	locktest.Refused(t, path, func(ctx context.Context) error {
		return s.Save(ctx, Credentials{ServerName: "ls", Token: Token{AccessToken: "a2", TokenType: "Bearer"}})
	})
}

// Gemini CLI 0.61 writes the token file without the lock: the tokens it
// saves while gemini-ls saves its own are kept, and gemini-ls's save
// fails rather than write over them.
func TestTokensGeminiCLISavesMeanwhileAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-oauth-tokens.json")
	s := NewStore(path)
	theirs := `[{"serverName": "theirs", "token": {"accessToken": "t", "tokenType": "Bearer"}}]`
	err := s.update(t.Context(), "ours", func(*Credentials) *Credentials {
		if err := os.WriteFile(path, []byte(theirs), 0o600); err != nil {
			t.Fatal(err)
		}
		return &Credentials{ServerName: "ours"}
	})
	if err == nil {
		t.Error("a save over Gemini CLI's succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != theirs {
		t.Errorf("the token file = %s, want Gemini CLI's", got)
	}
}
