package auth

import "crypto/x509"

// WithRootCAs is a with only roots trusted for https, for tests serving
// an https endpoint under a certificate of their own.
func WithRootCAs(a Auth, roots *x509.CertPool) Auth {
	a.rootCAs = roots
	return a
}
