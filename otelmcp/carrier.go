package otelmcp

import "slices"

// metaCarrier reads and writes trace context in a message's "_meta": the
// propagator's keys ("traceparent", "tracestate", "baggage") as strings.
type metaCarrier map[string]any

// Get returns the string at key, or "".
func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

// Set sets key to value.
func (m metaCarrier) Set(key, value string) { m[key] = value }

// Keys returns the keys whose values are strings, sorted.
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if _, ok := v.(string); ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
