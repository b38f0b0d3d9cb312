package client_test

import "crypto/sha256"

func sha256sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }
