//go:build !unix

package stdio_test

import "time"

// hang waits to be killed.
func hang() {
	for {
		time.Sleep(time.Hour) // not synchronisation: waiting to be killed
	}
}
