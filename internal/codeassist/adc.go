package codeassist

import (
	"context"
	"fmt"

	"cloud.google.com/go/auth"
)

// ADC is Google credentials (Application Default Credentials, for the
// cloud-shell auth type: Cloud Shell's own come from its metadata server,
// which ADC asks last) as a TokenSource. The credentials are looked up at
// the first token, not when the source is made, and a failed lookup is not
// kept: credentials set up after it are used without a restart.
type ADC struct {
	detect func() (*auth.Credentials, error)

	lock  chan struct{}
	creds *auth.Credentials
}

// NewADC returns the credentials detect finds, as a TokenSource.
func NewADC(detect func() (*auth.Credentials, error)) *ADC {
	return &ADC{detect: detect, lock: make(chan struct{}, 1)}
}

// Token returns an access token.
func (a *ADC) Token(ctx context.Context) (string, error) {
	select {
	case a.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-a.lock }()
	if a.creds == nil {
		creds, err := a.detect()
		if err != nil {
			return "", err
		}
		a.creds = creds
	}
	tok, err := a.creds.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("getting a token from Application Default Credentials: %w", err)
	}
	return tok.Value, nil
}
