package auth

import (
	"errors"
	"fmt"
	"slices"

	"golang.org/x/oauth2"
)

// The grant types of this package's sources (their grant_type).
const (
	grantClientCredentials = "client_credentials"
	grantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
)

// A GrantError is an authorization server's refusal of a token request
// (RFC 6749 §5.2). The sources of this package ([ClientCredentials],
// [WorkloadIdentity], [Enterprise]) return it wrapped. It holds the grant,
// the endpoint, and the OAuth error code and description.
//
// The refusals invalid_grant, invalid_scope and unauthorized_client are
// final. The source sends the same request again neither at once nor
// later, and tries no other grant. It returns the same GrantError, without
// a request. invalid_grant means the assertion or ID token is expired, for
// another audience, or not trusted. It stands until what the source would
// present changes: a new workload token in the file or from the function,
// or a new ID token. invalid_scope and unauthorized_client stand whatever
// it presents. Either stands only for the scopes refused: more scopes after a
// step-up are asked for. Other refusals (invalid_client, a server error)
// are not remembered.
type GrantError struct {
	// Grant is the grant_type refused: "client_credentials",
	// "urn:ietf:params:oauth:grant-type:jwt-bearer" or
	// "urn:ietf:params:oauth:grant-type:token-exchange".
	Grant string
	// Endpoint is the token endpoint that refused it.
	Endpoint string
	// Code is the OAuth error code: "invalid_grant", "invalid_scope",
	// "unauthorized_client", "invalid_client", … (empty when the answer
	// carried none).
	Code string
	// Description is the server's error_description, if any.
	Description string
	// Status is the HTTP status of the answer.
	Status int
	// Err is the *oauth2.RetrieveError the answer was read into.
	Err error
}

func (e *GrantError) Error() string {
	s := fmt.Sprintf("token endpoint %s refused the %s grant (status %d)", e.Endpoint, e.Grant, e.Status)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

func (e *GrantError) Unwrap() error { return e.Err }

// final reports whether the refusal is one a source does not send again.
func (e *GrantError) final() bool {
	return slices.Contains([]string{"invalid_grant", "invalid_scope", "unauthorized_client"}, e.Code)
}

// grantError returns err as a *GrantError when it is a token endpoint's
// refusal (an *oauth2.RetrieveError), else err.
func grantError(grant, endpoint string, err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	ge := &GrantError{Grant: grant, Endpoint: endpoint, Code: re.ErrorCode, Description: re.ErrorDescription, Err: re}
	if re.Response != nil {
		ge.Status = re.Response.StatusCode
	}
	return ge
}
