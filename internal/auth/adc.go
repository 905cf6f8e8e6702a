package auth

import (
	"encoding/json"
	"fmt"
	"net/http"

	gauth "cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// adcTypes are the credential files a user sets up for Application
// Default Credentials (gcloud, a service account key, workload identity).
var adcTypes = []credentials.CredType{
	credentials.ServiceAccount, credentials.AuthorizedUser, credentials.ImpersonatedServiceAccount,
	credentials.ExternalAccount, credentials.ExternalAccountAuthorizedUser, credentials.GDCHServiceAccount,
}

// maxCredentialsFile bounds a credentials file.
const maxCredentialsFile = 1 << 20

// detectADC finds Application Default Credentials for scopes: the file
// named by GOOGLE_APPLICATION_CREDENTIALS as getenv read it (a .env file
// may set it, which the auth library, reading the process environment,
// would not see), else the library's usual places (the process's variable,
// gcloud's file, the metadata server). Tokens are fetched with client.
func detectADC(file string, scopes []string, client *http.Client) (*gauth.Credentials, error) {
	opts := &credentials.DetectOptions{Scopes: scopes, Client: client}
	if file == "" {
		creds, err := credentials.DetectDefault(opts)
		if err != nil {
			return nil, fmt.Errorf("finding Application Default Credentials: %w", err)
		}
		return creds, nil
	}
	data, err := safefile.Read(file, maxCredentialsFile)
	if err != nil {
		return nil, fmt.Errorf("reading the credentials file %s (GOOGLE_APPLICATION_CREDENTIALS): %w", file, err)
	}
	var head struct {
		Type credentials.CredType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("the credentials file %s (GOOGLE_APPLICATION_CREDENTIALS) is not JSON: %w", file, err)
	}
	for _, t := range adcTypes {
		if head.Type == t {
			creds, err := credentials.NewCredentialsFromJSON(t, data, opts)
			if err != nil {
				return nil, fmt.Errorf("using the credentials file %s: %w", file, err)
			}
			return creds, nil
		}
	}
	return nil, fmt.Errorf("the credentials file %s (GOOGLE_APPLICATION_CREDENTIALS) has type %q, not one of Application Default Credentials' types", file, head.Type)
}
