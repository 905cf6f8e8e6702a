package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// FileName is Gemini CLI's token file, in the user's .gemini directory.
const FileName = "mcp-oauth-tokens.json"

// maxFile bounds the token file.
const maxFile = 4 << 20

// expiryMargin is how long before its expiry a token counts as expired,
// for clock skew, as in Gemini CLI.
const expiryMargin = 5 * time.Minute

// Token is Gemini CLI's OAuthToken.
type Token struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken,omitempty"`
	// ExpiresAt is in milliseconds since the epoch; 0 never expires.
	ExpiresAt int64  `json:"expiresAt,omitempty"`
	TokenType string `json:"tokenType"`
	Scope     string `json:"scope,omitempty"`
}

// expired says whether t should no longer be sent at now.
func (t Token) expired(now time.Time) bool {
	return t.ExpiresAt != 0 && !now.Add(expiryMargin).Before(time.UnixMilli(t.ExpiresAt))
}

// Credentials is Gemini CLI's OAuthCredentials: one server's entry.
type Credentials struct {
	ServerName   string `json:"serverName"`
	Token        Token  `json:"token"`
	ClientID     string `json:"clientId,omitempty"`
	TokenURL     string `json:"tokenUrl,omitempty"`
	MCPServerURL string `json:"mcpServerUrl,omitempty"`
	UpdatedAt    int64  `json:"updatedAt"`
	// Issuer is the authorization server that granted the token, as MCP
	// 2026-07-28 keeps credentials per issuer: the token, and the client
	// registered for it, are refreshed only at its token endpoint
	// (TokenURL, found with it), and a sign-in to another issuer replaces
	// them whole. Gemini CLI 0.61 does not write it; "" when the
	// endpoints are configured.
	Issuer string `json:"issuer,omitempty"`
}

// Store is the token file. It is safe for concurrent use by the servers
// of one process; between processes, each read-modify-write of the file
// is made under its lock (internal/sharedlock), so that a sign-in of one
// gemini-ls does not lose another's made at once. Gemini CLI 0.61 takes
// no lock on it.
type Store struct {
	path string
	mu   sync.Mutex
}

// NewStore is the store at path (the user's .gemini/FileName).
func NewStore(path string) *Store { return &Store{path: path} }

// Get returns the server's credentials, or nil when it has none.
func (s *Store) Get(server string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.read()
	if err != nil {
		return nil, err
	}
	for _, raw := range entries {
		var c Credentials
		if json.Unmarshal(raw, &c) == nil && c.ServerName == server {
			return &c, nil
		}
	}
	return nil, nil
}

// Save records c, keeping a refresh token the new token lacks, as Gemini
// CLI does.
func (s *Store) Save(ctx context.Context, c Credentials) error {
	return s.update(ctx, c.ServerName, func(old *Credentials) *Credentials {
		if c.Token.RefreshToken == "" && old != nil {
			c.Token.RefreshToken = old.Token.RefreshToken
		}
		c.UpdatedAt = time.Now().UnixMilli()
		return &c
	})
}

// Delete removes the server's credentials.
func (s *Store) Delete(ctx context.Context, server string) error {
	return s.update(ctx, server, func(*Credentials) *Credentials { return nil })
}

// update replaces the server's entry with what change makes of it (nil:
// none), leaving the others as they were. The mutex orders this
// process's own writers, which so never poll the lock for each other; the
// lock keeps other processes' writes apart. When it cannot be had, the
// error says so and the file is left as it is.
func (s *Store) update(ctx context.Context, server string, change func(old *Credentials) *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("saving the MCP OAuth tokens: %w", err)
	}
	err := sharedlock.Rewrite(ctx, s.path, maxFile, func(data []byte) ([]byte, error) {
		entries, err := s.parse(data)
		if err != nil {
			return nil, err
		}
		var old *Credentials
		kept := make([]json.RawMessage, 0, len(entries)+1)
		for _, raw := range entries {
			var c Credentials
			if json.Unmarshal(raw, &c) == nil && c.ServerName == server {
				old = &c
				continue
			}
			kept = append(kept, raw)
		}
		if c := change(old); c != nil {
			raw, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			kept = append(kept, raw)
		}
		return json.MarshalIndent(kept, "", "  ")
	}, safefile.ReplacerIf(0o600))
	if err != nil {
		return fmt.Errorf("saving the MCP OAuth tokens: %w", err)
	}
	return nil
}

// read returns the file's entries; none when it does not exist.
func (s *Store) read() ([]json.RawMessage, error) {
	data, err := safefile.Read(s.path, maxFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the MCP OAuth tokens: %w", err)
	}
	return s.parse(data)
}

// parse returns the entries of data, the file's text: none when it is
// nil, the file missing.
func (s *Store) parse(data []byte) ([]json.RawMessage, error) {
	if data == nil {
		return nil, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("reading the MCP OAuth tokens %s: not a JSON array of credentials: %w", s.path, err)
	}
	return entries, nil
}
