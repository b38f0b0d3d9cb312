package oauthtest

import "time"

// SetAuthClock sets the clock a fake authorization server checks DPoP
// proofs' iat and JWTs' expiry with.
func SetAuthClock(a *AuthServer, now func() time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.now = now
}
