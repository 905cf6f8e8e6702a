package codeassist

import (
	"context"
	"fmt"
	"net/http"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
)

// ADC is Application Default Credentials as a TokenSource, for the
// cloud-shell auth type (Cloud Shell's own credentials come from its
// metadata server, which ADC asks last). The credentials are looked up at
// the first token, not when the source is made, and a failed lookup is
// not kept: credentials set up after it are used without a restart.
type ADC struct {
	client *http.Client // fetches tokens; the auth library's default when nil
	file   string       // GOOGLE_APPLICATION_CREDENTIALS as the caller reads it

	lock  chan struct{}
	creds *auth.Credentials
}

// NewADC returns Application Default Credentials from file (the caller's
// GOOGLE_APPLICATION_CREDENTIALS, which a .env file may set; the usual
// places when empty), fetching tokens with client (the auth library's
// default when nil).
func NewADC(file string, client *http.Client) *ADC {
	return &ADC{client: client, file: file, lock: make(chan struct{}, 1)}
}

// Token returns an access token for the Code Assist scopes.
func (a *ADC) Token(ctx context.Context) (string, error) {
	select {
	case a.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-a.lock }()
	if a.creds == nil {
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: OAuthScopes, Client: a.client, CredentialsFile: a.file})
		if err != nil {
			return "", fmt.Errorf("finding Application Default Credentials: %w", err)
		}
		a.creds = creds
	}
	tok, err := a.creds.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("getting a token from Application Default Credentials: %w", err)
	}
	return tok.Value, nil
}
